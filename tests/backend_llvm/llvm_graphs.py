"""IR graphs and value vectors shared by the emulator tests."""
from __future__ import annotations

import numpy as np
from spgen.ir import Graph, Output, Port, RegDecl, Type

__all__ = ["F32_SPECIAL", "I32_SPECIAL", "GraphBuilder", "pairs", "random_bits", "single_op"]

# The special classes of the operator tests: +-0, +-subnormal min/max, +-normal min/max,
# +-1, +-inf, qNaN, sNaN (both signs of the NaNs too).
_POS = [0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x3F800000, 0x7F800000,
        0x7FC00000, 0x7FA00000]
F32_SPECIAL = np.array(_POS + [v | 0x80000000 for v in _POS], dtype=np.uint32)
I32_SPECIAL = np.array([0, 1, 2, 3, 7, 31, 32, 33, 63, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                        0xFFFFFFFE, 0x80000001, 0x12345678, 0xDEADBEEF], dtype=np.uint32)


def pairs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair of ``values`` as two flat arrays."""
    a, b = np.meshgrid(values, values, indexing="ij")
    return a.ravel().copy(), b.ravel().copy()


def random_bits(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """Random patterns: for f32 a mix of uniform bits, ordinary magnitudes and subnormals."""
    bits = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    if kind != "f32":
        return bits
    normal = rng.standard_normal(n).astype(np.float32).view(np.uint32)
    sub = bits & np.uint32(0x807FFFFF)
    pick = rng.integers(0, 3, n)
    return np.where(pick == 0, bits, np.where(pick == 1, normal, sub)).astype(np.uint32)


class GraphBuilder:
    """A tiny helper to build IR graphs the way the front end lowers SPD."""

    def __init__(self, name: str = "t"):
        self.g = Graph(name)
        self._main = 0

    def input(self, name: str, t: Type = Type.F32, stream: str = "main"):
        idx = sum(1 for p in self.g.inputs if p.stream == stream)
        self.g.inputs.append(Port(name, t, stream, idx))
        return self.g.add("input", t, stream=stream, port=name, index=idx, name=name)

    def reg(self, name: str, t: Type, default: int):
        self.g.regs.append(RegDecl(name, t, default))
        n = self.g.add("reg", t, default=default)
        n.attrs["name"] = name
        n.name = name
        return n

    def const(self, t: Type, bits: int):
        return self.g.add("const", t, bits=bits)

    def op(self, op: str, t: Type, *args, **attrs):
        return self.g.add(op, t, tuple(args), **attrs)

    def shift(self, x, d: int, fill: int = 0):
        return self.g.add("shift", x.type, (x,), offset=d, fill=fill)

    def output(self, name: str, node, stream: str = "main"):
        idx = sum(1 for o in self.g.outputs if o.port.stream == stream)
        self.g.outputs.append(Output(Port(name, node.type, stream, idx), node))

    def done(self) -> Graph:
        self.g.verify()
        return self.g


_F, _I, _U, _B = Type.F32, Type.I32, Type.U32, Type.BOOL

# op -> (operand types, result type)
SIGNATURES: dict[str, tuple[tuple[Type, ...], Type]] = {
    **{op: ((_F, _F), _F) for op in ("fadd", "fsub", "fmul", "fdiv", "fmin", "fmax")},
    **{op: ((_F,), _F) for op in ("fsqrt", "fneg", "fabs")},
    **{op: ((_F, _F), _B) for op in ("flt", "fle", "fgt", "fge", "feq", "fne")},
    **{op: ((_I, _I), _I) for op in ("add", "sub", "mul", "sdiv", "srem", "ashr", "smin",
                                     "smax", "and", "or", "xor")},
    **{op: ((_U, _U), _U) for op in ("udiv", "urem", "shl", "lshr", "umin", "umax")},
    **{op: ((_I,), _I) for op in ("neg", "iabs", "not")},
    **{op: ((_I, _I), _B) for op in ("ieq", "ine", "slt", "sle", "sgt", "sge")},
    **{op: ((_U, _U), _B) for op in ("ult", "ule", "ugt", "uge")},
    "sitofp": ((_I,), _F), "uitofp": ((_U,), _F), "fptosi": ((_F,), _I),
    "fptoui": ((_F,), _U), "bitcast": ((_F,), _U),
}


def single_op(op: str) -> Graph:
    """A program computing one op of its input ports; bool results leave as u32 0/1."""
    arg_types, rt = SIGNATURES[op]
    b = GraphBuilder(f"op_{op}")
    args = [b.input(n, t) for n, t in zip("abc", arg_types)]
    y = b.op(op, rt, *args)
    if rt is Type.BOOL:
        y = b.op("booltoint", Type.U32, y)
    b.output("y", y)
    return b.done()
