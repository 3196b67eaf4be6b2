"""Every operator through a single-operation program: emulate == references, bit for bit."""
from __future__ import annotations

import functools
import zlib

import numpy as np
import pytest
import softfloatpy as sf
from llvm_graphs import (
    F32_SPECIAL,
    I32_SPECIAL,
    SIGNATURES,
    GraphBuilder,
    pairs,
    random_bits,
    single_op,
)
from reference import evaluate, flush_subnormals, mismatches
from spgen.backend.llvm import emulate
from spgen.ir import Type

OPS = sorted(SIGNATURES)


def _vectors(op: str, rng: np.random.Generator, n_random: int) -> dict[str, np.ndarray]:
    arg_types = SIGNATURES[op][0]
    special = [F32_SPECIAL if t is Type.F32 else I32_SPECIAL for t in arg_types]
    if len(arg_types) == 1:
        cols = [special[0]]
    else:
        cols = list(pairs(np.union1d(special[0], special[1]) if arg_types[0] is arg_types[1]
                          else special[0]))
    extra = [random_bits(rng, n_random, str(t)) for t in arg_types]
    return {name: np.concatenate([c, x]) for name, c, x in zip("abc", cols, extra)}


def _run(op: str, ins: dict[str, np.ndarray], ftz: bool) -> tuple[np.ndarray, np.ndarray]:
    g = single_op(op)
    n = len(next(iter(ins.values())))
    got = emulate(g, n, ins, {}, ftz=ftz)["y"]
    want = evaluate(g, n, ins, ftz=ftz)["y"]
    return got, want


_N_RANDOM = 3000
_N = max(len(next(iter(_vectors(op, np.random.default_rng(0), 0).values()))) for op in OPS) \
    + _N_RANDOM


def _op_vectors(op: str) -> dict[str, np.ndarray]:
    """Special-value pairs then random operands, _N in all (the same in every process)."""
    rng = np.random.default_rng(zlib.crc32(op.encode()))
    ins = _vectors(op, rng, _N_RANDOM)
    pad = _N - len(ins["a"])
    return {k: np.concatenate([v, random_bits(rng, pad, str(t))])
            for (k, v), t in zip(ins.items(), SIGNATURES[op][0])}


@functools.cache
def _all_ops(ftz: bool) -> dict[str, np.ndarray]:
    """Every op side by side in one program: one JIT compile instead of one per op."""
    b = GraphBuilder("all_ops")
    ins = {}
    for op in OPS:
        arg_types, rt = SIGNATURES[op]
        vec = _op_vectors(op)
        args = []
        for name, t in zip("abc", arg_types):
            args.append(b.input(f"{op}_{name}", t))
            ins[f"{op}_{name}"] = vec[name]
        y = b.op(op, rt, *args)
        if rt is Type.BOOL:
            y = b.op("booltoint", Type.U32, y)
        b.output(f"{op}_y", y)
    return emulate(b.done(), _N, ins, {}, ftz=ftz)


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("op", OPS)
def test_op_matches_reference_evaluator(op, ftz):
    ins = _op_vectors(op)
    got = _all_ops(ftz)[f"{op}_y"]
    g = single_op(op)
    want = evaluate(g, _N, ins, ftz=ftz)["y"]
    bad = mismatches(got, want, str(g.outputs[0].port.type))
    assert bad.size == 0, (f"{op}: {bad.size} mismatches, first: "
                           + ", ".join(f"{k}={ins[k][bad[0]]:#010x}" for k in ins)
                           + f" got {got[bad[0]]:#010x} want {want[bad[0]]:#010x}")


def test_single_op_program_alone():
    # the same op compiled on its own (the graph shape the other suites use)
    ins = _op_vectors("fdiv")
    got, want = _run("fdiv", ins, ftz=True)
    assert mismatches(got, want, "f32").size == 0
    assert np.array_equal(got, _all_ops(True)["fdiv_y"])


# Independent references for the float arithmetic: SoftFloat (IEEE, RNE, tininess after
# rounding like x86) and numpy float32 computed on this CPU.
_SF = {"fadd": sf.f32_add, "fsub": sf.f32_sub, "fmul": sf.f32_mul, "fdiv": sf.f32_div}
_NP = {"fadd": np.add, "fsub": np.subtract, "fmul": np.multiply, "fdiv": np.divide}


def _sf(bits) -> sf.Float32:
    return sf.Float32.from_bytes(int(bits).to_bytes(4, "big"))


def _bits(x: sf.Float32) -> int:
    return int.from_bytes(x.to_bytes(), "big")


def _is_nan(x: np.ndarray) -> np.ndarray:
    return ((x & 0x7F800000) == 0x7F800000) & ((x & 0x007FFFFF) != 0)


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    return bool(np.all((got == want) | (_is_nan(got) & _is_nan(want))))


@pytest.mark.parametrize("op", sorted(_SF))
def test_float_arithmetic_matches_softfloat_and_numpy(op):
    rng = np.random.default_rng(7)
    a, b = pairs(F32_SPECIAL)
    a = np.concatenate([a, random_bits(rng, 500, "f32")])
    b = np.concatenate([b, random_bits(rng, 500, "f32")])
    got, _ = _run(op, {"a": a, "b": b}, ftz=False)
    soft = np.array([_bits(_SF[op](_sf(x), _sf(y))) for x, y in zip(a, b)], dtype=np.uint32)
    with np.errstate(all="ignore"):
        num = _NP[op](a.view(np.float32), b.view(np.float32)).view(np.uint32)
    assert _same(got, soft)
    assert _same(got, num)
    # ftz: the same with operands and results flushed
    got_ftz, _ = _run(op, {"a": a, "b": b}, ftz=True)
    with np.errstate(all="ignore"):
        num_ftz = flush_subnormals(_NP[op](flush_subnormals(a).view(np.float32),
                                           flush_subnormals(b).view(np.float32)).view(np.uint32))
    assert _same(got_ftz, num_ftz)


def test_sqrt_matches_softfloat():
    rng = np.random.default_rng(3)
    a = np.concatenate([F32_SPECIAL, random_bits(rng, 2000, "f32")])
    got, _ = _run("fsqrt", {"a": a}, ftz=False)
    soft = np.array([_bits(sf.f32_sqrt(_sf(x))) for x in a], dtype=np.uint32)
    assert _same(got, soft)


def test_no_fma_contraction():
    # a*b + c rounds twice; a fused multiply-add would round once and differ here
    from llvm_graphs import GraphBuilder

    b = GraphBuilder("mac")
    x, y, z = b.input("a"), b.input("b"), b.input("c")
    b.output("y", b.op("fadd", Type.F32, b.op("fmul", Type.F32, x, y), z))
    g = b.done()
    a = np.float32(1 + 2**-12)
    ins = {"a": np.full(64, a).view(np.uint32), "b": np.full(64, a).view(np.uint32),
           "c": np.full(64, -(1 + 2**-11), dtype=np.float32).view(np.uint32)}
    got = emulate(g, 64, ins, {})["y"].view(np.float32)
    two_roundings = np.float32(np.float32(a * a) - np.float32(1 + 2**-11))
    fused = np.float32(np.float64(a) * np.float64(a) - np.float64(np.float32(1 + 2**-11)))
    assert two_roundings != fused
    assert np.all(got == two_roundings)


def test_integer_edge_cases_by_hand():
    i32 = lambda v: np.array(v, dtype=np.int64).astype(np.int32).view(np.uint32)
    cases = {
        "sdiv": ([7, -7, 5, -2**31, -2**31], [2, 2, 0, -1, 1], [3, -3, 0, -2**31, -2**31]),
        "srem": ([7, -7, 5, -2**31], [2, 2, 0, -1], [1, -1, 0, 0]),
        "ashr": ([-8, -8, 8, -1], [1, 32, 40, 100], [-4, -1, 0, -1]),
        "iabs": ([-5, -2**31, 3], None, [5, -2**31, 3]),
    }
    for op, (a, b, want) in cases.items():
        ins = {"a": i32(a)} if b is None else {"a": i32(a), "b": i32(b)}
        got, _ = _run(op, ins, ftz=False)
        assert np.array_equal(got, i32(want)), op
    u = lambda v: np.array(v, dtype=np.uint32)
    got, _ = _run("shl", {"a": u([1, 1, 1, 3]), "b": u([31, 32, 0xFFFFFFFF, 1])}, ftz=False)
    assert np.array_equal(got, u([0x80000000, 0, 0, 6]))
    got, _ = _run("udiv", {"a": u([0xFFFFFFFF, 9]), "b": u([0, 2])}, ftz=False)
    assert np.array_equal(got, u([0, 4]))
    f = lambda v: np.array(v, dtype=np.float32).view(np.uint32)
    got, _ = _run("fptosi", {"a": f([1e10, -1e10, np.nan, -2.9, 2.9, -0.0])}, ftz=False)
    assert np.array_equal(got.view(np.int32), [2**31 - 1, -2**31, 0, -2, 2, 0])
    got, _ = _run("fptoui", {"a": f([1e10, -5.0, np.nan, 4294967040.0])}, ftz=False)
    assert np.array_equal(got, u([0xFFFFFFFF, 0, 0, 4294967040]))
    got, _ = _run("fmin", {"a": f([np.nan, 1.0, -0.0]), "b": f([2.0, np.nan, 0.0])}, ftz=False)
    assert got[0] == f([2.0])[0] and _is_nan(got[1:2]).all() and got[2] == f([0.0])[0]
