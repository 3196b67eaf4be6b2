"""Operand vectors and expected results for the operator-library tests (SoftFloat and numpy)."""
from __future__ import annotations

import numpy as np
import pytest
import softfloatpy as sf
from spgen.oplib._harness import BOOL_RESULT

__all__ = [
    "ANY_NAN_OPS",
    "FLOAT_SPECIALS",
    "INT_SPECIALS",
    "check",
    "expected",
    "flush",
    "int_expected",
    "is_nan",
    "numpy_expected",
    "random_pairs",
    "rounding_pairs",
    "softfloat_expected",
    "special_pairs",
    "vectors",
]

U32 = np.uint32
# The special classes of the issue: ±0, ±subnormal min/max, ±normal min/max, ±1, ±inf, qNaN, sNaN.
FLOAT_SPECIALS = [s | m for m in (0, 0x80000000) for s in (
    0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x3F800000, 0x7F800000,
    0x7FC00000, 0x7F800001)]
# Integer edge values: shift amounts around 32, divide by 0 and -1, INT_MIN/INT_MAX.
INT_SPECIALS = [0, 1, 2, 3, 7, 31, 32, 33, 255, 0x7FFFFFFF, 0x80000000, 0x80000001,
                0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFE0, 0x12345678]


def special_pairs(floats: list[int] = FLOAT_SPECIALS) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair of float special values (`floats`), then of integer edge values."""
    fs, ints = np.array(floats, U32), np.array(INT_SPECIALS, U32)
    a = np.concatenate([np.repeat(fs, len(fs)), np.repeat(ints, len(ints))])
    b = np.concatenate([np.tile(fs, len(fs)), np.tile(ints, len(ints))])
    return a, b


def _bits(sign, exp, frac) -> np.ndarray:
    return ((np.asarray(sign, np.uint64) << 31) | (np.asarray(exp, np.uint64) << 23)
            | np.asarray(frac, np.uint64)).astype(U32)


def rounding_pairs(rng: np.random.Generator, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """Targeted cases: ties, carries into the exponent, overflow to inf, underflow to
    subnormal and to zero, subnormal results rounding up to the smallest normal."""
    a, b = [], []

    def add(x, y):
        a.append(np.asarray(x, U32).ravel())
        b.append(np.asarray(y, U32).ravel())

    e = rng.integers(30, 220, n)
    fr = rng.integers(0, 1 << 23, n)
    s = rng.integers(0, 2, n)
    # add/sub ties: b is exactly half an ulp of a (and just above / below)
    for k in (24, 25):
        add(_bits(0, e, fr), _bits(s, e - k, 0))
        add(_bits(0, e, fr), _bits(s, e - k, 1))
        add(_bits(0, e, fr), _bits(s, e - k, (1 << 23) - 1))
    add(_bits(0, e, (1 << 23) - 1), _bits(0, e - 24, 0))         # all-ones + half ulp: carry
    add(_bits(0, e, (1 << 23) - 1), _bits(0, e - 24, fr))
    add(_bits(0, e, 0), _bits(1, e - 25, fr))                      # borrow out of the exponent
    add(_bits(0, e, fr), _bits(1, e, fr ^ rng.integers(0, 8, n)))  # massive cancellation
    # mul: 1.frac x (1 + 2^-23 k) hits ties and carries; all-ones mantissas carry out
    add(_bits(0, e, (1 << 23) - 1), _bits(s, 127, rng.integers(0, 4, n)))
    add(_bits(0, e, fr), _bits(s, 127, 1 << rng.integers(0, 23, n)))
    add(_bits(0, 127, 0x400000 + rng.integers(0, 4, n)), _bits(0, 127, 0x400000 + rng.integers(0, 4, n)))
    # overflow: max normal plus half an ulp (tie to inf), products and quotients past max
    add(np.full(n, 0x7F7FFFFF), _bits(s, 103, rng.integers(0, 3, n)))
    add(_bits(0, rng.integers(190, 255, n), fr), _bits(s, rng.integers(190, 255, n), fr[::-1]))
    add(_bits(0, 254, fr), _bits(s, rng.integers(100, 127, n), fr[::-1]))
    # underflow: products and quotients landing on subnormals, ties to zero / min subnormal
    ea = rng.integers(1, 127, n)
    add(_bits(0, ea, fr), _bits(s, np.clip(127 - ea - rng.integers(-5, 30, n), 1, 254), fr[::-1]))
    add(_bits(0, 52, rng.integers(0, 3, n) << 22), _bits(s, 52, rng.integers(0, 3, n) << 22))
    add(_bits(0, ea, fr), _bits(s, np.clip(ea + 127 - rng.integers(-5, 30, n), 1, 254), fr[::-1]))
    add(_bits(0, 1, fr), _bits(s, 127, (1 << 23) - rng.integers(1, 4, n)))  # near min normal
    add(np.full(n, 0x007FFFFF), _bits(s, 127, rng.integers(0, 4, n)))      # rounds to min normal
    add(_bits(s, 0, fr), _bits(1 - s, 0, fr[::-1]))                         # subnormal +- subnormal
    # conversions: integers near 2^24 (rounding), 2^31, 2^32 (saturation)
    big = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(U32) >> rng.integers(0, 9, n).astype(U32)
    add(big, big)
    add(_bits(s, rng.integers(155, 161, n), fr), fr)
    add(_bits(s, rng.integers(120, 130, n), fr), fr)
    return np.concatenate(a), np.concatenate(b)


def random_pairs(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A mixture of distributions so that every operator sees its interesting regions."""
    def r32(k):
        return rng.integers(0, 1 << 32, k, dtype=np.uint64).astype(U32)

    k = n // 8
    parts = []
    parts.append((r32(n - 7 * k), r32(n - 7 * k)))                      # uniform bit patterns
    e = rng.integers(1, 255, k)                                         # close exponents
    parts.append((_bits(rng.integers(0, 2, k), e, r32(k) >> 9),
                  _bits(rng.integers(0, 2, k), np.clip(e + rng.integers(-2, 3, k), 0, 254), r32(k) >> 9)))
    d = rng.integers(20, 30, k)                                         # alignment / sticky region
    parts.append((_bits(rng.integers(0, 2, k), e, r32(k) >> 9),
                  _bits(rng.integers(0, 2, k), np.clip(e - d, 0, 254), r32(k) >> 9)))
    ea = rng.integers(0, 128, k)                                        # mul/div near underflow
    parts.append((_bits(rng.integers(0, 2, k), ea, r32(k) >> 9),
                  _bits(rng.integers(0, 2, k), np.clip(np.where(rng.integers(0, 2, k) == 1, 127 - ea, ea + 127)
                                                       + rng.integers(-30, 10, k), 0, 254), r32(k) >> 9)))
    parts.append((_bits(rng.integers(0, 2, k), 0, r32(k) >> 9), r32(k)))   # subnormal operands
    sparse = (r32(k) >> 9) & (r32(k) >> 9) & (r32(k) >> 9)              # few-bit / all-ones mantissas
    parts.append((_bits(rng.integers(0, 2, k), rng.integers(0, 255, k), sparse),
                  _bits(rng.integers(0, 2, k), rng.integers(0, 255, k), ((1 << 23) - 1) ^ sparse[::-1])))
    small = r32(k) >> rng.integers(0, 32, k).astype(U32)                # integer magnitudes, shifts
    parts.append((np.where(rng.integers(0, 2, k) == 1, small, -small.astype(np.int64)).astype(np.int64).astype(U32),
                  rng.integers(0, 40, k).astype(U32) | (r32(k) & np.where(rng.integers(0, 4, k) == 0, 0xFFFFFFC0, 0)).astype(U32)))
    parts.append((r32(k) >> rng.integers(0, 32, k).astype(U32),         # divisions of all sizes
                  r32(k) >> rng.integers(0, 32, k).astype(U32)))
    a = np.concatenate([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    return a, b


def is_nan(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, U32)
    return ((x & 0x7F800000) == 0x7F800000) & ((x & 0x007FFFFF) != 0)


def flush(x: np.ndarray) -> np.ndarray:
    """FTZ: subnormals become zero of the same sign."""
    x = np.asarray(x, U32)
    return np.where((x & 0x7F800000) == 0, x & U32(0x80000000), x).astype(U32)


def _f(v: int):
    return sf.Float32.from_bytes(int(v).to_bytes(4, "big"))


def _fb(x) -> int:
    return int.from_bytes(x.to_bytes(), "big")


_SF_BIN = {"fadd": sf.f32_add, "fsub": sf.f32_sub, "fmul": sf.f32_mul, "fdiv": sf.f32_div}
_MINMAG = sf.RoundingMode.MIN_MAG


def _sf_one(op: str, x: int, y: int) -> int:
    if op in _SF_BIN:
        return _fb(_SF_BIN[op](_f(x), _f(y)))
    if op == "fsqrt":
        return _fb(sf.f32_sqrt(_f(x)))
    if op in ("flt", "fgt", "fle", "fge", "feq", "fne"):
        if op in ("fgt", "fge"):
            x, y = y, x
        r = {"flt": sf.f32_lt_quiet, "fgt": sf.f32_lt_quiet, "fle": sf.f32_le_quiet,
             "fge": sf.f32_le_quiet, "feq": sf.f32_eq, "fne": sf.f32_eq}[op](_f(x), _f(y))
        return int(bool(r) ^ (op == "fne"))
    if op in ("fmin", "fmax"):
        lt = sf.f32_lt_quiet(_f(x), _f(y)) if op == "fmin" else sf.f32_lt_quiet(_f(y), _f(x))
        return x if lt else y
    if op == "sitofp":
        return _fb(sf.i32_to_f32(sf.Int32.from_int(x - (1 << 32) if x >> 31 else x)))
    if op == "uitofp":
        return _fb(sf.ui32_to_f32(sf.UInt32.from_int(x)))
    if op in ("fptosi", "fptoui"):
        f = _f(x)
        if sf.f32_is_nan(f):
            return 0
        v = sf.f32_to_f64(f).to_float()
        if op == "fptosi":
            if v >= 2.0 ** 31:
                return 0x7FFFFFFF
            if v < -(2.0 ** 31):
                return 0x80000000
            return sf.f32_to_i32(f, _MINMAG, False).to_int() & 0xFFFFFFFF
        if v >= 2.0 ** 32:
            return 0xFFFFFFFF
        if v < 0:
            return 0
        return sf.f32_to_ui32(f, _MINMAG, False).to_int()
    raise KeyError(op)


SOFTFLOAT_OPS = frozenset(_SF_BIN) | {"fsqrt", "flt", "fgt", "fle", "fge", "feq", "fne",
                                      "fmin", "fmax", "sitofp", "uitofp", "fptosi", "fptoui"}
_FLOAT_IN = SOFTFLOAT_OPS - {"sitofp", "uitofp"}
_FLOAT_OUT = frozenset(_SF_BIN) | {"fsqrt", "fmin", "fmax", "sitofp", "uitofp"}


def softfloat_expected(op: str, ftz: int, a: np.ndarray, b: np.ndarray,
                       base: np.ndarray | None = None) -> np.ndarray:
    """Expected bits from SoftFloat; FTZ flushes float inputs and float results.

    `base`, the FTZ = 0 result for the same operands, lets FTZ = 1 call SoftFloat only
    where flushing changes an operand (the rest is the flushed base result).
    """
    a = np.asarray(a, U32)
    b = np.asarray(b, U32)
    rows = np.arange(len(a))
    if ftz and op in _FLOAT_IN:
        fa, fb = flush(a), flush(b)
        if base is not None:
            rows = np.flatnonzero((fa != a) | (fb != b))
        a, b = fa, fb
    vals = np.fromiter((_sf_one(op, x, y) for x, y in zip(a[rows].tolist(), b[rows].tolist())),
                       dtype=np.uint64, count=len(rows)).astype(U32)
    if base is not None and ftz and op in _FLOAT_IN:
        out = np.asarray(base, U32).copy()
        if op in ("fmin", "fmax"):  # they return an operand: the flushed one under FTZ
            out = flush(out)
        out[rows] = vals
    else:
        out = vals
    if ftz and op in _FLOAT_OUT and op not in ("fmin", "fmax"):
        out = flush(out)
    return out


def numpy_expected(op: str, ftz: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The same expectations from numpy float32 (hardware SSE arithmetic), for the cross-check."""
    a = np.asarray(a, U32)
    b = np.asarray(b, U32)
    if ftz and op in _FLOAT_IN:
        a, b = flush(a), flush(b)
    fa, fb = a.view(np.float32), b.view(np.float32)
    with np.errstate(all="ignore"):
        if op in ("fadd", "fsub", "fmul", "fdiv", "fsqrt"):
            r = {"fadd": lambda: fa + fb, "fsub": lambda: fa - fb, "fmul": lambda: fa * fb,
                 "fdiv": lambda: fa / fb, "fsqrt": lambda: np.sqrt(fa)}[op]().view(U32)
        elif op in ("flt", "fgt", "fle", "fge", "feq", "fne"):
            r = {"flt": fa < fb, "fgt": fa > fb, "fle": fa <= fb, "fge": fa >= fb,
                 "feq": fa == fb, "fne": fa != fb}[op].astype(U32)
        elif op == "fmin":
            r = np.where(fa < fb, a, b)
        elif op == "fmax":
            r = np.where(fa > fb, a, b)
        elif op == "sitofp":
            r = a.view(np.int32).astype(np.float32).view(U32)
        elif op == "uitofp":
            r = a.astype(np.float32).view(U32)
        elif op in ("fptosi", "fptoui"):
            t = np.trunc(fa.astype(np.float64))
            lo, hi = (-(2.0 ** 31), 2.0 ** 31 - 1) if op == "fptosi" else (0.0, 2.0 ** 32 - 1)
            t = np.where(np.isnan(t), 0.0, np.clip(t, lo, hi))
            r = t.astype(np.int64).astype(U32)
        else:
            raise KeyError(op)
    if ftz and op in _FLOAT_OUT and op not in ("fmin", "fmax"):
        r = flush(r)
    return r.astype(U32)


def int_expected(op: str, width: int, a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Integer, logic, select and bit-level float ops (exact, plain numpy)."""
    a = np.asarray(a, U32)
    b = np.asarray(b, U32)
    if width == 1:
        a, b = a & 1, b & 1
    sa, sb = a.view(np.int32).astype(np.int64), b.view(np.int32).astype(np.int64)
    ua, ub = a.astype(np.int64), b.astype(np.int64)
    with np.errstate(all="ignore"):
        if op in ("sdiv", "srem"):
            bz = sb == 0
            d = np.where(bz, 1, sb)
            q = np.sign(sa) * np.sign(d) * (np.abs(sa) // np.abs(d))
            r = np.where(bz, 0, q if op == "sdiv" else sa - q * d)
        elif op in ("udiv", "urem"):
            d = np.where(ub == 0, 1, ub)
            r = np.where(ub == 0, 0, ua // d if op == "udiv" else ua % d)
        else:
            sh = np.minimum(ub, 63)
            table = {
                "add": lambda: ua + ub, "sub": lambda: ua - ub, "mul": lambda: (ua * ub) & 0xFFFFFFFF,
                "neg": lambda: -ua, "iabs": lambda: np.abs(sa),
                "shl": lambda: np.where(ub >= 32, 0, (ua << np.minimum(sh, 31)) & 0xFFFFFFFF),
                "lshr": lambda: np.where(ub >= 32, 0, ua >> np.minimum(sh, 31)),
                "ashr": lambda: sa >> np.minimum(sh, 31),
                "smin": lambda: np.minimum(sa, sb), "smax": lambda: np.maximum(sa, sb),
                "umin": lambda: np.minimum(ua, ub), "umax": lambda: np.maximum(ua, ub),
                "ieq": lambda: ua == ub, "ine": lambda: ua != ub,
                "slt": lambda: sa < sb, "sle": lambda: sa <= sb, "sgt": lambda: sa > sb, "sge": lambda: sa >= sb,
                "ult": lambda: ua < ub, "ule": lambda: ua <= ub, "ugt": lambda: ua > ub, "uge": lambda: ua >= ub,
                "and": lambda: ua & ub, "or": lambda: ua | ub, "xor": lambda: ua ^ ub,
                "not": lambda: ~ua & (1 if width == 1 else 0xFFFFFFFF),
                "select": lambda: np.where((np.asarray(s, U32) & 1) == 1, ua, ub),
                "bitcast": lambda: ua, "booltoint": lambda: ua & 1,
                "fneg": lambda: ua ^ 0x80000000, "fabs": lambda: ua & 0x7FFFFFFF,
            }
            r = np.asarray(table[op]())
    return (np.asarray(r).astype(np.int64) & 0xFFFFFFFF).astype(U32)


def vectors(n_random: int, seed: int, floats: list[int] = FLOAT_SPECIALS):
    """Operands a, b, s: the special pairs (of `floats`), the rounding cases, `n_random`
    random pairs."""
    rng = np.random.default_rng(seed)
    parts = [special_pairs(floats), rounding_pairs(rng), random_pairs(rng, n_random)]
    a = np.concatenate([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    s = rng.integers(0, 2, len(a)).astype(np.uint32)
    return a, b, s


# Float results that may be any quiet NaN when the IEEE result is NaN (fmin/fmax select an
# operand, so their expected bits are exact).
ANY_NAN_OPS = frozenset({"fadd", "fsub", "fmul", "fdiv", "fsqrt"})
_BASE: dict[tuple[str, int, int], np.ndarray] = {}  # FTZ = 0 SoftFloat results, reused for FTZ = 1


def expected(v, a, b, s):
    """SoftFloat for float ops (after checking numpy float32 agrees), numpy for the rest."""
    if v.op in SOFTFLOAT_OPS:
        base = _BASE.get((v.op, id(a), len(a))) if v.ftz else None
        ref = softfloat_expected(v.op, v.ftz, a, b, base)
        if not v.ftz:
            _BASE[(v.op, id(a), len(a))] = ref
        cross = numpy_expected(v.op, v.ftz, a, b)
        agree = (ref == cross) | (is_nan(ref) & is_nan(cross)) if v.op not in BOOL_RESULT else ref == cross
        assert agree.all(), f"{v.op}: SoftFloat and numpy float32 disagree at {np.flatnonzero(~agree)[:5]}"
        return ref
    return int_expected(v.op, v.width, a, b, s)


def check(v, a, b, s, got, exp: np.ndarray | None = None) -> int:
    """Fail with the first wrong vectors unless `got` (variant `v`'s results) equals `exp`
    (by default `expected(v, ...)`); returns the number of vectors checked."""
    exp = expected(v, a, b, s) if exp is None else exp
    ok = got == exp
    if v.op in ANY_NAN_OPS:
        quiet_nan = is_nan(got) & ((got & 0x00400000) != 0)
        ok |= is_nan(exp) & quiet_nan
    bad = np.flatnonzero(~ok)
    if len(bad):
        rows = [f"a={a[i]:08x} b={b[i]:08x} s={s[i]} got={got[i]:08x} want={exp[i]:08x}"
                for i in bad[:8]]
        pytest.fail(f"{v.name}: {len(bad)} of {len(a)} vectors wrong:\n" + "\n".join(rows))
    return len(a)
