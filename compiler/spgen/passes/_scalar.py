"""Bit-exact scalar semantics of the computing ops, used to fold constants (SPD.md rules)."""
from __future__ import annotations

import math

import numpy as np

from spgen.ir import Type

__all__ = ["fold_bits", "is_nan", "is_subnormal"]

_SIGN = 0x80000000
_MASK = 0xFFFFFFFF
_F_ARITH = {"fadd", "fsub", "fmul", "fdiv", "fsqrt"}
_F_CMP = {"flt": "<", "fle": "<=", "fgt": ">", "fge": ">=", "feq": "==", "fne": "!="}


def is_subnormal(bits: int) -> bool:
    return (bits & 0x7F800000) == 0 and (bits & 0x007FFFFF) != 0


def is_nan(bits: int) -> bool:
    return (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF) != 0


def _flush(bits: int) -> int:
    return bits & _SIGN if is_subnormal(bits) else bits


def _f(bits: int) -> np.float32:
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


def _bits(x: np.float32) -> int:
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def _signed(bits: int) -> int:
    return bits - (1 << 32) if bits & _SIGN else bits


def fold_bits(op: str, out: Type, args: list[tuple[Type, int]], ftz: bool) -> int | None:
    """Result bits of ``op`` on constant operands, or None when folding is not bit-safe.

    Float results that are NaN are never folded: the hardware's NaN payload is not
    specified, and a later ``bitcast`` would expose it.
    """
    bits = [b for _, b in args]
    if op in _F_ARITH or op in _F_CMP or op in ("fmin", "fmax", "fptosi", "fptoui"):
        if ftz:  # fmin/fmax then pass the flushed operand through, as spg_fmin.v does
            bits = [_flush(b) for b in bits]
        with np.errstate(all="ignore"):
            return _float(op, bits, ftz)
    return _other(op, out, args)


def _float(op: str, bits: list[int], ftz: bool) -> int | None:
    if op in _F_ARITH:
        a = _f(bits[0])
        if op == "fsqrt":
            r = np.sqrt(a)
        else:
            b = _f(bits[1])
            r = {"fadd": a + b, "fsub": a - b, "fmul": a * b, "fdiv": a / b}[op]
        rb = _bits(np.float32(r))
        if is_nan(rb):
            return None
        return _flush(rb) if ftz else rb
    if op in _F_CMP:
        a, b = float(_f(bits[0])), float(_f(bits[1]))
        return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b,
                    "==": a == b, "!=": a != b}[_F_CMP[op]])
    if op in ("fmin", "fmax"):
        a, b = float(_f(bits[0])), float(_f(bits[1]))
        take_a = a < b if op == "fmin" else a > b
        return bits[0] if take_a else bits[1]
    x = float(_f(bits[0]))
    if math.isnan(x):
        return 0
    t = math.trunc(x) if math.isfinite(x) else (1 << 40 if x > 0 else -(1 << 40))
    if op == "fptosi":
        return max(-(1 << 31), min((1 << 31) - 1, t)) & _MASK
    return max(0, min(_MASK, t))


def _other(op: str, out: Type, args: list[tuple[Type, int]]) -> int | None:
    bits = [b for _, b in args]
    a = bits[0]
    b = bits[1] if len(bits) > 1 else 0
    sa, sb = _signed(a), _signed(b)
    width_mask = 1 if out is Type.BOOL else _MASK
    if op == "fneg":
        return a ^ _SIGN
    if op == "fabs":
        return a & ~_SIGN & _MASK
    if op in ("add", "sub", "mul"):
        return {"add": a + b, "sub": a - b, "mul": a * b}[op] & _MASK
    if op == "neg":
        return -a & _MASK
    if op in ("sdiv", "srem"):
        if sb == 0:
            return 0
        q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
        return (q if op == "sdiv" else sa - q * sb) & _MASK
    if op in ("udiv", "urem"):
        if b == 0:
            return 0
        return a // b if op == "udiv" else a % b
    if op == "shl":
        return 0 if b >= 32 else (a << b) & _MASK
    if op == "lshr":
        return 0 if b >= 32 else a >> b
    if op == "ashr":
        return (sa >> min(b, 31)) & _MASK
    if op in ("smin", "smax"):
        return a if (sa < sb) == (op == "smin") else b
    if op in ("umin", "umax"):
        return a if (a < b) == (op == "umin") else b
    if op == "iabs":
        return -sa & _MASK if sa < 0 else a
    cmp = {"ieq": a == b, "ine": a != b, "slt": sa < sb, "sle": sa <= sb, "sgt": sa > sb,
           "sge": sa >= sb, "ult": a < b, "ule": a <= b, "ugt": a > b, "uge": a >= b}
    if op in cmp:
        return int(cmp[op])
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "xor":
        return a ^ b
    if op == "not":
        return ~a & width_mask
    if op == "select":
        return bits[1] if a else bits[2]
    if op == "sitofp":
        return _bits(np.float32(sa))
    if op == "uitofp":
        return _bits(np.float32(a))
    if op in ("bitcast", "booltoint"):
        return a
    return None
