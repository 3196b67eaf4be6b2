"""Pooled output and ring memory: results stay intact while held, memory is reused."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import spgen
from spgen import _streams
from spgen.backend.llvm import emulate

ROOT = Path(__file__).parent.parent.parent


def _jacobi(width: int):
    d = spgen.compile(ROOT / "cores/jacobi5/jacobi5.spd", params={"W": width})
    n = width * width
    rng = np.random.default_rng(3)
    attr = np.zeros((width, width), np.uint32)
    attr[0, :] = attr[-1, :] = attr[:, 0] = attr[:, -1] = 1
    ins = {"u": rng.random(n, dtype=np.float32).view(np.uint32), "attr": attr.ravel()}
    return d.graph, n, ins, _streams.parse_regs(d.graph, None)


def test_held_results_are_not_overwritten():
    g, n, ins, regs = _jacobi(64)
    a = emulate(g, n, ins, regs, steps=3)
    keep = {k: v.copy() for k, v in a.items()}
    other = dict(ins, u=np.ones(n, np.float32).view(np.uint32))
    for steps in (1, 2, 5):
        b = emulate(g, n, other, regs, steps=steps, group=2)
        assert not np.array_equal(b["v"], keep["v"])
    for k in a:
        assert np.array_equal(a[k], keep[k]), k
    # a view of one output keeps the whole block alive too
    v = emulate(g, n, ins, regs)["v"][10:20]
    want = v.copy()
    emulate(g, n, other, regs)
    assert np.array_equal(v, want)


def test_dropped_results_are_reused_and_aligned():
    g, n, ins, regs = _jacobi(96)
    first = emulate(g, n, ins, regs)
    addr = first["v"].ctypes.data
    ref = {k: v.copy() for k, v in first.items()}
    del first
    again = emulate(g, n, ins, regs)
    assert again["v"].ctypes.data == addr  # the same memory, no fresh pages
    for k, v in again.items():
        assert v.ctypes.data % 64 == 0
        assert v.flags.c_contiguous and v.shape == (n,)
        assert np.array_equal(v, ref[k]), k
