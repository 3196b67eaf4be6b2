"""Hand-built IR graphs shared by the pass tests (tests/passes is not a package: loaded by path)."""
from __future__ import annotations

import struct

from spgen.ir import Graph, Node, Output, Port, Program, RegDecl, Type

F, I, U, B = Type.F32, Type.I32, Type.U32, Type.BOOL


def fbits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


class Builder:
    """Tiny helper: ports, consts and outputs in a few words."""

    def __init__(self, name: str) -> None:
        self.g = Graph(name)
        self._outs = 0

    def inp(self, name: str, t: Type = F) -> Node:
        idx = len(self.g.inputs)
        self.g.inputs.append(Port(name, t, "main", idx))
        return self.g.add("input", t, stream="main", port=name, index=idx, name=name)

    def reg(self, name: str, t: Type = F, default: int = 0) -> Node:
        self.g.regs.append(RegDecl(name, t, default))
        n = self.g.add("reg", t, name=name, default=default)
        n.attrs["name"] = name  # not through add(): its own keyword is the node name
        return n

    def c(self, value, t: Type = F) -> Node:
        if t is F and isinstance(value, float):
            bits = fbits(value)
        else:
            bits = value & (1 if t is B else 0xFFFFFFFF)
        return self.g.add("const", t, bits=bits)

    def op(self, op: str, t: Type, *args: Node, name: str | None = None, **attrs) -> Node:
        return self.g.add(op, t, tuple(args), name=name, **attrs)

    def out(self, node: Node, name: str | None = None) -> None:
        name = name or f"o{self._outs}"
        self.g.outputs.append(Output(Port(name, node.type, "main", self._outs), node))
        self._outs += 1


def fold_f32() -> Graph:
    b = Builder("fold_f32")
    x = b.inp("x")
    b.out(b.op("fadd", F, b.c(1.0), b.c(2.0), name="three"))
    b.out(b.op("fmul", F, b.c(0.1), b.c(3.0), name="rounded"))
    b.out(b.op("fmul", F, b.c(3.4e38), b.c(2.0), name="overflow"))
    b.out(b.op("fdiv", F, b.c(1e-38), b.c(100.0), name="subnormal_result"))
    b.out(b.op("fadd", F, b.c(0x00000001, F), b.c(0.0), name="subnormal_in"))
    b.out(b.op("fdiv", F, b.c(0.0), b.c(0.0), name="nan_kept"))
    b.out(b.op("fsqrt", F, b.c(2.0), name="sqrt2"))
    b.out(b.op("fmin", F, b.c(0x7FC00000, F), b.c(1.0), name="min_nan"))
    b.out(b.op("fmax", F, b.c(0x00000010, F), b.c(0.0), name="max_sub"))
    b.out(b.op("fadd", F, x, b.c(1.0), name="not_const"))
    lt = b.op("flt", B, b.c(0x80000000, F), b.c(0.0))
    b.out(b.op("booltoint", U, lt, name="neg0_lt_0"))
    b.out(b.op("fneg", F, b.c(0x7FC00000, F), name="neg_nan"))
    return b.g


def fold_int() -> Graph:
    b = Builder("fold_int")
    b.out(b.op("add", I, b.c(0x7FFFFFFF, I), b.c(1, I), name="wrap"))
    b.out(b.op("sdiv", I, b.c(7, I), b.c(0, I), name="div0"))
    b.out(b.op("sdiv", I, b.c(-(1 << 31), I), b.c(-1, I), name="min_div"))
    b.out(b.op("srem", I, b.c(-7, I), b.c(2, I), name="rem_sign"))
    b.out(b.op("urem", U, b.c(7, U), b.c(0, U), name="urem0"))
    b.out(b.op("shl", U, b.c(1, U), b.c(32, U), name="shl32"))
    b.out(b.op("ashr", I, b.c(-8, I), b.c(40, U), name="ashr40"))
    b.out(b.op("lshr", U, b.c(0x80000000, U), b.c(31, U), name="lshr31"))
    b.out(b.op("mul", U, b.c(0xFFFFFFFF, U), b.c(0xFFFFFFFF, U), name="mul_low"))
    b.out(b.op("fptosi", I, b.c(0x7FC00000, F), name="nan_to_i"))
    b.out(b.op("fptosi", I, b.c(3e9), name="sat_hi"))
    b.out(b.op("fptoui", U, b.c(-2.5), name="neg_to_u"))
    b.out(b.op("uitofp", F, b.c(0xFFFFFFFF, U), name="u_max_f"))
    b.out(b.op("sitofp", F, b.c(16777217, I), name="rne"))
    b.out(b.op("iabs", I, b.c(-(1 << 31), I), name="abs_min"))
    sel = b.op("select", I, b.op("slt", B, b.c(-1, I), b.c(0, I)), b.c(10, I), b.c(20, I))
    b.out(sel, "sel")
    return b.g


def simplify_graph() -> Graph:
    b = Builder("simplify")
    x, y = b.inp("x"), b.inp("y")
    k = b.inp("k", I)
    c = b.op("flt", B, x, y, name="c")
    b.out(b.op("fmul", F, x, b.c(1.0), name="x_mul_1"))
    b.out(b.op("fmul", F, b.c(1.0), y, name="one_mul_y"))
    b.out(b.op("fadd", F, x, b.c(0x80000000, F), name="x_plus_neg0"))
    b.out(b.op("fadd", F, x, b.c(0.0), name="x_plus_pos0_kept"))
    b.out(b.op("fsub", F, x, b.c(0.0), name="x_minus_0"))
    b.out(b.op("fdiv", F, x, b.c(1.0), name="x_div_1"))
    b.out(b.op("fneg", F, b.op("fneg", F, y), name="neg_neg"))
    b.out(b.op("fabs", F, b.op("fneg", F, y), name="abs_neg"))
    b.out(b.op("select", F, b.c(1, B), x, y, name="sel_true"))
    b.out(b.op("select", F, c, y, y, name="sel_same"))
    b.out(b.op("add", I, k, b.c(0, I), name="k_plus_0"))
    b.out(b.op("mul", I, k, b.c(0, I), name="k_mul_0"))
    b.out(b.op("and", I, b.c(-1, I), k, name="k_and_ones"))
    b.out(b.op("srem", I, k, b.c(1, I), name="k_rem_1"))
    b.out(b.op("not", I, b.op("not", I, k), name="not_not"))
    kb = b.op("bitcast", U, k)
    b.out(b.op("bitcast", I, kb, name="bitcast_back"))
    b.out(b.op("shift", F, x, offset=0, fill=0, name="shift0"))
    s1 = b.op("shift", F, x, offset=2, fill=0)
    b.out(b.op("shift", F, s1, offset=3, fill=0, name="shift_shift"))
    s2 = b.op("shift", F, y, offset=-1, fill=0)
    b.out(b.op("shift", F, s2, offset=4, fill=0, name="mixed_kept"))
    b.out(b.op("booltoint", I, b.op("and", B, c, b.c(0, B)), name="c_and_false"))
    return b.g


def cse_graph() -> Graph:
    b = Builder("cse")
    x, y = b.inp("x"), b.inp("y")
    i, j = b.inp("i", I), b.inp("j", I)
    s1 = b.op("shift", F, x, offset=1, fill=0)
    s2 = b.op("shift", F, x, offset=1, fill=0)
    s3 = b.op("shift", F, x, offset=1, fill=fbits(1.0))
    b.out(b.op("fadd", F, s1, s2, name="twice"))
    b.out(b.op("fadd", F, s2, s3, name="other_fill"))
    b.out(b.op("fmul", F, x, y, name="xy"))
    b.out(b.op("fmul", F, x, y, name="xy_again"))
    b.out(b.op("fmul", F, y, x, name="yx_kept"))
    b.out(b.op("add", I, i, j, name="ij"))
    b.out(b.op("add", I, j, i, name="ji_merged"))
    b.out(b.op("sub", I, j, i, name="sub_kept"))
    b.out(b.op("fadd", F, b.c(2.0), b.c(2.0), name="same_consts"))
    return b.g


def dce_graph() -> Graph:
    b = Builder("dce")
    x = b.inp("x")
    unused_in = b.inp("unused")
    w = b.reg("w", F, fbits(0.5))
    dead = b.op("fmul", F, x, unused_in, name="dead")
    b.op("fsqrt", F, dead, name="dead_too")
    b.out(b.op("fmul", F, x, b.c(2.0), name="live"))
    del w
    return b.g


def inline_program() -> Program:
    leaf = Builder("leaf")
    a = leaf.inp("a")
    gain = leaf.reg("gain", F, fbits(2.0))
    leaf.out(leaf.op("fmul", F, a, gain, name="scaled"), "y")
    leaf.out(a, "pass")
    mid = Builder("mid")
    p = mid.inp("p")
    q = mid.inp("q")
    inst = mid.op("inst", F, p, module="leaf", label="l0", params=())
    y = mid.op("proj", F, inst, index=0, name="y0")
    ext = mid.op("extern", F, q, module="filt", file="/abs/filt.v", latency=3, label="x0",
                 out_types=(F,))
    e = mid.op("proj", F, ext, index=0, name="e")
    mid.out(mid.op("fadd", F, y, e, name="sum"), "s")
    top = Builder("top")
    u, v = top.inp("u"), top.inp("v")
    i1 = top.op("inst", F, u, v, module="mid", label="m1", params=())
    i2 = top.op("inst", F, v, u, module="mid", label="m2", params=())
    r1 = top.op("proj", F, i1, index=0, name="r1")
    r2 = top.op("proj", F, i2, index=0, name="r2")
    top.out(top.op("fsub", F, r1, r2, name="d"), "d")
    leaf_direct = top.op("inst", F, u, module="leaf", label="lx", params=())
    top.out(top.op("proj", F, leaf_direct, index=1, name="through"), "t")
    return Program({"leaf": leaf.g, "mid": mid.g, "top": top.g}, "top")


def chain_graph() -> Graph:
    b = Builder("chain")
    xs = [b.inp(f"x{k}") for k in range(7)]
    acc = xs[0]
    for k, x in enumerate(xs[1:], 1):
        acc = b.op("fadd", F, acc, x, name=f"acc{k}")
    b.out(acc, "sum")
    p = b.op("fmul", F, xs[0], xs[1])
    p = b.op("fmul", F, p, xs[2], name="p2")  # p2 also drives an output: a tree boundary
    b.out(p, "p2")
    p3 = b.op("fmul", F, b.op("fmul", F, p, xs[3]), xs[4], name="p3")
    b.out(p3, "p3")
    return b.g


def jacobi_graph() -> Graph:
    b = Builder("jacobi")
    u = b.inp("u")
    attr = b.inp("attr", U)
    w = b.reg("w", F, fbits(0.25))
    wid = 4
    s = b.op("fadd", F, b.op("shift", F, u, offset=1, fill=0), b.op("shift", F, u, offset=-1, fill=0))
    s = b.op("fadd", F, s, b.op("shift", F, u, offset=wid, fill=0))
    s = b.op("fadd", F, s, b.op("shift", F, u, offset=-wid, fill=0), name="s")
    half = b.op("fmul", F, b.c(0.5), b.c(0.5), name="quarter")  # folds to 0.25
    v = b.op("select", F, b.op("ieq", B, attr, b.c(0, U)), b.op("fmul", F, w, s),
             b.op("fmul", F, u, b.op("fadd", F, half, b.c(0.75))), name="v")
    b.out(v, "v")
    b.out(attr, "attr_o")
    return b.g
