"""Random graphs rich in constants: optimize() must not change a single output bit."""
from __future__ import annotations

import numpy as np
import pytest
from reference import evaluate, nan_equal
from spgen.ir import Graph, Output, Port, Program, Type

F, I, U, B = Type.F32, Type.I32, Type.U32, Type.BOOL
INTS = (I, U)

F_SPECIAL = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x00000001, 0x807FFFFF,
             0x00800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F7FFFFF, 0x40400000,
             0x3DCCCCCD, 0x00400000, 0x4F000000, 0xCF000000, 0x4F800000]
I_SPECIAL = [0, 1, 2, 31, 32, 33, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 7, 0xFFFFFFF9]

# op -> list of (result type, operand types)
SIGS: dict[str, list[tuple[Type, tuple[Type, ...]]]] = {}
for op in ("fadd", "fsub", "fmul", "fdiv", "fmin", "fmax"):
    SIGS[op] = [(F, (F, F))]
for op in ("fsqrt", "fneg", "fabs"):
    SIGS[op] = [(F, (F,))]
for op in ("flt", "fle", "fgt", "fge", "feq", "fne"):
    SIGS[op] = [(B, (F, F))]
for op in ("add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "smin", "smax", "umin", "umax"):
    SIGS[op] = [(t, (t, t)) for t in INTS]
for op in ("shl", "lshr", "ashr"):
    SIGS[op] = [(t, (t, s)) for t in INTS for s in INTS]
SIGS["neg"] = [(t, (t,)) for t in INTS]
SIGS["iabs"] = [(I, (I,))]
for op in ("ieq", "ine", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"):
    SIGS[op] = [(B, (t, t)) for t in INTS]
for op in ("and", "or", "xor"):
    SIGS[op] = [(t, (t, t)) for t in (I, U, B)]
SIGS["not"] = [(t, (t,)) for t in (I, U, B)]
SIGS["select"] = [(t, (B, t, t)) for t in (F, I, U, B)]
SIGS["sitofp"] = [(F, (I,))]
SIGS["uitofp"] = [(F, (U,))]
SIGS["fptosi"] = [(I, (F,))]
SIGS["fptoui"] = [(U, (F,))]
SIGS["bitcast"] = [(I, (F,)), (U, (F,)), (F, (I,)), (F, (U,)), (I, (U,)), (U, (I,))]
SIGS["booltoint"] = [(t, (B,)) for t in INTS]
SIGS["shift"] = [(t, (t,)) for t in (F, I, U)]


def random_graph(seed: int, size: int = 60) -> Graph:
    rng = np.random.default_rng(seed)
    g = Graph(f"r{seed}")
    pool: dict[Type, list] = {t: [] for t in (F, I, U, B)}
    for k, t in enumerate((F, F, I, U)):
        g.inputs.append(Port(f"in{k}", t, "main", k))
        pool[t].append(g.add("input", t, stream="main", port=f"in{k}", index=k))

    def const(t: Type):
        table = {F: F_SPECIAL, I: I_SPECIAL, U: I_SPECIAL, B: [0, 1]}[t]
        if t is F and rng.random() < 0.3:
            bits = int(np.float32(rng.normal()).view(np.uint32))
        else:
            bits = table[rng.integers(len(table))]
        return g.add("const", t, bits=bits)

    def pick(t: Type):
        if not pool[t] or rng.random() < 0.45:
            pool[t].append(const(t))
        # Recent nodes more often, so chains form.
        k = len(pool[t]) - 1 - min(int(rng.exponential(3)), len(pool[t]) - 1)
        return pool[t][k]

    ops = sorted(SIGS)
    for _ in range(size):
        op = ops[rng.integers(len(ops))]
        res, args = SIGS[op][rng.integers(len(SIGS[op]))]
        attrs = {}
        if op == "shift":
            attrs = {"offset": int(rng.integers(-3, 4)), "fill": int(rng.choice([0, 0x3F800000]))}
        pool[res].append(g.add(op, res, tuple(pick(t) for t in args), **attrs))
    outs = [n for n in g.nodes[-25:] if n.type is not B]
    for k, n in enumerate(outs):
        g.outputs.append(Output(Port(f"o{k}", n.type, "main", k), n))
    g.verify()
    return g


@pytest.mark.parametrize("ftz", [False, True])
@pytest.mark.parametrize("seed", range(40))
def test_optimize_keeps_every_bit(seed, ftz):
    g = random_graph(seed)
    out = optimize_top(g, ftz)
    n = 24
    rng = np.random.default_rng(seed + 1000)
    ins = {}
    for p in g.inputs:
        v = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
        if p.type is F:
            v[: len(F_SPECIAL)] = F_SPECIAL
        ins[p.name] = v
    want = evaluate(g, n, ins, {}, ftz)
    got = evaluate(out, n, ins, {}, ftz)
    for o in g.outputs:
        assert nan_equal(want[o.port.name], got[o.port.name], o.port.type), (o.port.name, seed)
    assert len(out.nodes) <= len(g.nodes)


def optimize_top(g: Graph, ftz: bool) -> Graph:
    from spgen.passes import optimize

    return optimize(Program({g.name: g}, g.name), ftz=ftz)


def test_random_graphs_do_get_folded():
    before = sum(len(random_graph(s).nodes) for s in range(10))
    after = sum(len(optimize_top(random_graph(s), False).nodes) for s in range(10))
    assert after < 0.8 * before
