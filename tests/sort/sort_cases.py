"""Inputs and the result check shared by the sort's tests."""
from __future__ import annotations

import numpy as np
from spgen import sort


def _inputs(kind: str, n: int, dtype, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    top = np.iinfo(dtype).max
    if kind == "random":
        return rng.integers(0, top, n, dtype=dtype, endpoint=True)
    if kind == "zipf":  # heavy skew: most keys small, a long tail
        return np.minimum(rng.zipf(1.3, n), min(top, 2**62)).astype(dtype)
    if kind == "equal":
        return np.full(n, 0xDEADBEEF, dtype)
    if kind == "sorted":
        return np.sort(rng.integers(0, top, n, dtype=dtype, endpoint=True))
    if kind == "reverse":
        return np.sort(rng.integers(0, top, n, dtype=dtype, endpoint=True))[::-1].copy()
    if kind == "few":  # many duplicates of a few values spread over the whole range
        return rng.choice(np.array([0, 5, top // 3, top // 2, top], dtype=dtype), n)
    raise ValueError(kind)


KINDS = ["random", "zipf", "equal", "sorted", "reverse", "few"]


def _check(cl, keys: np.ndarray, with_payloads: bool = True, **kw) -> sort.SortRun:
    payloads = np.random.default_rng(7).integers(0, 2**32, keys.size, dtype=np.uint32) if with_payloads else None
    run = sort.sort(cl, keys, payloads, **kw)
    order = np.argsort(keys, kind="stable")
    assert run.keys.dtype == keys.dtype
    assert np.array_equal(run.keys, np.sort(keys))
    if with_payloads:
        assert np.array_equal(run.payloads, payloads[order])  # stably: equal keys keep input order
    assert sum(run.output.counts) == keys.size
    return run
