"""The CUDA back end on a GPU: the same bits as the CPU emulator (LLVM back end).

Every program of the repository's tests and cores, every operator on the special-value
pairs, IEEE and ``--ftz``, single steps, cascades (a launch per step, and the L2
temporal blocking kernel), all
equal the CPU emulator with every NaN equal to every other (SPD.md: a GPU returns the
canonical NaN where x86 keeps an operand's payload). Without a GPU every test here is
skipped, and the skip says why; the code generator's own tests run anyway
(test_cuda_codegen.py).
"""
from __future__ import annotations

import copy
import zlib
from pathlib import Path

import numpy as np
import pytest
import spgen
from llvm_graphs import F32_SPECIAL, I32_SPECIAL, SIGNATURES, pairs, random_bits, single_op
from reference import mismatches
from spgen import CompileError, _streams
from spgen.backend import cuda, llvm
from spgen.backend._plan import feedback
from spgen.ir import Type

pytestmark = pytest.mark.skipif(cuda.cuda_unavailable() is not None,
                                reason=f"needs an NVIDIA GPU: {cuda.cuda_unavailable()}")

ROOT = Path(__file__).parent.parent.parent
ALL = sorted(p for d in ("tests", "cores") for p in (ROOT / d).rglob("*.spd"))


def _designs():
    out = []
    for path in ALL:
        try:
            d = spgen.compile(path)
        except CompileError:
            continue
        if not any(n.op == "extern" for n in d.graph.nodes):
            out.append(pytest.param(path, id=str(path.relative_to(ROOT))))
    return out


DESIGNS = _designs()


def _inputs(g, n: int, rng) -> dict[str, np.ndarray]:
    """Random bits with the special values (NaN, inf, subnormals...) at the start."""
    ins = {}
    for p in g.inputs:
        bits = random_bits(rng, n, str(p.type))
        special = F32_SPECIAL if p.type is Type.F32 else I32_SPECIAL
        k = min(n, len(special))
        bits[:k] = special[:k]
        if p.type is Type.U32 and "attr" in p.name:  # cell tags: mostly fluid
            bits = (rng.random(n) < 0.3).astype(np.uint32) * rng.integers(0, 4, n).astype(np.uint32)
        ins[p.name] = bits
    return ins


def _nan_bits_canonical(g):
    """A copy of ``g`` whose ``bits(x)`` of an f32 ``x`` sees one NaN pattern for every NaN.

    SPD.md leaves a NaN's payload open (every NaN equals every other): x86 keeps an
    operand's payload or gives 0xFFC00000 for an invalid operation, a GPU gives
    0x7FFFFFFF, and LLVM may swap the operands of a commutative operation. ``bits()`` is
    where a program can see the difference in an integer output, so both emulators
    run this copy, which is otherwise the same program, and are compared exactly.
    """
    g = copy.deepcopy(g)
    nodes = []
    for n in g.nodes:
        if n.op == "bitcast" and n.args[0].type is Type.F32:
            a = n.args[0]
            nan = g.add("fne", Type.BOOL, (a, a))
            k = g.add("const", Type.F32, bits=0x7FC00000)
            pick = g.add("select", Type.F32, (nan, k, a))
            del g.nodes[-3:]
            nodes += [nan, k, pick]
            n.args = (pick,)
        nodes.append(n)
    g.nodes = nodes
    g.renumber()
    return g


def _same(got, want, g, what: str) -> None:
    for o in g.outputs:
        bad = mismatches(got[o.port.name], want[o.port.name], str(o.port.type))
        assert bad.size == 0, f"{what} {o.port.name}: {bad.size} mismatches at {bad[:5]}"


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("path", DESIGNS)
def test_every_program_matches_the_cpu_emulator(path, ftz):
    g = _nan_bits_canonical(spgen.compile(path, ftz=ftz).graph)
    regs = _streams.parse_regs(g, None)
    rng = np.random.default_rng(zlib.crc32(str(path.name).encode()))
    for n in (1, 300, 2000, 70_001):
        ins = _inputs(g, n, rng)
        want = llvm.emulate(g, n, ins, regs, ftz=ftz)
        _same(cuda.emulate(g, n, ins, regs, ftz=ftz), want, g, f"n={n}")


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("op", sorted(SIGNATURES))
def test_every_operator_on_special_pairs(op, ftz):
    g = single_op(op)
    types = SIGNATURES[op][0]
    special = [F32_SPECIAL if t is Type.F32 else I32_SPECIAL for t in types]
    cols = [special[0]] if len(types) == 1 else list(pairs(np.union1d(*special[:2])))
    rng = np.random.default_rng(zlib.crc32(op.encode()))
    ins = {k: np.concatenate([c, random_bits(rng, 5000, str(t))])
           for k, c, t in zip("abc", cols + [special[-1]] * 3, types)}
    m = min(len(v) for v in ins.values())
    ins = {k: v[:m] for k, v in ins.items()}
    _same(cuda.emulate(g, m, ins, {}, ftz=ftz), llvm.emulate(g, m, ins, {}, ftz=ftz), g, op)


def _cascadable():
    out = []
    for p in DESIGNS:
        g = spgen.compile(p.values[0]).graph
        if feedback(g) is not None and g.inputs:
            out.append(p)
    return out


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("path", _cascadable())
def test_cascades_match_the_cpu(path, ftz):
    g = _nan_bits_canonical(spgen.compile(path, ftz=ftz).graph)
    regs = _streams.parse_regs(g, None)
    rng = np.random.default_rng(7)
    n = 40_000
    ins = _inputs(g, n, rng)
    for steps in (2, 4, 16):
        want = llvm.emulate(g, n, ins, regs, steps=steps, ftz=ftz)
        _same(cuda.emulate(g, n, ins, regs, steps=steps, ftz=ftz), want, g, f"{steps} steps")
        _same(cuda.emulate(g, n, ins, regs, steps=steps, ftz=ftz, blocking=True), want, g,
              f"{steps} steps, L2 blocking")
    want = llvm.emulate(g, n, ins, regs, steps=7, ftz=ftz)
    _same(cuda.emulate(g, n, ins, regs, steps=7, ftz=ftz, blocking=True, group=3), want, g,
          "L2 blocking, groups of 3")


@pytest.mark.parametrize("lag", [None, 0, 1, 3])
def test_fused_lbm_any_lag_same_bits(lag):
    """The LBM core on a 96-wide grid (reach 97: a chunk reads its neighbours), the L2
    blocking kernel with the tightest lags (most waiting) and the default."""
    from spgen.lbm import compile_core

    g = compile_core(96).graph
    n = 96 * 300
    ins = _inputs(g, n, np.random.default_rng(3))
    regs = _streams.parse_regs(g, {"omega": 1.6, "uw_x": 0.05})
    prog = cuda.get_program(g, False)
    dev = [prog.cp.asarray(ins[name]) for name in prog.plan.in_slot]
    outs = prog.cascade(n, dev, prog._regs(regs), 5, lag=lag)
    want = llvm.emulate(g, n, ins, regs, steps=5)
    got = {name: prog.cp.asnumpy(outs[prog.plan.in_slot[i]])
           for o, i in feedback(g).items() for name in [o]}
    _same(got, want, g, f"lag={lag}")


def test_design_and_cli_on_the_gpu(tmp_path):
    from spgen.cli import main

    path = ROOT / "cores/jacobi5/jacobi5.spd"
    d = spgen.compile(path, params={"W": 32})
    rng = np.random.default_rng(1)
    a = np.zeros(32 * 40, dtype=[("u", "<f4"), ("attr", "<u4")])
    a["u"] = rng.random(len(a), dtype=np.float32)
    a["attr"][:32] = 1
    want = d.emulate(a, steps=9)
    got = d.emulate(a, steps=9, device="cuda")
    assert got.tobytes() == want.tobytes()
    np.save(tmp_path / "in.npy", a)
    assert main(["emulate", str(path), "-P", "W=32", "-i", str(tmp_path / "in.npy"), "-o",
                 str(tmp_path / "o.npy"), "--steps", "9", "--device", "cuda", "-q"]) == 0
    assert np.load(tmp_path / "o.npy").tobytes() == want.tobytes()
