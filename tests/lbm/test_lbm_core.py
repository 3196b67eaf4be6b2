"""The SPD LBM core in the emulator: bit-exact with the numpy reference, and physics."""
import numpy as np
import pytest
from lbm_reference import W as W32
from lbm_reference import run
from spgen import SpgenError
from spgen.lbm import (
    MOVING_WALL,
    WALL,
    cavity,
    closed_box,
    compile_core,
    initial_f,
    macroscopic,
    run_emulator,
)


def _all_kinds_grid(w=14, h=11):
    """A cavity with an obstacle, a moving-wall block, a reserved cell and extra attr bits."""
    attr = cavity(w, h)
    attr[5, 6] = WALL
    attr[1:3, 9] = MOVING_WALL
    attr[7, 3] = 3                       # reserved: treated as wall
    attr[4, 4] |= 0xABC00                # extra bits of a fluid cell pass through
    attr[0, 0] |= 0x100
    return attr


@pytest.fixture(scope="module")
def core14():
    return compile_core(14)


def test_core_equals_reference_bit_for_bit_over_100_steps(core14):
    attr = _all_kinds_grid()
    assert set(np.unique(attr & 3)) == {0, 1, 2, 3}
    rng = np.random.default_rng(1)
    f0 = (initial_f(attr) * (1 + 0.05 * rng.standard_normal((9,) + attr.shape))).astype(np.float32)
    omega, uw = 1.6, (0.08, 0.03)
    ref = run(f0, attr, omega, uw, steps=100)
    got = run_emulator(core14, f0, attr, steps=100, omega=omega, uw=uw)
    assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))
    assert np.abs(got - f0).max() > 1e-2           # the state really evolved


def test_core_passes_attr_and_non_fluid_cells_through(core14):
    from spgen.lbm import as_core_input, to_records

    attr = _all_kinds_grid()
    f0 = np.random.default_rng(3).random((9,) + attr.shape).astype(np.float32)
    out = core14.emulate(as_core_input(core14, to_records(f0, attr)),
                         regs={"omega": 1.2, "uw_x": 0.1, "uw_y": -0.05})
    assert np.array_equal(out["attr_o"], attr.ravel())
    solid = (attr.ravel() & 3) != 0
    for i in range(9):
        assert np.array_equal(out[f"f{i}_o"][solid], f0[i].ravel()[solid])
        assert not np.array_equal(out[f"f{i}_o"][~solid], f0[i].ravel()[~solid])


def test_closed_box_conserves_mass_to_float32_rounding():
    w, h, omega, steps = 32, 24, 1.9, 1000
    attr = closed_box(w, h)
    attr[8:12, 10:14] = WALL
    rng = np.random.default_rng(2)
    f0 = (initial_f(attr) * (1 + 0.1 * rng.random((9, h, w)))).astype(np.float32)
    fluid = (attr & 3) == 0
    f = run_emulator(compile_core(w), f0, attr, steps=steps, omega=omega)
    m0, m1 = (x[:, fluid].astype(np.float64).sum() for x in (f0, f))
    # Per step the collision scales each cell's mass by 1 + omega (sum w_i - 1) with the
    # float32 weights (sum - 1 = 7.45e-9), plus rounding of order 2^-24: nothing else.
    delta = abs(sum(float(x) for x in W32) - 1)
    bound = steps * (omega * delta + 2.0 ** -24)
    drift = abs(m1 - m0) / m0
    assert drift < bound, (drift, bound)
    assert np.abs(f - f0).max() > 1e-3


def test_lid_driven_channel_reaches_couette_poiseuille_profile():
    """A long closed channel under a moving lid: far from the ends the flow is Couette
    plus the pressure-driven backflow that makes the net flux zero,
    u(eta) = U eta (3 eta - 2), eta = (y - 1/2) / h (walls half-way between cells)."""
    w, h, U, omega = 162, 18, 0.05, 1.0
    attr = closed_box(w, h)
    attr[-1, 1:-1] = MOVING_WALL
    f = run_emulator(compile_core(w), initial_f(attr), attr, steps=4000, omega=omega, uw=(U, 0))
    _, ux, uy = macroscopic(f, attr)
    y = np.arange(1, h - 1)
    eta = (y - 0.5) / (h - 2)
    exact = U * eta * (3 * eta - 2)
    prof = ux[1:-1, w // 2]
    err = np.abs(prof - exact).max() / U
    assert err < 5e-3, err                        # measured 1.9e-3
    assert np.abs(uy[1:-1, w // 2]).max() < 5e-3 * U


def test_bad_grid_is_a_clear_error(core14):
    attr = closed_box(14, 11)
    attr[0, 5] = 0
    with pytest.raises(SpgenError, match="outermost layer"):
        run_emulator(core14, initial_f(attr), attr, steps=1)
    with pytest.raises(SpgenError, match="shape"):
        run_emulator(core14, initial_f(closed_box(10, 11)), closed_box(14, 11), steps=1)
    with pytest.raises(SpgenError, match="W=10"):
        run_emulator(core14, initial_f(closed_box(10, 11)), closed_box(10, 11), steps=1)


def test_readme_flop_count_is_the_compiled_graphs(core14):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "cores" / "lbm" / "README.md").read_text()
    f = core14.graph.flops()
    assert (f["total"], f["add"], f["mul"], f["div"]) == (113, 70, 42, 1)
    assert (f"**{f['total']}**: {f['add']} add/sub, {f['mul']} mul, {f['div']} div") in readme
