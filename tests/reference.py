"""Plain-numpy reference evaluator of IR graphs, independent of both back ends."""
from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from spgen.ir import Graph, Node, Type

__all__ = ["evaluate", "flush_subnormals", "mismatches", "nan_equal"]

_U32 = np.uint32
_SIGN = np.uint32(0x80000000)
_FLUSH_IN = {"fadd", "fsub", "fmul", "fdiv", "fsqrt", "fmin", "fmax", "flt", "fle", "fgt",
             "fge", "feq", "fne", "fptosi", "fptoui"}
_FLUSH_OUT = {"fadd", "fsub", "fmul", "fdiv", "fsqrt"}


def flush_subnormals(bits: np.ndarray) -> np.ndarray:
    """Subnormal f32 patterns replaced by a zero of the same sign (the ``--ftz`` rule)."""
    bits = np.asarray(bits, dtype=_U32)
    sub = ((bits & _U32(0x7F800000)) == 0) & ((bits & _U32(0x007FFFFF)) != 0)
    return np.where(sub, bits & _SIGN, bits).astype(_U32)


def _is_nan(bits: np.ndarray) -> np.ndarray:
    return ((bits & _U32(0x7F800000)) == _U32(0x7F800000)) & ((bits & _U32(0x007FFFFF)) != 0)


def _as_bits(x) -> np.ndarray:
    x = np.ascontiguousarray(x)
    return x.view(_U32) if x.dtype.itemsize == 4 and x.dtype.kind in "fi" else x.astype(_U32)


def mismatches(a_bits, b_bits, type) -> np.ndarray:
    """Indices where two bit-pattern arrays differ, every f32 NaN equal to every other."""
    a, b = _as_bits(a_bits), _as_bits(b_bits)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} vs {b.shape}")
    diff = a != b
    if str(type) == "f32":
        diff &= ~(_is_nan(a) & _is_nan(b))
    return np.nonzero(diff)[0]


def nan_equal(a_bits, b_bits, type) -> bool:
    """True when the arrays agree bit for bit, with all f32 NaNs equal (SPD.md "Semantics")."""
    return mismatches(a_bits, b_bits, type).size == 0


def _f(bits: np.ndarray) -> np.ndarray:
    return bits.view(np.float32)


def _b(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(_U32)


def _s(bits: np.ndarray) -> np.ndarray:
    return bits.view(np.int32).astype(np.int64)


def _w(x: np.ndarray) -> np.ndarray:
    """Wrap an int64 array to 32 bits."""
    return (np.asarray(x, dtype=np.int64) & 0xFFFFFFFF).astype(_U32)


def _bool(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=bool).astype(_U32)


def _shift(x: np.ndarray, d: int, fill: int) -> np.ndarray:
    n = x.size
    out = np.full(n, fill, dtype=_U32)
    if 0 <= d < n:
        out[d:] = x[:n - d]
    elif -n < d < 0:
        out[:n + d] = x[-d:]
    return out


def _trunc_sat(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    x64 = x.astype(np.float64)
    t = np.trunc(np.where(np.isnan(x64), 0.0, x64))
    return np.clip(t, lo, hi).astype(np.int64)


# the arithmetic both number kinds share (floats in float32, integers in int64)
_ARITH = {"fadd": np.add, "fsub": np.subtract, "fmul": np.multiply, "fdiv": np.divide,
          "add": np.add, "sub": np.subtract, "mul": np.multiply}


def _float_op(op: str, a: list[np.ndarray]) -> np.ndarray:
    x = _f(a[0])
    y = _f(a[1]) if len(a) > 1 else None
    if op in _ARITH:
        return _b(_ARITH[op](x, y))
    if op == "fsqrt":
        return _b(np.sqrt(x))
    if op == "fmin":
        return np.where(x < y, a[0], a[1])
    if op == "fmax":
        return np.where(x > y, a[0], a[1])
    cmp = {"flt": np.less, "fle": np.less_equal, "fgt": np.greater, "fge": np.greater_equal,
           "feq": np.equal, "fne": np.not_equal}
    if op in cmp:
        return _bool(cmp[op](x, y))
    if op == "fptosi":
        return _w(_trunc_sat(x, -2.0**31, 2.0**31 - 1))
    if op == "fptoui":
        return _w(_trunc_sat(x, 0.0, 2.0**32 - 1))
    raise KeyError(op)


def _int_op(op: str, t: Type, a: list[np.ndarray]) -> np.ndarray:
    x = a[0].astype(np.int64)
    y = a[1].astype(np.int64) if len(a) > 1 else None
    sx = _s(a[0])
    sy = _s(a[1]) if len(a) > 1 else None
    if op in _ARITH:  # mul: the low word (a uint64 product would overflow int64)
        return _w(_ARITH[op](x, y) & 0xFFFFFFFF)
    if op == "neg":
        return _w(-x)
    if op in ("sdiv", "srem"):
        safe = np.where(sy == 0, 1, sy)
        q = np.abs(sx) // np.abs(safe) * np.where((sx < 0) == (safe < 0), 1, -1)
        r = q if op == "sdiv" else sx - q * safe
        return _w(np.where(sy == 0, 0, r))
    if op in ("udiv", "urem"):
        safe = np.where(y == 0, 1, y)
        r = x // safe if op == "udiv" else x % safe
        return _w(np.where(y == 0, 0, r))
    if op == "shl":
        return _w(np.where(y >= 32, 0, (x << np.minimum(y, 31)) & 0xFFFFFFFF))
    if op == "lshr":
        return _w(np.where(y >= 32, 0, x >> np.minimum(y, 31)))
    if op == "ashr":
        return _w(sx >> np.minimum(y, 31))
    if op in ("smin", "smax"):
        return np.where((sx < sy) == (op == "smin"), a[0], a[1])
    if op in ("umin", "umax"):
        return np.where((x < y) == (op == "umin"), a[0], a[1])
    if op == "iabs":
        return _w(np.where(sx < 0, -sx, sx))
    cmp = {"ieq": x == y, "ine": x != y, "ult": x < y, "ule": x <= y, "ugt": x > y,
           "uge": x >= y}
    if op in cmp:
        return _bool(cmp[op])
    scmp = {"slt": np.less, "sle": np.less_equal, "sgt": np.greater, "sge": np.greater_equal}
    if op in scmp:
        return _bool(scmp[op](sx, sy))
    raise KeyError(op)


def _eval_node(n: Node, a: list[np.ndarray], ftz: bool) -> np.ndarray:
    op = n.op
    if ftz and op in _FLUSH_IN:
        a = [flush_subnormals(v) for v in a]
    with np.errstate(all="ignore"):
        if op in _FLUSH_IN:
            out = _float_op(op, a)
            return flush_subnormals(out) if ftz and op in _FLUSH_OUT else out
        if op == "fneg":
            return a[0] ^ _SIGN
        if op == "fabs":
            return a[0] & ~_SIGN
        if op in ("and", "or", "xor"):
            return {"and": np.bitwise_and, "or": np.bitwise_or,
                    "xor": np.bitwise_xor}[op](a[0], a[1])
        if op == "not":
            return a[0] ^ _U32(1 if n.type is Type.BOOL else 0xFFFFFFFF)
        if op == "select":
            return np.where(a[0] != 0, a[1], a[2]).astype(_U32)
        if op == "sitofp":
            return _b(a[0].view(np.int32).astype(np.float32))
        if op == "uitofp":
            return _b(a[0].astype(np.float32))
        if op in ("bitcast", "booltoint"):
            return a[0].copy()
        return _int_op(op, n.type, a)


def evaluate(graph: Graph, n: int, inputs: Mapping[str, np.ndarray],
             regs: Mapping[str, int] | None = None, ftz: bool = False, *,
             externs: Mapping[str, Callable[..., tuple]] | None = None,
             modules: Mapping[str, Graph] | None = None) -> dict[str, np.ndarray]:
    """Outputs of ``graph`` for streams of ``n`` elements, as uint32 bit patterns.

    Parameters
    ----------
    inputs : port name -> n 32-bit patterns (uint32, or float32/int32 viewed as bits).
    regs : register name -> 32-bit pattern; missing registers take their default.
    ftz : flush subnormal f32 operands of arithmetic, comparison, min/max and
        float-to-int ops, and subnormal results of ``fadd fsub fmul fdiv fsqrt``,
        to a zero of the same sign.
    externs : ``extern`` module name -> callable taking the operand arrays (uint32)
        and returning one uint32 array per output.
    modules : ``Program.modules`` for graphs that still hold ``inst`` nodes; an
        instance's registers are read as ``<label>_<name>``.
    """
    regs = dict(regs or {})
    vals: dict[Node, np.ndarray] = {}
    decls = {r.name: r for r in graph.regs}
    for node in graph.nodes:
        a = [vals[x] for x in node.args]
        op = node.op
        if op == "input":
            arr = _as_bits(inputs[node.attrs["port"]])
            if arr.shape != (n,):
                raise ValueError(f"input {node.attrs['port']}: shape {arr.shape}, want ({n},)")
            v = arr.copy()
        elif op == "reg":
            name = node.attrs.get("name", node.name)  # attr per contract, else node name
            bits = regs.get(name, decls[name].default if name in decls else node.attrs["default"])
            v = np.full(n, int(bits) & (1 if node.type is Type.BOOL else 0xFFFFFFFF), dtype=_U32)
        elif op == "const":
            v = np.full(n, node.attrs["bits"], dtype=_U32)
        elif op == "shift":
            v = _shift(a[0], node.attrs["offset"], node.attrs["fill"])
        elif op == "extern":
            fn = (externs or {}).get(node.attrs["module"])
            if fn is None:
                raise KeyError(f"no Python model for extern module {node.attrs['module']!r}")
            v = tuple(np.asarray(r, dtype=_U32) for r in fn(*a))
        elif op == "inst":
            callee = (modules or {})[node.attrs["module"]]
            label = node.attrs.get("label", node.attrs["module"])
            sub_in = {p.name: x for p, x in zip(callee.inputs, a)}
            sub_regs = {r.name: regs[f"{label}_{r.name}"] for r in callee.regs
                        if f"{label}_{r.name}" in regs}
            res = evaluate(callee, n, sub_in, sub_regs, ftz, externs=externs, modules=modules)
            v = tuple(res[o.port.name] for o in callee.outputs)
        elif op == "proj":
            v = a[0][node.attrs["index"]]
        else:
            v = _eval_node(node, a, ftz).astype(_U32)
        vals[node] = v
    return {o.port.name: vals[o.node].copy() for o in graph.outputs}
