"""The heat9 and stencil7_3d cores in the emulator equal plain numpy models, 1 to 4 steps."""
from pathlib import Path

import numpy as np
import pytest
import spgen
from stencil_reference import heat9, stencil7_3d

CORES = Path(__file__).resolve().parents[2] / "cores"


def _apply(design, u, attr, regs, steps):
    """``steps`` repeated applications, output v fed back as input u (a software cascade)."""
    x = np.empty(u.size, dtype=design.input_dtype())
    x["u"], x["attr"] = u.ravel(), attr.ravel()
    for _ in range(steps):
        y = design.emulate(x, regs=regs)
        assert np.array_equal(y["attr_o"], x["attr"])
        x["u"] = y["v"]
    return x["u"].reshape(u.shape)


@pytest.mark.parametrize("steps", [1, 2, 3, 4])
def test_heat9_equals_numpy(steps):
    h, w = 13, 17
    rng = np.random.default_rng(steps)
    u = rng.standard_normal((h, w)).astype(np.float32)
    attr = np.ones((h, w), np.uint32)
    attr[1:-1, 1:-1] = 0
    attr[6, 8] = 5                          # a fixed interior cell
    d = spgen.compile(CORES / "heat9" / "heat9.spd", params={"W": w})
    got = _apply(d, u, attr, {"r": 0.15}, steps)
    ref = u
    for _ in range(steps):
        ref = heat9(ref, attr, 0.15)
    assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))
    assert not np.array_equal(got, u)


@pytest.mark.parametrize("steps", [1, 2, 3, 4])
def test_stencil7_3d_equals_numpy(steps):
    nz, ny, nx = 6, 7, 9
    rng = np.random.default_rng(10 + steps)
    u = rng.standard_normal((nz, ny, nx)).astype(np.float32)
    attr = np.ones((nz, ny, nx), np.uint32)
    attr[1:-1, 1:-1, 1:-1] = 0
    attr[3, 3, 4] = 2
    d = spgen.compile(CORES / "stencil7_3d" / "stencil7_3d.spd", params={"NX": nx, "NY": ny})
    regs = {"c0": 0.3, "c1": 0.11}
    got = _apply(d, u, attr, regs, steps)
    ref = u
    for _ in range(steps):
        ref = stencil7_3d(ref, attr, 0.3, 0.11)
    assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))
    assert not np.array_equal(got, u)
