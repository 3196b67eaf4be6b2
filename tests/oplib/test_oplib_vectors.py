"""Every operator module, Verilated, against SoftFloat (cross-checked with numpy float32)."""
from __future__ import annotations

import numpy as np
import pytest
from oplib_reference import check, vectors
from spgen.oplib import LATENCY
from spgen.oplib._harness import build, variants

pytestmark = pytest.mark.xdist_group("oplib")

VARIANTS = variants()


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
