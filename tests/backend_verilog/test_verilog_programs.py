"""Every test program, simulated cycle by cycle, equals the numpy reference bit for bit.

All programs share one Verilator build (one model, the core selected at run time),
so the suite pays for one C++ compile. Each run sends its stream twice back to
back: the second must equal the first (buffers re-initialised between streams).
"""
import numpy as np
import pytest
from reference import evaluate, nan_equal
from spgen.backend.verilog import simulate
from spgen.ir import Type
from verilog_suite import EXTERNS, FTZ_PROGRAMS, HARD_FP_PROGRAMS, PROGRAMS

pytestmark = [pytest.mark.xdist_group("verilog_bundle"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning")]  # inf/NaN in numpy refs

_F32_SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 3.4e38,
                         1.17549435e-38, 0.5, 2.0, 1e10, -7.25], dtype=np.float32)
_I32_SPECIAL = np.array([0, 1, -1, 2, 31, 32, 33, -2**31, 2**31 - 1, 7, -7, 100], dtype=np.int64)


def _random_port(rng, t: Type, n: int) -> np.ndarray:
    if t is Type.F32:
        v = (rng.standard_normal(n) * rng.choice([1e-3, 1.0, 1e3], n)).astype(np.float32)
        mask = rng.random(n) < 0.3
        v[mask] = rng.choice(_F32_SPECIAL, int(mask.sum()))
        return v.view(np.uint32)
    v = rng.integers(-2**31, 2**31, n, dtype=np.int64)
    small = rng.random(n) < 0.5
    v[small] = rng.integers(-40, 41, int(small.sum()))
    mask = rng.random(n) < 0.2
    v[mask] = rng.choice(_I32_SPECIAL, int(mask.sum()))
    return (v & 0xFFFFFFFF).astype(np.uint32)


def _inputs(graph, n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {p.name: _random_port(rng, p.type, n) for p in graph.inputs}


def _regs(graph, seed: int) -> dict[str, int]:
    if seed % 2 == 0:
        return {r.name: r.default for r in graph.regs}
    rng = np.random.default_rng(seed)
    return {r.name: int(_random_port(rng, r.type, 1)[0]) for r in graph.regs}


def _max_offset(graph) -> int:
    return max((abs(int(n.attrs["offset"])) for n in graph.shifts()), default=0)


def _lengths(core, graph) -> list[int]:
    # 1, 2, a small stream, and one longer than every delay line and buffer
    longest = core.report["latency_cycles"] + _max_offset(graph) + 37
    return [1, 2, 13, longest]


def _check(design, core, bundle, n: int, stall, seed: int) -> None:
    g = design.graph
    ins = _inputs(g, n, seed)
    regs = _regs(g, seed)
    # a shorter stream first, then the full one twice: every stream starts clean
    k = max(1, n // 3)
    out, stats = simulate(core, n, ins, regs, stall_seed=stall, bundle=bundle, repeat=2,
                          prelude=[k])
    ref = evaluate(g, n, ins, regs, ftz=design.ftz, externs=EXTERNS)
    ref_k = evaluate(g, k, {p: v[:k] for p, v in ins.items()}, regs, ftz=design.ftz,
                     externs=EXTERNS)
    for o in g.outputs:
        name = o.port.name
        assert nan_equal(out[name], ref[name], o.port.type), \
            f"{g.name}.{name} n={n} stall={stall}: sim {out[name][:8]} ref {ref[name][:8]}"
        got_k = stats["prelude_outputs"][0][name]
        assert nan_equal(got_k, ref_k[name], o.port.type), f"{g.name}.{name} prefix {k}"
    assert stats["elements"] == 2 * n + k
    if stall is None:  # II = 1: one element per cycle, plus the pipeline drain per stream
        lat = core.report["latency_cycles"]
        assert stats["cycles"] <= 2 * (n + lat + 3) + k + lat + 3


NAMES = ([p.stem for p in PROGRAMS] + [f"{s}_ftz" for s in FTZ_PROGRAMS]
         + [f"{s}_hfp" for s in HARD_FP_PROGRAMS])


def test_at_least_25_programs():
    assert len(PROGRAMS) >= 25


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("stall", [None, 11], ids=["nostall", "stall"])
def test_program_matches_reference(suite, name, stall):
    designs, cores, bundle = suite
    d, c = designs[name], cores[name]
    for i, n in enumerate(_lengths(c, d.graph)):
        _check(d, c, bundle, n, stall, seed=1000 * i + (stall or 0) + len(name))


def test_every_operator_is_covered(suite):
    from spgen.ir import OPS

    designs, _, _ = suite
    seen = set()
    for d in designs.values():
        seen.update(n.op for n in d.graph.nodes)
    computing = set(OPS) - {"inst", "proj", "input", "reg", "const", "shift", "extern"}
    assert computing <= seen, f"not covered: {sorted(computing - seen)}"
    assert {"shift", "extern", "reg", "const"} <= seen


def test_stall_patterns_do_not_change_results(suite):
    designs, cores, bundle = suite
    d, c = designs["shift_mixed"], cores["shift_mixed"]
    n = 200
    ins = _inputs(d.graph, n, 5)
    base, _ = simulate(c, n, ins, {}, bundle=bundle)
    for seed in (1, 2, 3, 4):
        out, stats = simulate(c, n, ins, {}, stall_seed=seed, bundle=bundle)
        assert stats["stall_cycles"] > 20
        for k in base:
            assert np.array_equal(out[k], base[k])


# ---- hand-written numpy references (plain float32/uint32, same operation order) ----

def _past(x, d, fill):
    y = np.full_like(x, fill)
    if d < len(x):
        y[d:] = x[:len(x) - d]
    return y


def _future(x, d, fill):
    y = np.full_like(x, fill)
    if d < len(x):
        y[:len(x) - d] = x[d:]
    return y


def _sim_fields(suite, name, n, seed, regs=None, stall=3):
    designs, cores, bundle = suite
    d = designs[name]
    ins = _inputs(d.graph, n, seed)
    out, _ = simulate(cores[name], n, ins, regs or {r.name: r.default for r in d.graph.regs},
                      stall_seed=stall, bundle=bundle)
    return ins, out


@pytest.mark.parametrize("n", [1, 5, 90])
def test_jacobi_numpy(suite, n):
    ins, out = _sim_fields(suite, "jacobi", n, 7)
    u = ins["u"].view(np.float32)
    attr = ins["attr"] % 2  # both branches of the select
    ins2 = {"u": ins["u"], "attr": attr.astype(np.uint32)}
    _, cores, bundle = suite
    out, _ = simulate(cores["jacobi"], n, ins2, {"w": 0x3e800000}, stall_seed=9, bundle=bundle)
    w = np.float32(0.25)
    s = _past(u, 1, 0) + _future(u, 1, 0)
    s = s + _past(u, 8, 0)
    s = s + _future(u, 8, 0)
    v = np.where(attr == 0, w * s, u).astype(np.float32)
    assert nan_equal(out["v"], v.view(np.uint32), "f32")
    assert np.array_equal(out["attr_o"], attr)


@pytest.mark.parametrize("n", [1, 3, 60])
def test_shift_neg_numpy(suite, n):
    ins, out = _sim_fields(suite, "shift_neg", n, 3)
    x = ins["x"].view(np.float32)
    y = _future(x, 1, np.float32(0)) - _future(x, 4, np.float32(3.0))
    assert nan_equal(out["y"], y.view(np.uint32), "f32")
    assert np.array_equal(out["z"], _future(ins["k"], 2, np.uint32(0xFFFFFFFF)))


@pytest.mark.parametrize("n", [2, 70])
def test_shift_pos_numpy(suite, n):
    ins, out = _sim_fields(suite, "shift_pos", n, 4)
    x = ins["x"].view(np.float32)
    y = _past(x, 1, np.float32(0)) + _past(x, 2, np.float32(1.0))
    y = y + _past(x, 5, np.float32(-2.0))
    assert nan_equal(out["y"], y.view(np.uint32), "f32")
    k = ins["k"]
    assert np.array_equal(out["z"], _past(k, 3, np.uint32(0xDEAD)) ^ _past(k, 1, np.uint32(0)))


def test_divrem_numpy(suite):
    ins, out = _sim_fields(suite, "i_divrem", 200, 8)
    a = ins["a"].view(np.int32).astype(np.int64)
    b = ins["b"].view(np.int32).astype(np.int64)
    safe = np.where(b == 0, 1, b)
    q = np.where(b == 0, 0, np.trunc(a / safe).astype(np.int64))
    q = np.where((a == -2**31) & (b == -1), -2**31, q)
    r = np.where(b == 0, 0, a - np.trunc(a / safe).astype(np.int64) * safe)
    r = np.where((a == -2**31) & (b == -1), 0, r)
    assert np.array_equal(out["q"], (q & 0xFFFFFFFF).astype(np.uint32))
    assert np.array_equal(out["r"], (r & 0xFFFFFFFF).astype(np.uint32))


def test_extern_numpy(suite):
    ins, out = _sim_fields(suite, "ext_verilog", 50, 2)
    a, b = ins["a"], ins["b"]
    s0 = a + np.uint32(1) + _past(b, 1, np.uint32(0))
    x0 = (a + np.uint32(1)) ^ _past(b, 1, np.uint32(0))
    assert np.array_equal(out["s"], s0)
    assert np.array_equal(out["x"], x0 - a)
    assert np.array_equal(out["t"], _future(s0, 2, np.uint32(5)))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_program_long_random_runs(suite, name):
    designs, cores, bundle = suite
    for seed in range(6):
        _check(designs[name], cores[name], bundle, 3000 + 17 * seed, 100 + seed, seed)
