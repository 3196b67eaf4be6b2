"""The reference evaluator's integer, logic and stream ops against SPD.md, op by op."""
from __future__ import annotations

import numpy as np
import pytest
from reference import evaluate
from spgen.ir import Graph, Output, Port, RegDecl, Type
from spgen.passes._scalar import fold_bits
from test_reference_softfloat import one_op

F, I, U, B = Type.F32, Type.I32, Type.U32, Type.BOOL
SPECIAL = [0, 1, 2, 3, 31, 32, 33, 40, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF,
           0xFFFFFFFE, 0xFFFFFFF9, 7, 0x12345678]
INT_BIN = ["add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "shl", "lshr", "ashr",
           "smin", "smax", "umin", "umax"]
INT_CMP = ["ieq", "ine", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


def _pairs(n: int = 800) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    s = np.array(SPECIAL, dtype=np.uint32)
    ga, gb = np.meshgrid(s, s)
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b[: n // 2] &= np.uint32(0x3F)  # small divisors and shift amounts
    return np.concatenate([ga.ravel(), a]), np.concatenate([gb.ravel(), b])


def _signed(x: int) -> int:
    return x - (1 << 32) if x >> 31 else x


def _spd(op: str, a: int, b: int) -> int:
    """SPD.md's rule for one pair, written out with Python integers."""
    sa, sb, m = _signed(a), _signed(b), 0xFFFFFFFF
    if op in ("sdiv", "srem"):
        if sb == 0:
            return 0
        q = sa // sb  # floor; truncation toward zero differs when inexact and negative
        if q < 0 and q * sb != sa:
            q += 1
        return (q if op == "sdiv" else sa - q * sb) & m
    return {
        "add": (a + b) & m, "sub": (a - b) & m, "mul": (a * b) & m,
        "udiv": a // b if b else 0, "urem": a % b if b else 0,
        "shl": (a << b) & m if b < 32 else 0, "lshr": a >> b if b < 32 else 0,
        "ashr": (sa >> min(b, 31)) & m,
        "smin": a if sa < sb else b, "smax": a if sa > sb else b,
        "umin": min(a, b), "umax": max(a, b),
        "ieq": int(a == b), "ine": int(a != b), "slt": int(sa < sb), "sle": int(sa <= sb),
        "sgt": int(sa > sb), "sge": int(sa >= sb), "ult": int(a < b), "ule": int(a <= b),
        "ugt": int(a > b), "uge": int(a >= b),
    }[op]


@pytest.mark.parametrize("op", INT_BIN + INT_CMP)
def test_integer_ops_follow_spd(op):
    a, b = _pairs()
    t = U if op in ("udiv", "urem", "lshr", "umin", "umax", "ult", "ule", "ugt", "uge") else I
    g = one_op(op, B if op in INT_CMP else t, t, t)
    got = evaluate(g, a.size, {"a0": a, "a1": b}, {})["y"]
    for k, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
        want = _spd(op, x, y)
        assert got[k] == want, (op, hex(x), hex(y))
        # The constant folder is a second, separate implementation of the same rules.
        assert fold_bits(op, B if op in INT_CMP else t, [(t, x), (t, y)], False) == want


def test_unary_int_and_logic():
    a, _ = _pairs(200)
    ev = lambda op, res, t: evaluate(one_op(op, res, t), a.size, {"a0": a}, {})["y"]
    assert np.array_equal(ev("neg", I, I), (-a.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32))
    s = a.view(np.int32).astype(np.int64)
    assert np.array_equal(ev("iabs", I, I), (np.abs(s) & 0xFFFFFFFF).astype(np.uint32))
    assert ev("iabs", I, I)[SPECIAL.index(0x80000000)] == 0x80000000
    assert np.array_equal(ev("not", U, U), ~a)
    assert np.array_equal(ev("bitcast", F, U), a)
    bits = np.array([0, 1, 1, 0], dtype=np.uint32)
    g = one_op("not", B, B)
    g.outputs[0] = Output(Port("y", U, "main", 0), g.add("booltoint", U, (g.nodes[-1],)))
    assert evaluate(g, 4, {"a0": bits}, {})["y"].tolist() == [1, 0, 0, 1]


def _shift_graph(offset: int, fill: int) -> Graph:
    g = Graph("s")
    g.inputs.append(Port("x", U, "main", 0))
    x = g.add("input", U, stream="main", port="x", index=0)
    g.outputs.append(Output(Port("y", U, "main", 0),
                            g.add("shift", U, (x,), offset=offset, fill=fill)))
    return g


@pytest.mark.parametrize("offset", [-7, -3, -1, 0, 1, 2, 5, 7, 9])
def test_shift_fills_both_ends(offset):
    n = 7
    x = np.arange(10, 10 + n, dtype=np.uint32)
    got = evaluate(_shift_graph(offset, 99), n, {"x": x}, {})["y"].tolist()
    want = [int(x[k - offset]) if 0 <= k - offset < n else 99 for k in range(n)]
    assert got == want


def test_select_regs_consts_and_externs():
    g = Graph("t")
    g.inputs.append(Port("x", F, "main", 0))
    g.regs.append(RegDecl("w", F, 0x40000000))
    x = g.add("input", F, stream="main", port="x", index=0)
    w = g.add("reg", F, default=0x40000000)
    w.attrs["name"] = "w"
    c = g.add("flt", B, (x, g.add("const", F, bits=0)))
    e = g.add("extern", F, (x, w), module="m", file="/m.v", latency=2, label="e",
              out_types=(F, F))
    y = g.add("select", F, (c, g.add("proj", F, (e,), index=1), g.add("fmul", F, (x, w))))
    g.outputs.append(Output(Port("y", F, "main", 0), y))
    g.verify()
    xs = np.float32([-1.0, 3.0]).view(np.uint32)
    ext = {"m": lambda a, b: (a, a ^ np.uint32(0x80000000))}
    got = evaluate(g, 2, {"x": xs}, {}, externs=ext)["y"].view(np.float32).tolist()
    assert got == [1.0, 6.0]  # x<0: -x from the extern; else x*w with the default w=2
    got = evaluate(g, 2, {"x": xs}, {"w": 0x40400000}, externs=ext)["y"].view(np.float32)
    assert got.tolist() == [1.0, 9.0]
    with pytest.raises(KeyError, match="extern module 'm'"):
        evaluate(g, 2, {"x": xs}, {})
