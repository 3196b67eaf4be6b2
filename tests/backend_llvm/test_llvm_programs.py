"""Whole programs: emulate == numpy reference bit for bit; cascades fused == unfused."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import spgen
from llvm_graphs import F32_SPECIAL, GraphBuilder, random_bits
from reference import evaluate, mismatches
from spgen import SpgenError, _streams
from spgen.backend.llvm import emulate
from spgen.ir import Type
from spgen.passes import PASSES, run_passes

HERE = Path(__file__).parent
PROGRAMS = sorted((HERE / "programs").glob("*.spd"))
ROOT = HERE.parent.parent


def _inputs(graph, n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for p in graph.inputs:
        bits = random_bits(rng, n, str(p.type))
        if p.type is Type.F32:  # sprinkle the special values through the stream
            k = min(n, len(F32_SPECIAL))
            bits[rng.choice(n, k, replace=False)] = F32_SPECIAL[:k]
        elif p.type is Type.U32 and p.name.startswith(("id", "flag", "attr")):
            bits = (rng.random(n) < 0.3).astype(np.uint32)
        out[p.name] = bits
    return out


def _check(graph, n: int, ins, regs, ftz: bool, **kw) -> None:
    got = emulate(graph, n, ins, regs, ftz=ftz, **kw)
    want = evaluate(graph, n, ins, regs, ftz)
    for o in graph.outputs:
        bad = mismatches(got[o.port.name], want[o.port.name], str(o.port.type))
        assert bad.size == 0, f"{graph.name}.{o.port.name} n={n}: {bad.size} mismatches at {bad[:5]}"


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("path", PROGRAMS + [ROOT / "cores/jacobi5/jacobi5.spd"],
                         ids=lambda p: p.stem)
def test_program_matches_reference(path, ftz):
    d = spgen.compile(path, ftz=ftz)
    regs = _streams.parse_regs(d.graph, None)
    # lengths around the chunk size (256) and shorter than the shift reach
    for n in (1, 2, 5, 255, 256, 257, 1000, 5000):
        _check(d.graph, n, _inputs(d.graph, n, n), regs, ftz)


def test_registers_change_results():
    d = spgen.compile(HERE / "programs/brch_regs.spd")
    n = 700
    ins = _inputs(d.graph, n, 1)
    regs = _streams.parse_regs(d.graph, {"w": 3.0, "m": 0})
    _check(d.graph, n, ins, regs, False)
    a = emulate(d.graph, n, ins, regs)["v"]
    b = emulate(d.graph, n, ins, _streams.parse_regs(d.graph, None))["v"]
    assert not np.array_equal(a, b)


def _deep_shifts():
    """Shifts of shifts of computed signals, bool and constant shifts, long reaches."""
    b = GraphBuilder("deep")
    u = b.input("u")
    k = b.input("k", Type.U32)
    x = b.op("fmul", Type.F32, u, u)
    s1 = b.shift(b.shift(x, 3, 0x3F800000), -40, 0xBF800000)
    s2 = b.shift(b.shift(u, 700), -300)
    c = b.op("flt", Type.BOOL, s1, s2)
    cs = b.shift(c, -1, 1)
    one = b.shift(b.const(Type.F32, 0x40000000), 5, 0x40400000)
    y = b.op("select", Type.F32, cs, b.op("fadd", Type.F32, s1, one), s2)
    ks = b.shift(b.op("add", Type.U32, k, b.shift(k, -2, 7)), 1000, 5)
    b.output("y", y)
    b.output("k2", ks)
    b.output("u2", b.shift(u, 0))
    return b.done()


@pytest.mark.parametrize("n", [1, 3, 299, 1024, 1301, 4099])
def test_deep_shift_graph(n):
    g = _deep_shifts()
    ins = _inputs(g, n, n)
    _check(g, n, ins, {}, False)
    _check(g, n, ins, {}, True)


def _iterate_reference(graph, n, ins, regs, steps, fb, ftz=False):
    cur = dict(ins)
    for _ in range(steps):
        out = evaluate(graph, n, cur, regs, ftz)
        cur = {fb[k]: v for k, v in out.items()}
    return out


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("steps", [1, 2, 5, 17])
def test_cascade_fused_equals_unfused_and_reference(steps, threads):
    d = spgen.compile(HERE / "programs/heat_cascade.spd", params={"R": 9})
    g = d.graph
    fb = {"v": "u", "flag_o": "flag"}
    n = 20000
    ins = _inputs(g, n, steps)
    ins["u"] = np.random.default_rng(1).random(n, dtype=np.float32).view(np.uint32)
    regs = _streams.parse_regs(g, None)
    fused = emulate(g, n, ins, regs, steps=steps, threads=threads)
    small = emulate(g, n, ins, regs, steps=steps, threads=threads, group=3)
    plain = emulate(g, n, ins, regs, steps=steps, threads=threads, fuse=False)
    want = _iterate_reference(g, n, ins, regs, steps, fb)
    for name in ("v", "flag_o"):
        assert np.array_equal(fused[name], plain[name])
        assert np.array_equal(small[name], plain[name])
        assert mismatches(plain[name], want[name], "f32").size == 0


def test_jacobi_cascade_threads_agree():
    d = spgen.compile(ROOT / "cores/jacobi5/jacobi5.spd", params={"W": 96})
    g = d.graph
    n = 96 * 700
    rng = np.random.default_rng(5)
    ins = {"u": rng.random(n, dtype=np.float32).view(np.uint32),
           "attr": (rng.random(n) < 0.1).astype(np.uint32)}
    regs = _streams.parse_regs(g, None)
    one = emulate(g, n, ins, regs, steps=16, threads=1)
    two = emulate(g, n, ins, regs, steps=16, threads=2)
    plain = emulate(g, n, ins, regs, steps=16, threads=1, fuse=False)
    for name in one:
        assert np.array_equal(one[name], two[name])
        assert np.array_equal(one[name], plain[name])
    fb = {"v": "u", "attr_o": "attr"}
    want = _iterate_reference(g, n, ins, regs, 16, fb)
    assert mismatches(one["v"], want["v"], "f32").size == 0


def test_design_emulate_structured_arrays():
    d = spgen.compile(HERE / "programs/brch_regs.spd")
    n = 300
    ins = _inputs(d.graph, n, 3)
    main = np.zeros(n, dtype=_streams.input_dtype(d.graph, "main"))
    brch = np.zeros(n, dtype=_streams.input_dtype(d.graph, "brch"))
    for name in main.dtype.names:
        main[name] = ins[name].view(main.dtype[name])
    brch["h"] = ins["h"].view(np.float32)
    out = d.emulate({"main": main, "brch": brch}, regs={"w": 2.0})
    assert out.dtype == d.output_dtype()
    want = evaluate(d.graph, n, ins, _streams.parse_regs(d.graph, {"w": 2.0}))
    for name in out.dtype.names:
        assert mismatches(out[name].view(np.uint32), want[name], "f32" if out.dtype[name].kind == "f" else "u32").size == 0


def test_steps_needs_matching_ports():
    d = spgen.compile(HERE / "programs/int_mix.spd")
    with pytest.raises(SpgenError, match="output ports must match its input ports"):
        emulate(d.graph, 10, _inputs(d.graph, 10, 0), {}, steps=2)
    with pytest.raises(SpgenError, match="steps must be a positive integer"):
        emulate(d.graph, 10, _inputs(d.graph, 10, 0), {}, steps=0)


def test_extern_cannot_be_emulated():
    b = GraphBuilder("uses_ext")
    x = b.input("x", Type.U32)
    e = b.g.add("extern", Type.U32, (x,), module="my_filter", file="/abs/my_filter.v", latency=5,
                label="u1", out_types=(Type.U32,))
    b.output("y", b.g.add("proj", Type.U32, (e,), index=0))
    g = b.done()
    with pytest.raises(SpgenError, match="my_filter.*cannot be emulated"):
        emulate(g, 4, {"x": np.zeros(4, np.uint32)}, {})


def test_empty_stream():
    d = spgen.compile(HERE / "programs/shift_chain.spd")
    out = d.emulate(np.zeros(0, dtype=d.input_dtype()))
    assert len(out) == 0 and out.dtype == d.output_dtype()


@pytest.mark.parametrize("bad, msg", [
    (lambda d: np.zeros(4, dtype=[("a", "<f4")]), "input field 'b' is missing"),
    (lambda d: np.zeros(4, dtype=[("a", "<f4"), ("b", "<f8")]), "has dtype float64"),
    (lambda d: np.zeros(4, dtype=[("a", "<f4"), ("b", "<f4"), ("zz", "<f4")]), "'zz' is not an input"),
    (lambda d: np.zeros(4, dtype=np.float32), "structured array"),
    (lambda d: np.zeros((2, 2), dtype=d.input_dtype()), "1-D"),
])
def test_malformed_inputs_same_errors_as_sim(bad, msg):
    d = spgen.compile(HERE / "programs/shift_chain.spd")
    arr = bad(d)
    with pytest.raises(SpgenError, match=msg) as emu:
        d.emulate(arr)
    # spgen sim validates with the same function before it simulates anything
    with pytest.raises(SpgenError) as shared:
        _streams.check_inputs(d.graph, arr)
    assert str(emu.value) == str(shared.value)


def test_bad_register_value():
    d = spgen.compile(HERE / "programs/brch_regs.spd")
    with pytest.raises(SpgenError, match="register 'm'"):
        d.emulate({"main": np.zeros(2, d.graph and _streams.input_dtype(d.graph, "main")),
                   "brch": np.zeros(2, _streams.input_dtype(d.graph, "brch"))}, regs={"m": -1})


def test_multi_phase_graph_split_over_threads():
    # shifts of computed signals (rings) in every thread's halo
    g = _deep_shifts()
    n = 300_000
    ins = _inputs(g, n, 11)
    one = emulate(g, n, ins, {}, threads=1)
    two = emulate(g, n, ins, {}, threads=2)
    want = evaluate(g, n, ins, {}, False)
    for o in g.outputs:
        name = o.port.name
        assert np.array_equal(one[name], two[name])
        assert mismatches(one[name], want[name], str(o.port.type)).size == 0


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
def test_multi_phase_cascade_fused_threads(ftz):
    # shift_chain: outputs (y, z) feed inputs (a, b); several phases per stage
    g = spgen.compile(HERE / "programs/shift_chain.spd", ftz=ftz).graph
    n = 120_000
    rng = np.random.default_rng(2)
    ins = {p.name: (rng.random(n, dtype=np.float32) + 0.5).view(np.uint32) for p in g.inputs}
    fused = emulate(g, n, ins, {}, steps=3, threads=2, ftz=ftz)
    plain = emulate(g, n, ins, {}, steps=3, threads=1, fuse=False, ftz=ftz)
    want = _iterate_reference(g, n, ins, {}, 3, {"y": "a", "z": "b"}, ftz)
    for name in ("y", "z"):
        assert np.array_equal(fused[name], plain[name])
        assert mismatches(plain[name], want[name], "f32").size == 0


def test_kernels_reload_from_disk_cache(tmp_path, monkeypatch):
    # each JIT engine owns its target machine: reloading after the memory cache is
    # dropped must neither crash nor change a bit
    from spgen.backend.llvm import clear_memory_cache
    from spgen.backend.llvm._jit import get_kernel

    monkeypatch.setenv("SPGEN_CACHE", str(tmp_path))
    clear_memory_cache()
    g = _deep_shifts()
    n = 2000
    ins = _inputs(g, n, 4)
    first = emulate(g, n, ins, {})
    assert get_kernel(g, False).cached is False
    for _ in range(3):
        clear_memory_cache()
        again = emulate(g, n, ins, {})
        assert get_kernel(g, False).cached is True
        for name in first:
            assert np.array_equal(first[name], again[name])
    assert list(tmp_path.glob("llvm/*.o"))


@pytest.mark.parametrize("n", [1, 3, 8, 100, 700])
def test_cascade_on_streams_shorter_than_the_reach(n):
    g = spgen.compile(HERE / "programs/heat_cascade.spd", params={"R": 300}).graph
    ins = _inputs(g, n, n)
    regs = _streams.parse_regs(g, None)
    fused = emulate(g, n, ins, regs, steps=6, threads=2)
    plain = emulate(g, n, ins, regs, steps=6, fuse=False)
    want = _iterate_reference(g, n, ins, regs, 6, {"v": "u", "flag_o": "flag"})
    for name in ("v", "flag_o"):
        assert np.array_equal(fused[name], plain[name])
        assert mismatches(plain[name], want[name], "f32").size == 0


def test_graph_edited_in_place_gets_a_new_kernel():
    # the kernel cache must follow the graph's content: a constant changed in place
    # (same node count, same ids) is a different program
    b = GraphBuilder("scale")
    x = b.input("x")
    two = b.const(Type.F32, 0x40000000)  # 2.0
    b.output("y", b.op("fmul", Type.F32, x, two))
    g = b.done()
    xs = np.arange(8, dtype=np.float32)
    ins = {"x": xs.view(np.uint32)}
    assert np.array_equal(emulate(g, 8, ins, {})["y"].view(np.float32), xs * 2)
    two.attrs["bits"] = 0x40400000  # 3.0
    g.touch()  # an edit in place is recorded in the graph's version
    assert np.array_equal(emulate(g, 8, ins, {})["y"].view(np.float32), xs * 3)
    two.attrs["bits"] = 0x40000000  # and back: the earlier kernel again
    g.touch()
    assert np.array_equal(emulate(g, 8, ins, {})["y"].view(np.float32), xs * 2)


def test_unchanged_graph_costs_no_new_key_and_an_edit_recompiles(monkeypatch):
    # the per-call check is the graph's version (Graph.version), not its content: an
    # unchanged graph is never printed again, an edited one always is
    from spgen.backend.llvm import _jit

    printed = []
    text_key = _jit._text_key
    monkeypatch.setattr(_jit, "_text_key", lambda g, ftz: printed.append(g) or text_key(g, ftz))
    b = GraphBuilder("rewire")
    x, y = b.input("x"), b.input("y")
    d = b.op("fsub", Type.F32, x, y)
    b.output("z", d)
    g = b.done()
    xs, ys = np.arange(8, dtype=np.float32), np.full(8, 10, dtype=np.float32)
    ins = {"x": xs.view(np.uint32), "y": ys.view(np.uint32)}
    first = emulate(g, 8, ins, {})["z"].view(np.float32)
    assert np.array_equal(first, xs - ys) and len(printed) == 1
    for _ in range(5):
        assert np.array_equal(emulate(g, 8, ins, {})["z"], first.view(np.uint32))
    emulate(g, 8, ins, {}, ftz=True)  # another mode: its own key, made once
    emulate(g, 8, ins, {}, ftz=True)
    assert len(printed) == 2
    d.args = (d.args[1], d.args[0])  # operands swapped in place: y - x
    g.touch()
    assert np.array_equal(emulate(g, 8, ins, {})["z"].view(np.float32), ys - xs)
    assert len(printed) == 3


def _chain() -> tuple:
    """y = ((a + b) + c) + d on 1e8, 1, -1e8, 1: 1.0 as written, 0.0 once balanced."""
    b = GraphBuilder("chain")
    a, x, c, d = (b.input(name) for name in "abcd")
    y = b.op("fadd", Type.F32, b.op("fadd", Type.F32, b.op("fadd", Type.F32, a, x), c), d)
    b.output("y", y)
    ins = {k: np.full(8, v, dtype=np.float32).view(np.uint32)
           for k, v in zip("abcd", (1e8, 1.0, -1e8, 1.0))}
    return b.done(), ins


def test_a_pass_run_on_an_emulated_graph_is_seen_by_the_emulator():
    # reassociate (fast-math only) changes rounding: (1e8 + 1) + (-1e8 + 1) is 0, the
    # written order gives 1, so the output tells which graph the emulator ran
    g, ins = _chain()
    assert list(emulate(g, 8, ins, {})["y"].view(np.float32)) == [1.0] * 8
    PASSES["reassociate"].run(g)  # in place, through the pass's own entry point
    assert list(emulate(g, 8, ins, {})["y"].view(np.float32)) == [0.0] * 8
    run_passes(g, [(name, PASSES[name].run) for name in ("eliminate-dead-code", "renumber")])
    assert list(emulate(g, 8, ins, {})["y"].view(np.float32)) == [0.0] * 8


def test_a_pass_that_only_edits_nodes_in_place_is_seen_by_the_emulator():
    # fold-constants adds no node: it turns fmul(min subnormal, 1.0) into a const in
    # place, flushed to +0 under ftz; emulated in IEEE mode, y = x + that product is the
    # subnormal before the fold and +0 after it
    b = GraphBuilder("fold")
    x = b.input("x")
    tiny = b.op("fmul", Type.F32, b.const(Type.F32, 0x00000001), b.const(Type.F32, 0x3F800000))
    b.output("y", b.op("fadd", Type.F32, x, tiny))
    g = b.done()
    ins = {"x": np.zeros(8, dtype=np.uint32)}
    assert list(emulate(g, 8, ins, {})["y"]) == [1] * 8
    PASSES["fold-constants"].run(g, ftz=True)
    assert tiny.op == "const" and list(emulate(g, 8, ins, {})["y"]) == [0] * 8


def test_run_passes_records_a_step_that_edits_in_place():
    # a step of one's own need not know about versions: run_passes advances it
    g, ins = _chain()
    assert list(emulate(g, 8, ins, {})["y"].view(np.float32)) == [1.0] * 8
    root = g.outputs[0].node

    def double(graph):
        root.args = (root.args[0], root.args[0])  # y = x + x with x = (1e8 + 1) - 1e8 = 0
        return graph

    run_passes(g, [("double", double)])
    assert list(emulate(g, 8, ins, {})["y"].view(np.float32)) == [0.0] * 8
