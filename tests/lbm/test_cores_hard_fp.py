"""With --hard-fp (f32 add, sub and mul in FP DSP blocks), every core in cores/ simulated
in Verilator equals the emulator in --ftz mode bit for bit, cascaded and under
back-pressure; the schedule uses the DSP block's latency.

All cores share one simulator build (cached by content).
"""
from pathlib import Path

import numpy as np
import pytest
import spgen
from sim_check import bits, cascade_check, perturbed_input
from spgen.lbm import WALL, as_core_input, cavity, compile_core, to_records

pytestmark = pytest.mark.xdist_group("lbm_sim_hfp")
CORES = Path(__file__).resolve().parents[2] / "cores"


def _renamed(design):
    design.graph.name += "_hfp"     # one simulator build holds soft and hard variants
    return design


@pytest.fixture(scope="module")
def designs():
    ds = {
        "lbm": _renamed(compile_core(8, hard_fp=True)),
        "heat9": _renamed(spgen.compile(CORES / "heat9/heat9.spd", params={"W": 9},
                                        hard_fp=True)),
        "stencil7_3d": _renamed(spgen.compile(CORES / "stencil7_3d/stencil7_3d.spd",
                                              params={"NX": 5, "NY": 4}, hard_fp=True)),
        "jacobi5": _renamed(spgen.compile(CORES / "jacobi5/jacobi5.spd", params={"W": 7},
                                          hard_fp=True)),
        "exprmix": _renamed(spgen.compile(CORES / "exprmix/exprmix.spd", hard_fp=True)),
    }
    from spgen.backend.verilog._sim import build

    build([d.verilog for d in ds.values()])
    return ds


def test_hard_fp_implies_ftz_and_counts_dsp_blocks(designs):
    d = designs["lbm"]
    assert d.ftz and d.hard_fp
    r = d.report
    ops = r["operations"]
    assert r["hard_fp"] and r["dsp_blocks"] == ops["fadd"] + ops["fsub"] + ops["fmul"]
    soft = compile_core(8, ftz=True).report
    # 3-cycle DSP blocks instead of 6-cycle soft operators: a shorter pipeline
    assert r["latency_cycles"] < soft["latency_cycles"]
    assert "twentynm_fp_mac" not in d.verilog.text          # the simulation model only
    assert all("twentynm_fp_mac" in q for _, q in d.verilog.dsp_sources().values())


def test_lbm_hard_fp_equals_emulation(designs):
    d = designs["lbm"]
    attr = cavity(8, 7)
    attr[3, 3] = WALL
    f0, _ = perturbed_input(d, attr, seed=15)
    f0[2, 2, 2] = np.float32(1e-39)         # a subnormal: flushed by the DSP blocks
    x = as_core_input(d, to_records(f0, attr))
    cascade_check(d, x, {"omega": 1.7, "uw_x": 0.1, "uw_y": -0.04}, nan_equal=True)
    cascade_check(d, x, {"omega": 1.3, "uw_x": 0.05}, stall_seed=21, nan_equal=True)


@pytest.mark.parametrize("name", ["heat9", "jacobi5", "stencil7_3d"])
def test_stencil_hard_fp_equals_emulation(designs, name):
    d = designs[name]
    rng = np.random.default_rng(17)
    cells = {"heat9": 9 * 8, "jacobi5": 7 * 8, "stencil7_3d": 5 * 4 * 5}[name]
    x = np.zeros(cells, dtype=d.input_dtype())
    x["u"] = (rng.standard_normal(x.size) * rng.choice([1e-38, 1.0, 1e30], x.size)).astype(
        np.float32)
    x["attr"] = (rng.random(x.size) < 0.2).astype(np.uint32)
    regs = {"heat9": {"r": 0.2}, "jacobi5": {"w": 0.25},
            "stencil7_3d": {"c0": 0.35, "c1": 0.1}}[name]
    cascade_check(d, x, regs, stall_seed=5, nan_equal=True)


def test_exprmix_hard_fp_equals_emulation(designs):
    d = designs["exprmix"]
    rng = np.random.default_rng(19)
    x = np.zeros(300, dtype=d.input_dtype())
    for name in x.dtype.names:
        if x.dtype[name] == np.float32:      # subnormal, ordinary and near-overflow values
            x[name] = (rng.standard_normal(x.size) * rng.choice([1e-39, 1.0, 1e37], x.size)
                       ).astype(np.float32)
        else:
            x[name] = rng.integers(0, 2**32, x.size, dtype=np.uint64).astype(x.dtype[name])
    em = d.emulate(x)
    sim = d.simulate(x, stall_seed=7)
    assert np.array_equal(bits(em, nan_equal=True), bits(sim, nan_equal=True))
