"""Chunk-uniform select specialisation: specialised and general blocks in one stream, same bits."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import spgen
from llvm_graphs import F32_SPECIAL, GraphBuilder, random_bits
from reference import evaluate, mismatches
from spgen import _streams
from spgen.backend._plan import CHUNK, make_plan
from spgen.backend.llvm import _spec, emulate
from spgen.ir import Type
from spgen.lbm import MOVING_WALL, WALL, as_core_input, compile_core, to_records

SUB = _spec.SUB
W, H = 64, 40  # 2,560 cells: 10 chunks, 160 blocks of SUB


def _grid() -> np.ndarray:
    """Fluid rows (blocks fully fluid), a solid band, moving walls, then random kinds."""
    rng = np.random.default_rng(5)
    attr = np.zeros((H, W), np.uint32)
    attr[0, :] = attr[-1, :] = attr[:, 0] = attr[:, -1] = WALL
    attr[-1, 1:-1] = MOVING_WALL
    attr[14:20, :] = WALL                                  # all-solid blocks
    attr[30:38, 1:-1] = rng.choice([0, 0, 0, WALL, MOVING_WALL], (8, W - 2))  # mixed
    attr[8, 40] = MOVING_WALL                              # a lone moving wall in the fluid
    return attr


def _block_kinds(attr: np.ndarray) -> set[str]:
    """Which loops the blocks of this grid need (fast chunks only): checks the test data."""
    a = attr.ravel() & 3
    n = a.size
    kinds = set()
    for s in range(CHUNK, n - CHUNK, SUB):  # chunks away from the stream ends
        idx = np.arange(s, s + SUB)
        nbr = np.concatenate([idx + d for d in (1, -1, W, -W, W + 1, W - 1, -W - 1, 1 - W)])
        if np.all(a[idx] == 0) and np.all(a[nbr] == 0):
            kinds.add("fluid")
        elif np.all(a[idx] != 0):
            kinds.add("solid")
        elif np.all(a[nbr] != 2):
            kinds.add("wall")  # fluid cells next to resting walls only
        else:
            kinds.add("general")
    return kinds


@pytest.fixture(scope="module")
def lbm():
    d = compile_core(W)
    attr = _grid()
    rng = np.random.default_rng(7)
    f = (rng.random((9, H, W)) * 0.2 + 0.02).astype(np.float32)
    rec = as_core_input(d, to_records(f, attr))
    n, ins = _streams.check_inputs(d.graph, rec)
    # special values (NaN, inf, subnormals, zeros) in fluid, solid and mixed blocks
    for name in ("f1", "f5", "f8"):
        bits = ins[name].copy()
        bits[rng.choice(n, len(F32_SPECIAL), replace=False)] = F32_SPECIAL
        ins[name] = bits
    regs = _streams.parse_regs(d.graph, {"omega": 1.6, "uw_x": 0.05, "uw_y": -0.01})
    return d.graph, n, ins, regs, attr


def test_lbm_core_gets_fluid_solid_and_wall_loops(lbm):
    g = lbm[0]
    plan = make_plan(g)
    variants = _spec.spec_variants(plan, 0)
    assert [v for v, _c, _l in variants] == [False, True, False]
    solid, fluid, wall = variants
    assert len(solid[1]) == 1 and len(fluid[1]) == 9  # (attr & 3) == 0 here and at 8 neighbours
    assert len(fluid[2]) < len(plan.compute[0]) * 0.7  # no bounce-back or moving-wall work
    # blocks at a resting wall: "neighbour is a moving wall" false at all 8 neighbours,
    # bounce-back kept, the moving-wall terms (the density sum and its products) dropped
    assert len(wall[1]) == 8 and len(fluid[2]) < len(wall[2]) < len(plan.compute[0])
    dropped = set(plan.compute[0]) - wall[2]
    assert sum(n.op == "fadd" for n in dropped) >= 8  # the density sum rs = f0 + ... + f8
    assert _block_kinds(lbm[4]) == {"fluid", "solid", "wall", "general"}


def _reference(g, n, ins, regs, steps, ftz):
    fb = {o.port.name: p.name for o, p in zip(g.outputs, g.inputs)}
    cur = dict(ins)
    for _ in range(steps):
        out = evaluate(g, n, cur, regs, ftz)
        cur = {fb[k]: v for k, v in out.items()}
    return out


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
def test_lbm_specialised_equals_general_and_reference(lbm, ftz, monkeypatch):
    from spgen.backend.llvm import _run

    g, n, ins, regs, _attr = lbm
    runs = [(1, {}), (5, {}), (5, {"group": 2}), (5, {"threads": 2}), (5, {"fuse": False}),
            (1, {"streamed": True}), (5, {"streamed": True, "group": 3})]

    def go():
        out = {}
        for k, (s, kw) in enumerate(runs):
            kw = dict(kw)
            # streaming stores (the fast loop's output chunk buffer) forced on or off
            monkeypatch.setattr(_run, "_STREAM_BYTES", 0 if kw.pop("streamed", 0) else 1 << 62)
            out[k] = emulate(g, n, ins, regs, steps=s, ftz=ftz, **kw)
        return out

    got = go()
    # the same kernels with the specialised loops not asked for (their plain fast loops)
    monkeypatch.setattr(_run, "_SPEC_STAGES", 99)
    unasked = go()
    monkeypatch.setattr(_spec, "SPECIALISE", False)
    plain = go()
    want = {s: _reference(g, n, ins, regs, s, ftz) for s in (1, 5)}
    for k, (s, _kw) in enumerate(runs):
        for o in g.outputs:
            name, t = o.port.name, str(o.port.type)
            bad = mismatches(got[k][name], want[s][name], t)
            assert bad.size == 0, f"run {runs[k]} {name}: {bad.size} mismatches at {bad[:5]}"
            # same bits, every NaN equal to every other (SPD.md): where a NaN input meets an
            # invalid operation (inf - inf), which NaN comes out depends on the operand
            # order the code generator picked for a commutative add, and the loops differ
            for other in (plain[k][name], unasked[k][name]):
                bad = mismatches(got[k][name], other, t)
                assert bad.size == 0, f"run {runs[k]} {name}: {bad.size} differ at {bad[:5]}"


def _mixed_graph():
    """Cheap conditions of both polarities, nested, shifted, a bool port, a condition also
    used as a value, and a float condition (never specialised)."""
    b = GraphBuilder("spec_mix")
    x = b.input("x")
    y = b.input("y")
    k = b.input("k", Type.U32)
    flag = b.input("flag", Type.BOOL)
    zero, three = b.const(Type.U32, 0), b.const(Type.U32, 3)
    c0 = b.op("ieq", Type.BOOL, b.op("and", Type.U32, k, three), zero)
    c1 = b.op("ieq", Type.BOOL, b.op("and", Type.U32, b.shift(k, 3, 1), three), zero)
    c2 = b.op("ine", Type.BOOL, b.shift(k, -2, 0), zero)   # usually false
    heavy = b.op("fdiv", Type.F32, b.op("fmul", Type.F32, x, y), b.op("fadd", Type.F32, y, x))
    other = b.op("fsub", Type.F32, b.op("fsqrt", Type.F32, b.op("fabs", Type.F32, x)), y)
    inner = b.op("select", Type.F32, c2, other, b.op("fadd", Type.F32, heavy, y))
    heavy2 = b.op("fdiv", Type.F32, y, b.op("fsub", Type.F32, x, y))
    z = b.op("select", Type.F32, c0, b.op("select", Type.F32, c1, heavy, inner), heavy2)
    w = b.op("select", Type.F32, flag, b.op("fmul", Type.F32, other, x), y)
    v = b.op("select", Type.F32, b.op("flt", Type.BOOL, x, y), x, y)
    b.output("z", z)
    b.output("w", w)
    b.output("v", v)
    b.output("c", b.op("booltoint", Type.U32, c0))
    return b.done()


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("n", [CHUNK * 9 + 37, CHUNK * 12])
def test_generic_specialisation_matches_reference(n, ftz, monkeypatch):
    from spgen.backend.llvm import _run

    monkeypatch.setattr(_run, "_SPEC_STAGES", 1)  # one step, specialised
    g = _mixed_graph()
    variants = _spec.spec_variants(make_plan(g), 0)
    assert {v for v, _c, _l in variants} == {True, False}
    rng = np.random.default_rng(n)
    # runs of uniform conditions (long and short) and scattered mixed elements
    k = np.repeat(rng.choice([0, 4, 1, 2], n // 24 + 1), 24)[:n].astype(np.uint32)
    k[rng.choice(n, n // 40, replace=False)] = 1
    flag = np.repeat(rng.random(n // 50 + 1) < 0.5, 50)[:n].astype(np.uint32)
    ins = {"x": random_bits(rng, n, "f32"), "y": random_bits(rng, n, "f32"), "k": k,
           "flag": flag}
    got = emulate(g, n, ins, {}, ftz=ftz)
    want = evaluate(g, n, ins, {}, ftz)
    monkeypatch.setattr(_spec, "SPECIALISE", False)
    plain = emulate(g, n, ins, {}, ftz=ftz)
    for o in g.outputs:
        name, t = o.port.name, str(o.port.type)
        bad = mismatches(got[name], want[name], t)
        assert bad.size == 0, f"{name}: {bad.size} mismatches at {bad[:5]}"
        assert mismatches(got[name], plain[name], t).size == 0, name


def test_float_conditions_and_light_phases_are_not_specialised():
    d = spgen.compile(Path(__file__).parents[2] / "cores/jacobi5/jacobi5.spd")
    assert _spec.spec_variants(make_plan(d.graph), 0) == []  # 4 float ops: load-bound
    b = GraphBuilder("fcond")
    x, y = b.input("x"), b.input("y")
    heavy = b.op("fdiv", Type.F32, b.op("fmul", Type.F32, x, y), b.op("fadd", Type.F32, y, x))
    b.output("z", b.op("select", Type.F32, b.op("flt", Type.BOOL, x, y), heavy, x))
    assert _spec.spec_variants(make_plan(b.done()), 0) == []



def _cascade_graph(passthrough: bool):
    """v = tag == 0 ? heavy : other, read at two shifts; the tag passes through or flips."""
    b = GraphBuilder("spec_casc")
    u = b.input("u")
    k = b.input("k", Type.U32)
    zero, one = b.const(Type.U32, 0), b.const(Type.U32, 1)
    c = b.op("and", Type.BOOL, b.op("ieq", Type.BOOL, b.shift(k, 1, 1), zero),
             b.op("ieq", Type.BOOL, b.shift(k, -1, 1), zero))
    s = b.op("fadd", Type.F32, b.shift(u, 1), b.shift(u, -1))
    heavy = b.op("fdiv", Type.F32, b.op("fmul", Type.F32, s, u), b.op("fadd", Type.F32, s, u))
    other = b.op("fsqrt", Type.F32, b.op("fabs", Type.F32, b.op("fsub", Type.F32, u, s)))
    b.output("v", b.op("select", Type.F32, c, heavy, other))
    b.output("k_o", k if passthrough else b.op("xor", Type.U32, k, one))
    return b.done()


@pytest.mark.parametrize("passthrough", [True, False], ids=["tags-kept", "tags-flip"])
def test_block_classes_reused_only_when_the_cascade_keeps_them(passthrough):
    g = _cascade_graph(passthrough)
    plan = make_plan(g)
    variants = _spec.spec_variants(plan, 0)
    conds = [c for _v, used, _l in variants for c in used]
    assert variants and _spec.stage_invariant(plan, 0, conds) == passthrough
    n = CHUNK * 20 + 5
    rng = np.random.default_rng(11)
    k = np.repeat(rng.choice([0, 0, 1, 2], n // 40 + 1), 40)[:n].astype(np.uint32)
    ins = {"u": random_bits(rng, n, "f32"), "k": k}
    want = _reference(g, n, ins, {}, 6, False)
    for kw in ({}, {"group": 4}, {"threads": 2}, {"fuse": False}):
        got = emulate(g, n, ins, {}, steps=6, **kw)
        for name, t in (("v", "f32"), ("k_o", "u32")):
            bad = mismatches(got[name], want[name], t)
            assert bad.size == 0, f"{kw} {name}: {bad.size} mismatches at {bad[:5]}"


def _long_chain_graph():
    """A chain far longer than one block's scheduler window (divisions, a square root,
    conversions, integer and bool values crossing the middle), behind a cheap select."""
    b = GraphBuilder("pipe_chain")
    x, y = b.input("x"), b.input("y")
    k = b.input("k", Type.U32)
    j = b.input("j", Type.I32)
    jj = b.op("mul", Type.I32, j, b.shift(j, 2))             # an early integer, used late
    scale = b.reg("scale", Type.F32, 0x3FC00000)
    c = b.op("ieq", Type.BOOL, b.op("and", Type.U32, b.shift(k, 1, 1), b.const(Type.U32, 3)),
             b.const(Type.U32, 0))
    s = b.op("fadd", Type.F32, b.shift(x, 1), b.shift(x, -1))
    q = b.op("fdiv", Type.F32, b.op("fmul", Type.F32, s, y), b.op("fadd", Type.F32, s, scale))
    r = b.op("fsqrt", Type.F32, b.op("fabs", Type.F32, b.op("fsub", Type.F32, q, x)))
    neg = b.op("flt", Type.BOOL, q, y)                       # a bool across the cut
    i = b.op("fptosi", Type.I32, b.op("fmul", Type.F32, r, scale))  # an integer across it
    t = b.op("fdiv", Type.F32, b.op("sitofp", Type.F32, b.op("ashr", Type.I32, i,
                                                              b.const(Type.I32, 1))), r)
    u = b.op("fmul", Type.F32, b.op("fadd", Type.F32, t, q), b.op("fsub", Type.F32, y, t))
    v = b.op("fdiv", Type.F32, b.op("select", Type.F32, neg, u, t), b.op("fadd", Type.F32, u, y))
    w = b.op("fsub", Type.F32, b.op("fmul", Type.F32, v, v), b.op("fmul", Type.F32, q, scale))
    other = b.op("fdiv", Type.F32, b.op("fsqrt", Type.F32, b.op("fmul", Type.F32, y, y)),
                 b.op("fsub", Type.F32, x, y))
    b.output("z", b.op("select", Type.F32, c, w, other))
    b.output("i_o", b.op("bitcast", Type.F32,
                         b.op("add", Type.I32, i, b.op("booltoint", Type.I32, neg))))
    b.output("k_o", k)
    b.output("j_o", b.op("sub", Type.I32, jj, i))
    return b.done()


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
def test_pipelined_loops_match_reference(ftz, monkeypatch):
    """The specialised loops of a long chain are software-pipelined (first half of block
    j + 1 beside the second half of block j, values crossing in registers); runs of one
    block, of a few, of whole chunks, at stream ends and in cascades: same bits."""
    from spgen.backend.llvm import _pipeline, _run

    g = _long_chain_graph()
    plan = make_plan(g)
    variants = _spec.spec_variants(plan, 0)
    assert variants
    crossing = set()
    for value, used, live in variants:
        nodes = [n for n in plan.compute[0] if n in live]
        split = _pipeline.split(plan, 0, nodes, {c: value for c in used})
        assert split is not None
        first, second, cut = split
        assert first and second and cut
        crossing |= {n.type for n in cut}
    assert crossing >= {Type.F32, Type.I32, Type.BOOL}
    monkeypatch.setattr(_run, "_SPEC_STAGES", 1)  # single sweeps specialise too
    n = CHUNK * 11 + 21
    rng = np.random.default_rng(3)
    k = np.repeat(rng.choice([0, 0, 1, 4], n // 16 + 1), rng.choice([16, 40, 300], n // 16 + 1))[:n]
    k = k.astype(np.uint32)
    ins = {"x": random_bits(rng, n, "f32"), "y": random_bits(rng, n, "f32"), "k": k,
           "j": random_bits(rng, n, "i32")}
    regs = {"scale": 0x3FC00000}
    want1 = evaluate(g, n, ins, regs, ftz)
    got1 = emulate(g, n, ins, regs, ftz=ftz)
    fb = {"z": "x", "i_o": "y", "k_o": "k", "j_o": "j"}  # by position
    cur = dict(ins)
    for _ in range(3):
        want3 = evaluate(g, n, cur, regs, ftz)
        cur = {fb[o]: v for o, v in want3.items()}
    got3 = emulate(g, n, ins, regs, ftz=ftz, steps=3)
    for name, t in (("z", "f32"), ("i_o", "f32"), ("k_o", "u32"), ("j_o", "i32")):
        for got, want in ((got1, want1), (got3, want3)):
            bad = mismatches(got[name], want[name], t)
            assert bad.size == 0, f"{name}: {bad.size} mismatches at {bad[:5]}"
