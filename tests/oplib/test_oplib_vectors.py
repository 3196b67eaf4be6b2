"""Every operator module, Verilated, against SoftFloat (cross-checked with numpy float32)."""
from __future__ import annotations

import numpy as np
import pytest
from oplib_reference import (
    SOFTFLOAT_OPS,
    int_expected,
    is_nan,
    numpy_expected,
    random_pairs,
    rounding_pairs,
    softfloat_expected,
    special_pairs,
)
from spgen.oplib import LATENCY
from spgen.oplib._harness import BOOL_RESULT, build, variants

pytestmark = pytest.mark.xdist_group("oplib")

VARIANTS = variants()
# Float results that may be any quiet NaN when the IEEE result is NaN (fmin/fmax select an
# operand, so their expected bits are exact).
ANY_NAN_OPS = frozenset({"fadd", "fsub", "fmul", "fdiv", "fsqrt"})


def vectors(n_random: int, seed: int):
    rng = np.random.default_rng(seed)
    parts = [special_pairs(), rounding_pairs(rng), random_pairs(rng, n_random)]
    a = np.concatenate([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    s = rng.integers(0, 2, len(a)).astype(np.uint32)
    return a, b, s


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


def check(v, a, b, s, got):
    exp = expected(v, a, b, s)
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


@pytest.fixture(scope="module")
def model():
    return build()


@pytest.fixture(scope="module")
def normal_run(model):
    a, b, s = vectors(10_000, seed=2026)
    plain, _ = model.run(a, b, s)
    stalled, stats = model.run(a, b, s, stall_permille=300, seed=11)
    return a, b, s, plain, stalled, stats


@pytest.mark.parametrize("v", VARIANTS, ids=[v.name for v in VARIANTS])
def test_operator_matches_reference(normal_run, v):
    a, b, s, plain, _, _ = normal_run
    assert len(a) > 10_000 + 324
    check(v, a, b, s, plain[v.name])


def test_random_ce_stalls_change_nothing(normal_run):
    a, _, _, plain, stalled, stats = normal_run
    assert stats["stall_cycles"] > len(a) // 5  # the stalls really happened
    diff = [name for name in plain if not np.array_equal(plain[name], stalled[name])]
    assert diff == []


def test_every_variant_is_in_the_model():
    ops = {v.op for v in VARIANTS}
    assert ops == set(LATENCY)
    assert sum(v.ftz == 1 for v in VARIANTS) == sum(v.ftz == 0 for v in VARIANTS) >= 19


@pytest.mark.slow
def test_operator_million_vectors(model):
    """Dedicated run: >= 1,000,000 random operand pairs through every operator variant."""
    a, b, s = vectors(1_000_000, seed=7_2026)
    plain, stats = model.run(a, b, s, stall_permille=100, seed=5)
    total = 0
    failures = []
    for v in VARIANTS:
        try:
            total += check(v, a, b, s, plain[v.name])
        except pytest.fail.Exception as e:  # report every failing variant, not only the first
            failures.append(str(e))
    assert not failures, "\n".join(failures)
    assert total >= 1_000_000 * len(VARIANTS)
    print(f"\n{len(a)} vectors x {len(VARIANTS)} variants, {stats['cycles']} cycles "
          f"({stats['stall_cycles']} stalled) in {stats['wall_s']:.2f} s of simulation")
