"""Verilator simulation == emulation, bit for bit, for every core in cores/ on small grids.

All cores go into one simulator build (the LBM core is large: one build, cached).
Cascades of 1..4 are repeated applications, each output stream fed back as input.
"""
from pathlib import Path

import numpy as np
import pytest
import spgen
from sim_check import bits, cascade_check, perturbed_input
from spgen.lbm import MOVING_WALL, WALL, as_records, cavity, compile_core, to_records

pytestmark = pytest.mark.xdist_group("lbm_sim")
CORES = Path(__file__).resolve().parents[2] / "cores"


def _grid_design(path, **params):
    return spgen.compile(CORES / path, params=params)


@pytest.fixture(scope="module")
def designs():
    ds = {
        "lbm": compile_core(8),
        "heat9": _grid_design("heat9/heat9.spd", W=9),
        "stencil7_3d": _grid_design("stencil7_3d/stencil7_3d.spd", NX=5, NY=4),
        "jacobi5": _grid_design("jacobi5/jacobi5.spd", W=7),
    }
    from spgen.backend.verilog._sim import build

    build([d.verilog for d in ds.values()])      # later simulate() calls find this build
    return ds


def test_lbm_sim_equals_emulation_all_cell_kinds(designs):
    d = designs["lbm"]
    attr = cavity(8, 7)
    attr[3, 3] = WALL
    attr[1, 5] = MOVING_WALL
    attr[4, 5] = 3 | 0x40
    attr[2, 2] |= 0x1F00
    assert set(np.unique(attr & 3)) == {0, 1, 2, 3}
    f0, x = perturbed_input(d, attr, seed=5)
    end = cascade_check(d, x, {"omega": 1.7, "uw_x": 0.1, "uw_y": -0.04})
    assert not np.array_equal(as_records(end)["f1"], to_records(f0, attr)["f1"])


def test_lbm_sim_equals_emulation_under_back_pressure(designs):
    d = designs["lbm"]
    attr = cavity(8, 7)
    attr[3, 4] = WALL
    _, x = perturbed_input(d, attr, seed=6, normal=False)
    regs = {"omega": 1.2, "uw_x": 0.05}
    em = d.emulate(x, regs=regs)
    sim = d.simulate(x, regs=regs, stall_seed=11)
    assert np.array_equal(bits(em), bits(sim))
    assert d.last_sim["stall_cycles"] > 0


@pytest.mark.parametrize("name", ["heat9", "jacobi5"])
def test_2d_stencil_sim_equals_emulation(designs, name):
    d = designs[name]
    w = d.graph.params["W"]
    h = 6
    rng = np.random.default_rng(7)
    x = np.empty(w * h, dtype=d.input_dtype())
    x["u"] = rng.standard_normal(w * h).astype(np.float32)
    attr = np.ones((h, w), np.uint32)
    attr[1:-1, 1:-1] = 0
    x["attr"] = attr.ravel()
    regs = {"r": 0.2} if name == "heat9" else {"w": 0.25}
    cascade_check(d, x, regs)
    cascade_check(d, x, regs, stall_seed=3)


def test_stencil7_3d_sim_equals_emulation(designs):
    d = designs["stencil7_3d"]
    nz, ny, nx = 5, 4, 5
    rng = np.random.default_rng(8)
    x = np.empty(nx * ny * nz, dtype=d.input_dtype())
    x["u"] = rng.standard_normal(x.size).astype(np.float32)
    attr = np.ones((nz, ny, nx), np.uint32)
    attr[1:-1, 1:-1, 1:-1] = 0
    x["attr"] = attr.ravel()
    cascade_check(d, x, {"c0": 0.35, "c1": 0.1}, stall_seed=4)
