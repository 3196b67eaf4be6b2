"""The reference evaluator's f32 ops against Berkeley SoftFloat (softfloatpy), with and without ftz."""
from __future__ import annotations

import math

import numpy as np
import pytest
import softfloatpy as sf
from reference import evaluate, flush_subnormals, nan_equal
from spgen.ir import Graph, Output, Port, Type

F, I, U, B = Type.F32, Type.I32, Type.U32, Type.BOOL
RNE = sf.RoundingMode.NEAR_EVEN

SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
           0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
           0x7F800001, 0x3F800000, 0xBF800000, 0x3F800001, 0x4B000000, 0x4F000000, 0xCF000000,
           0x4F800000, 0xCF000001, 0x00400000, 0x34000000, 0x3EFFFFFF, 0x3F000000]


def operands(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    # Operands of similar magnitude, tiny ones and results near the subnormal edge.
    k = n // 4
    b[:k] = a[:k] ^ rng.integers(0, 1 << 8, k, dtype=np.uint32)
    a[k:2 * k] &= np.uint32(0x80FFFFFF)
    b[k:2 * k] = (b[k:2 * k] & np.uint32(0x81FFFFFF)) | np.uint32(0x3F000000)
    s = np.array(SPECIAL, dtype=np.uint32)
    grid_a, grid_b = np.meshgrid(s, s)
    return np.concatenate([grid_a.ravel(), a]), np.concatenate([grid_b.ravel(), b])


def one_op(op: str, res: Type, *types: Type) -> Graph:
    g = Graph(op)
    args = []
    for k, t in enumerate(types):
        g.inputs.append(Port(f"a{k}", t, "main", k))
        args.append(g.add("input", t, stream="main", port=f"a{k}", index=k))
    node = g.add(op, res, tuple(args))
    if res is B:
        node = g.add("booltoint", U, (node,))
    g.outputs.append(Output(Port("y", node.type, "main", 0), node))
    g.verify()
    return g


def _sf(bits: int) -> sf.Float32:
    return sf.Float32.from_bytes(int(bits).to_bytes(4, "big"))


def _bits(x) -> int:
    return int.from_bytes(x.to_bytes(), "big")


def _flush(bits: int) -> int:
    return int(_flush_all(np.array([bits], dtype=np.uint32))[0])


def _flush_all(bits: np.ndarray) -> np.ndarray:
    """The ftz rule written out again here (subnormal -> zero of the same sign)."""
    exp_zero = (bits >> np.uint32(23)) & np.uint32(0xFF) == 0
    frac = bits & np.uint32(0x7FFFFF)
    return np.where(exp_zero & (frac != 0), bits & np.uint32(0x80000000), bits).astype(np.uint32)


SF_BIN = {"fadd": sf.f32_add, "fsub": sf.f32_sub, "fmul": sf.f32_mul, "fdiv": sf.f32_div}
SF_CMP = {"flt": lambda x, y: sf.f32_lt_quiet(x, y), "fle": lambda x, y: sf.f32_le_quiet(x, y),
          "fgt": lambda x, y: sf.f32_lt_quiet(y, x), "fge": lambda x, y: sf.f32_le_quiet(y, x),
          "feq": lambda x, y: sf.f32_eq(x, y), "fne": lambda x, y: not sf.f32_eq(x, y)}


@pytest.mark.parametrize("ftz", [False, True])
@pytest.mark.parametrize("op", sorted(SF_BIN) + ["fsqrt"])
def test_arithmetic_matches_softfloat(op, ftz):
    _check_arithmetic(op, ftz, 3000, sum(map(ord, op)))


@pytest.mark.slow
@pytest.mark.parametrize("ftz", [False, True])
@pytest.mark.parametrize("op", sorted(SF_BIN) + ["fsqrt"])
def test_arithmetic_matches_softfloat_long(op, ftz):
    for seed in range(5):
        _check_arithmetic(op, ftz, 200_000, 1000 + seed)


def _check_arithmetic(op: str, ftz: bool, n: int, seed: int) -> None:
    a, b = operands(n, seed=seed)
    sf.set_rounding_mode(RNE)
    if op == "fsqrt":
        got = evaluate(one_op(op, F, F), a.size, {"a0": a}, {}, ftz)["y"]
    else:
        got = evaluate(one_op(op, F, F, F), a.size, {"a0": a, "a1": b}, {}, ftz)["y"]
    xs, ys = (_flush_all(a), _flush_all(b)) if ftz else (a, b)
    if op == "fsqrt":
        want = [_bits(sf.f32_sqrt(_sf(x))) for x in xs.tolist()]
    else:
        fn = SF_BIN[op]
        want = [_bits(fn(_sf(x), _sf(y))) for x, y in zip(xs.tolist(), ys.tolist())]
    want = np.array(want, dtype=np.uint32)
    if ftz:
        want = _flush_all(want)
    assert nan_equal(got, want, F)
    # The sweep reaches the cases that matter, so agreement means something.
    if op in ("fmul", "fdiv") and not ftz:
        sub = ((want & 0x7F800000) == 0) & ((want & 0x7FFFFF) != 0)
        assert sub.sum() >= 10


@pytest.mark.parametrize("ftz", [False, True])
@pytest.mark.parametrize("op", sorted(SF_CMP))
def test_compare_matches_softfloat(op, ftz):
    a, b = operands(1500, seed=7)
    got = evaluate(one_op(op, B, F, F), a.size, {"a0": a, "a1": b}, {}, ftz)["y"]
    want = np.array([int(SF_CMP[op](_sf(_flush(x) if ftz else x), _sf(_flush(y) if ftz else y)))
                     for x, y in zip(a.tolist(), b.tolist())], dtype=np.uint32)
    assert np.array_equal(got, want)


def test_conversions_match_softfloat():
    a, _ = operands(3000, seed=3)
    got_i = evaluate(one_op("fptosi", I, F), a.size, {"a0": a}, {})["y"].view(np.int32)
    got_u = evaluate(one_op("fptoui", U, F), a.size, {"a0": a}, {})["y"]
    mm = sf.RoundingMode.MIN_MAG
    for k, bits in enumerate(a.tolist()):
        x = np.array([bits], dtype=np.uint32).view(np.float32)[0]
        if math.isnan(x):
            assert got_i[k] == 0 and got_u[k] == 0
        elif -2.0**31 <= x < 2.0**31:
            assert got_i[k] == sf.f32_to_i32(_sf(bits), mm, False).to_int()
        else:
            assert got_i[k] == (2**31 - 1 if x > 0 else -2**31)
        if not math.isnan(x):
            if -1.0 < x < 2.0**32:
                assert got_u[k] == sf.f32_to_ui32(_sf(bits), mm, False).to_int()
            else:
                assert got_u[k] == (2**32 - 1 if x > 0 else 0)
    ints = np.concatenate([a, np.array([0x7FFFFFFF, 0x80000000, 0x01000001, 0xFFFFFFFF],
                                       dtype=np.uint32)])
    got_s = evaluate(one_op("sitofp", F, I), ints.size, {"a0": ints}, {})["y"]
    got_uf = evaluate(one_op("uitofp", F, U), ints.size, {"a0": ints}, {})["y"]
    for k, bits in enumerate(ints.tolist()):
        signed = bits - (1 << 32) if bits >> 31 else bits
        assert got_s[k] == _bits(sf.i32_to_f32(sf.Int32.from_int(signed)))
        assert got_uf[k] == _bits(sf.ui32_to_f32(sf.UInt32.from_int(bits)))


def test_min_max_and_sign_ops_follow_spd():
    a, b = operands(2000, seed=11)
    fa, fb = a.view(np.float32), b.view(np.float32)
    with np.errstate(invalid="ignore"):
        lt, gt = fa < fb, fa > fb
    assert np.array_equal(evaluate(one_op("fmin", F, F, F), a.size, {"a0": a, "a1": b})["y"],
                          np.where(lt, a, b))
    assert np.array_equal(evaluate(one_op("fmax", F, F, F), a.size, {"a0": a, "a1": b})["y"],
                          np.where(gt, a, b))
    assert np.array_equal(evaluate(one_op("fneg", F, F), a.size, {"a0": a})["y"],
                          a ^ np.uint32(0x80000000))
    assert np.array_equal(evaluate(one_op("fabs", F, F), a.size, {"a0": a})["y"],
                          a & np.uint32(0x7FFFFFFF))
    # ftz: a subnormal operand of fmin is flushed, so fmin(+sub, +0) picks the flushed +0.
    sub = np.array([0x00000005, 0x80000005], dtype=np.uint32)
    zero = np.array([0x00000000, 0x00000000], dtype=np.uint32)
    got = evaluate(one_op("fmin", F, F, F), 2, {"a0": sub, "a1": zero}, {}, ftz=True)["y"]
    assert got.tolist() == [0x00000000, 0x00000000]
    # fneg is a bit operation: never flushed.
    got = evaluate(one_op("fneg", F, F), 2, {"a0": sub}, {}, ftz=True)["y"]
    assert got.tolist() == [0x80000005, 0x00000005]


def test_nan_equal():
    x = np.array([0x7FC00000, 0x3F800000, 0xFF800001], dtype=np.uint32)
    y = np.array([0xFFC00123, 0x3F800000, 0x7FC00000], dtype=np.uint32)
    assert nan_equal(x, y, F)
    assert not nan_equal(x, y, U)
    assert not nan_equal(x, y ^ np.array([0, 1, 0], dtype=np.uint32), "f32")
    assert not nan_equal(np.array([0x7F800000], np.uint32), np.array([0x7FC00000], np.uint32), F)
    assert nan_equal(np.float32([1.5, np.nan]), np.float32([1.5, -np.nan]), F)


def test_flush_subnormals_rule():
    a, b = operands(500, seed=2)
    bits = np.concatenate([a, b])
    assert np.array_equal(flush_subnormals(bits), _flush_all(bits))
    got = flush_subnormals(np.array([0x00000001, 0x807FFFFF, 0x00800000, 0x80000000],
                                    dtype=np.uint32))
    assert got.tolist() == [0x00000000, 0x80000000, 0x00800000, 0x80000000]
