"""The numpy reference of LBM.md agrees with lbmpy (SRT D2Q9, compressible, NoSlip, UBB)."""
import sys
from pathlib import Path

import numpy as np
import pytest
from lbm_reference import E, run
from spgen.lbm import MOVING_WALL, WALL, cavity, initial_f

# lbmpy and pystencils announce what their next release removes as FutureWarning: fail here
# first rather than on the next upgrade (setup.py bounds both to the release verified).
pytestmark = pytest.mark.filterwarnings("error::FutureWarning")
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _lbmpy_run(attr, f0, omega, uw, steps):
    from lbmpy import LatticeBoltzmannStep, LBMConfig, LBStencil, Method, Stencil
    from lbmpy.boundaries import UBB, NoSlip
    from pystencils import CreateKernelConfig

    h, w = attr.shape
    cfg = LBMConfig(stencil=LBStencil(Stencil.D2Q9), method=Method.SRT, relaxation_rate=omega,
                    compressible=True, zero_centered=False, delta_equilibrium=False)
    lb = LatticeBoltzmannStep(domain_size=(w - 2, h - 2), lbm_config=cfg, periodicity=False,
                              config=CreateKernelConfig(default_dtype="float32"))
    kind = attr & 3

    def mask(value):
        # lbmpy passes cell midpoints, ghost layer at -0.5: our index = midpoint + 0.5.
        return lambda x, y: kind[(y + 0.5).astype(int), (x + 0.5).astype(int)] == value

    bh = lb.boundary_handling
    bh.set_boundary(NoSlip(), mask_callback=mask(WALL))
    bh.set_boundary(UBB(tuple(float(v) for v in uw), data_type="float32"),
                    mask_callback=mask(MOVING_WALL))
    pdf = lb.data_handling.cpu_arrays[lb._pdf_arr_name]          # [x, y, q], ghost layers included
    order = [E.index(tuple(int(c) for c in d)) for d in lb.method.stencil]
    for q, i in enumerate(order):
        pdf[:, :, q] = f0[i].T
    for _ in range(steps):
        lb.time_step()
    pdf = lb.data_handling.cpu_arrays[lb._pdf_arr_name]
    out = np.empty_like(f0)
    for q, i in enumerate(order):
        out[i] = pdf[:, :, q].T
    return out


def test_reference_matches_lbmpy_cavity_100_steps():
    w, h = 14, 11
    attr = cavity(w, h)
    attr[5, 6] = WALL                      # an obstacle cell inside, next to fluid on all sides
    attr[1:3, 9] = MOVING_WALL             # and a moving-wall block touching the floor
    rng = np.random.default_rng(1)
    f0 = (initial_f(attr) * (1 + 0.05 * rng.standard_normal((9, h, w)))).astype(np.float32)
    omega, uw = 1.6, (0.08, 0.03)
    ours = run(f0, attr, omega, uw, steps=100)
    theirs = _lbmpy_run(attr, f0, omega, uw, steps=100)
    fluid = (attr & 3) == 0
    diff = np.abs(ours[:, fluid] - theirs[:, fluid])
    # float32 rounding only: distributions are ~0.03..0.5, eps = 6e-8.
    assert diff.max() < 1e-6, diff.max()
    # and the flow really moved (the comparison is not between two resting states)
    assert np.abs(ours[:, fluid] - f0[:, fluid]).max() > 1e-2


def test_benchmark_lbmpy_step_on_openmp_threads():
    """benchmarks/emulate_bench.py's lbmpy kernel: OpenMP through pystencils' option categories,
    the two-thread kernel's grid after 5 steps equal to the one-thread kernel's bit for bit."""
    sys.path.insert(0, str(BENCHMARKS))
    import emulate_bench

    attr = cavity(34, 34)
    one, two = (emulate_bench._lbmpy_step(34, attr, threads) for threads in (1, 2))
    assert "omp parallel num_threads(2)" in two._lbmKernels[-1].code
    assert "omp parallel" not in one._lbmKernels[-1].code
    # Only the cavity's inner cells: lbmpy never writes the wall ring of its second
    # (streaming target) buffer, so those cells hold whatever memory was there.
    inner = (slice(1, -1), slice(1, -1))
    start = one.data_handling.cpu_arrays[one._pdf_arr_name][inner].copy()
    grids = []
    for lb in (one, two):
        lb.run(5)
        grids.append(lb.data_handling.cpu_arrays[lb._pdf_arr_name][inner])
    assert np.isfinite(grids[0]).all()
    assert np.array_equal(grids[0].view(np.uint32), grids[1].view(np.uint32))
    assert np.abs(grids[0] - start).max() > 1e-3      # the lid moved the fluid
