"""Compile-time values: exact f32 rounding of literals and evaluation of constant expressions."""
from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from . import _ast as A

__all__ = [
    "INT_LIMIT",
    "ConstError",
    "ConstEval",
    "bits_to_float",
    "f32_bits",
    "parse_value",
    "postorder",
    "real_literal",
]

# Untyped integer constants are exact; anything beyond this cannot fit in 32 bits
# anyway and is rejected early so `1 << 10**9` never builds a huge number.
INT_LIMIT = 1 << 64


class ConstError(Exception):
    def __init__(self, message: str, loc: A.Loc | None):
        super().__init__(message)
        self.message = message
        self.loc = loc


def f32_bits(q: Fraction | int) -> int:
    """Round an exact rational to binary32, nearest-even, subnormals included (inf on overflow)."""
    q = Fraction(q)
    sign = 0
    if q < 0:
        sign, q = 1, -q
    if q == 0:
        return sign << 31
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):  # q < 2**e
        e -= 1
    e = max(e, -126)
    shift = e - 23  # weight of one unit in the last place
    num, den = (n, d << shift) if shift >= 0 else (n << -shift, d)
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    if m >= 1 << 24:
        m >>= 1
        e += 1
    if m < 1 << 23:  # subnormal (exponent field 0)
        return (sign << 31) | m
    biased = e + 127
    if biased > 254:
        return (sign << 31) | 0x7F800000
    return (sign << 31) | (biased << 23) | (m - (1 << 23))


def bits_to_float(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def float_to_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


_REAL = re.compile(r"^(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")


_REAL_CACHE: dict[str, int] = {}


def real_literal(text: str) -> int:
    """Bits of a decimal real literal rounded to f32; raises ValueError when it is out of range."""
    bits = _REAL_CACHE.get(text)
    if bits is None:
        bits = _REAL_CACHE[text] = _real_literal(text)
    return bits


def _real_literal(text: str) -> int:
    if len(text) <= 40:
        # Fast path: decimal -> double -> f32 is correctly rounded unless the double
        # lands exactly on an f32 rounding midpoint (or outside the normal range).
        d = float(text)
        if 1.2e-38 < d < 3.4e38:
            dbits = struct.unpack("<Q", struct.pack("<d", d))[0]
            if dbits & 0x1FFFFFFF != 0x10000000:
                return struct.unpack("<I", struct.pack("<f", d))[0]
        elif d == 0.0:
            return 0
    m = _REAL.match(text)
    if not m or len(text) > 1000:
        raise ValueError("real literal is too long")
    whole, frac, exp = m.group(1) or "", m.group(2) or "", m.group(3)
    digits = (whole + frac).lstrip("0")
    if not digits:
        return 0
    e10 = (int(exp) if exp and len(exp) < 12 else (0 if not exp else (10**12 if exp[0] != "-" else -10**12)))
    e10 -= len(frac)
    # Outside +-500 decades the value is far beyond f32 whatever the digits say.
    magnitude = e10 + len(digits)
    if magnitude > 500:
        raise ValueError("out of range for f32")
    if magnitude < -500:
        return 0
    q = Fraction(int(digits)) * (Fraction(10) ** e10)
    bits = f32_bits(q)
    if bits & 0x7FFFFFFF == 0x7F800000:
        raise ValueError("out of range for f32")
    return bits


def postorder(root, kids: Callable, apply: Callable):
    """Evaluate an expression tree bottom-up without recursion (deep trees are legal input)."""
    stack = [(root, False)]
    vals: list = []
    while stack:
        node, expanded = stack.pop()
        ks = kids(node)
        if ks and not expanded:
            stack.append((node, True))
            stack.extend((k, False) for k in reversed(ks))
            continue
        n = len(ks)
        args = vals[len(vals) - n:] if n else []
        if n:
            del vals[len(vals) - n:]
        vals.append(apply(node, args))
    return vals[0]


_F32_ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


def _f32(x) -> float:
    with np.errstate(all="ignore"):
        return float(np.float32(x))


def _to_f32(v, loc) -> float:
    if isinstance(v, bool):
        raise ConstError("a bool cannot be used as a number", loc)
    if isinstance(v, int):
        return bits_to_float(f32_bits(v))
    return v


def _check_int(v: int, loc) -> int:
    if not -INT_LIMIT < v < INT_LIMIT:
        raise ConstError("integer constant is too large", loc)
    return v


def _trunc_div(a: int, b: int, loc, op: str) -> int:
    if b == 0:
        raise ConstError(f"division by zero in constant expression ('{op}')", loc)
    q = abs(a) // abs(b)
    q = q if (a >= 0) == (b >= 0) else -q
    return q if op == "/" else a - q * b


def _cmp(op: str, a, b) -> bool:
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]


class ConstEval:
    """Evaluates constant expressions (Param values, shift offsets, fills, HDL parameters).

    Values are Python ``int`` (exact), ``float`` (always an f32 value) or ``bool``.
    ``lookup(name, loc)`` resolves a name or raises :class:`ConstError`.
    """

    def __init__(self, lookup: Callable[[str, A.Loc], object]):
        self.lookup = lookup

    def eval(self, e: A.Expr):
        return postorder(e, A.children, self._apply)

    def _apply(self, e, args):
        t = type(e)
        if t is A.IntLit:
            if e.value is None:
                raise ConstError("integer literal is too large", e.loc)
            return e.value
        if t is A.RealLit:
            try:
                return bits_to_float(real_literal(e.text))
            except ValueError as ex:
                raise ConstError(f"real literal {e.text} is {ex}", e.loc) from None
        if t is A.NameRef:
            return self.lookup(e.name, e.loc)
        if t is A.Unary:
            return self._unary(e, args[0])
        if t is A.Binary:
            return self._binary(e, *args)
        if t is A.Cond:
            c, a, b = args
            if not isinstance(c, bool):
                raise ConstError("the condition of '?:' must be bool", e.loc)
            return a if c else b
        if t is A.Call:
            return self._call(e, args)
        raise ConstError("not a constant expression", getattr(e, "loc", None))

    def _unary(self, e, v):
        if e.op == "!":
            if not isinstance(v, bool):
                raise ConstError("operand of '!' must be bool", e.loc)
            return not v
        if isinstance(v, bool):
            raise ConstError(f"operand of '{e.op}' cannot be bool", e.loc)
        if e.op == "-":
            return -v if isinstance(v, int) else _f32(-v)
        if isinstance(v, float):
            raise ConstError("operand of '~' must be an integer", e.loc)
        return ~v

    def _binary(self, e, a, b):
        op = e.op
        if op in ("&&", "||"):
            if not (isinstance(a, bool) and isinstance(b, bool)):
                raise ConstError(f"operands of '{op}' must be bool", e.loc)
            return (a and b) if op == "&&" else (a or b)
        if isinstance(a, bool) or isinstance(b, bool):
            if op in ("==", "!=") and isinstance(a, bool) and isinstance(b, bool):
                return _cmp(op, a, b)
            if op in ("&", "|", "^") and isinstance(a, bool) and isinstance(b, bool):
                return bool({"&": a & b, "|": a | b, "^": a ^ b}[op])
            raise ConstError(f"operands of '{op}' cannot be bool", e.loc)
        if isinstance(a, int) and isinstance(b, int):
            if op in ("<", "<=", ">", ">=", "==", "!="):
                return _cmp(op, a, b)
            if op in ("/", "%"):
                return _trunc_div(a, b, e.loc, op)
            if op in ("<<", ">>"):
                if b < 0:
                    raise ConstError("negative shift amount in constant expression", e.loc)
                if op == ">>":
                    return a >> min(b, 128)
                if b > 64:
                    raise ConstError("integer constant is too large", e.loc)
            r = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b,
                 "<<": a << b if op == "<<" else 0}[op]
            return _check_int(r, e.loc)
        fa, fb = _to_f32(a, e.loc), _to_f32(b, e.loc)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            return _cmp(op, fa, fb)
        with np.errstate(all="ignore"):
            if op in _F32_ARITH:  # rounded to f32 as the hardware does
                return float(_F32_ARITH[op](np.float32(fa), np.float32(fb)))
        raise ConstError(f"operator '{op}' is not defined on f32", e.loc)

    def _call(self, e, args):
        name, n = e.name, len(args)
        arity = {"sqrt": 1, "abs": 1, "min": 2, "max": 2, "sel": 3, "f32": 1, "i32": 1,
                 "u32": 1, "bits": 1, "fbits": 1}
        if name not in arity:
            raise ConstError(f"'{name}()' is not allowed in a constant expression", e.loc)
        if n != arity[name]:
            raise ConstError(f"{name}() takes {arity[name]} argument(s), got {n}", e.loc)
        a = args[0]
        if name == "sel":
            if not isinstance(a, bool):
                raise ConstError("the condition of sel() must be bool", e.loc)
            return args[1] if a else args[2]
        if any(isinstance(x, bool) for x in args):
            raise ConstError(f"{name}() cannot take a bool", e.loc)
        if name in ("min", "max"):
            b = args[1]
            if isinstance(a, float) or isinstance(b, float):
                a, b = _to_f32(a, e.loc), _to_f32(b, e.loc)
            if name == "min":
                return min(b, a)
            return max(b, a)
        if name == "abs":
            return abs(a) if isinstance(a, int) else _f32(abs(a))
        if name == "sqrt":
            with np.errstate(all="ignore"):
                return float(np.sqrt(np.float32(_to_f32(a, e.loc))))
        if name == "f32":
            return _to_f32(a, e.loc)
        if name in ("i32", "u32"):
            if isinstance(a, int):
                return a
            if math.isnan(a):
                return 0
            lo, hi = (-(1 << 31), (1 << 31) - 1) if name == "i32" else (0, (1 << 32) - 1)
            return int(max(lo, min(hi, int(a) if abs(a) < 1e30 else (hi if a > 0 else lo))))
        if name == "bits":
            if not isinstance(a, float):
                raise ConstError("bits() needs an f32 argument", e.loc)
            return float_to_bits(a)
        if not isinstance(a, int):
            raise ConstError("fbits() needs an integer argument", e.loc)
        return bits_to_float(a & 0xFFFFFFFF)


def parse_value(text: str) -> int | float:
    """A `-P NAME=VALUE` value: an integer (decimal or 0x hex, optional sign) or a real."""
    s = text.strip()
    neg = s.startswith("-")
    body = s[1:] if s[:1] in "+-" else s
    if re.fullmatch(r"\d+|0[xX][0-9a-fA-F]+", body) and len(body) <= 40:
        v = int(body, 16) if body[:2] in ("0x", "0X") else int(body)
        return -v if neg else v
    if body and _REAL.match(body) and re.search(r"\d", body):
        f = bits_to_float(real_literal(body))
        return -f if neg else f
    raise ValueError(f"not a number: {text!r}")
