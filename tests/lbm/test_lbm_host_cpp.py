"""runtime/include/afushell/lbm.hpp (via examples/lbm_host) matches spgen.lbm bit for bit."""
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from spgen import lbm

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples" / "lbm_host" / "lbm_host.cpp"

pytestmark = pytest.mark.xdist_group("lbm_host_cpp")


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    gxx = shutil.which("g++")
    assert gxx, "g++ is needed to build examples/lbm_host"
    out = tmp_path_factory.mktemp("lbm_host") / "lbm_host"
    r = subprocess.run([gxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror",
                        f"-I{ROOT / 'runtime' / 'include'}", str(SOURCE), "-o", str(out)],
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    return out


def _run(exe, *args, ok=True):
    r = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                       timeout=60, check=False)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


@pytest.mark.parametrize("kind,width,height,rho", [
    ("cavity", 12, 10, 1.0), ("closed_box", 7, 5, 1.0), ("channel", 40, 17, 1.0),
    ("channel", 33, 24, 1.0), ("cavity", 9, 9, 1.3),
])
def test_cpp_grid_equals_python(exe, tmp_path, kind, width, height, rho):
    path = tmp_path / "grid.npy"
    _run(exe, "grid", kind, width, height, path, rho)
    got = np.load(path)
    attr = getattr(lbm, kind)(width, height)
    want = lbm.to_records(lbm.initial_f(attr, rho), attr)
    assert got.dtype == lbm.RECORD_DTYPE and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_cpp_moments_of_stepped_cavity(exe, tmp_path):
    width, height = 12, 10
    attr = lbm.cavity(width, height)
    core = lbm.compile_core(width)
    f = lbm.run_emulator(core, lbm.initial_f(attr), attr, steps=25, omega=1.5, uw=(0.1, 0.0))
    src = tmp_path / "stepped.npy"
    np.save(src, lbm.to_records(f, attr))
    out = tmp_path / "moments.npy"
    r = _run(exe, "moments", src, width, out)
    got = np.load(out)
    rho, ux, uy = lbm.macroscopic(f, attr)
    assert got.shape == (3, height, width) and got.dtype == np.float64
    assert np.nanmax(np.abs(ux)) > 1e-3        # the lid has set the fluid moving
    for g, w in zip(got, (rho, ux, uy)):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15, equal_nan=True)
    fields = r.stdout.split()
    assert fields[0] == "fluid" and int(fields[1]) == int(np.sum(~np.isnan(rho)))
    sums = dict(zip(fields[2::2], map(float, fields[3::2])))
    assert sums["sum_rho"] == pytest.approx(np.nansum(rho), rel=1e-12)
    assert sums["sum_ux"] == pytest.approx(np.nansum(ux), rel=1e-10)
    assert sums["sum_uy"] == pytest.approx(np.nansum(uy), rel=1e-10, abs=1e-12)


def test_cpp_reads_its_own_records(exe, tmp_path):
    path = tmp_path / "box.npy"
    _run(exe, "grid", "closed_box", 6, 5, path)
    r = _run(exe, "moments", path, 6, tmp_path / "m.npy")
    assert r.stdout.split()[:2] == ["fluid", "12"]
    m = np.load(tmp_path / "m.npy")
    assert np.allclose(m[0][1:-1, 1:-1], 1.0, atol=1e-6) and np.all(m[1][1:-1, 1:-1] == 0)


def test_cpp_bad_input_gives_clear_errors(exe, tmp_path):
    r = _run(exe, "grid", "cavity", 2, 5, tmp_path / "x.npy", ok=False)
    assert r.returncode == 1 and "too small" in r.stderr
    r = _run(exe, "grid", "torus", 8, 8, tmp_path / "x.npy", ok=False)
    assert r.returncode == 1 and "unknown grid kind" in r.stderr
    bad = tmp_path / "plain.npy"
    np.save(bad, np.zeros(10, np.float32))
    r = _run(exe, "moments", bad, 5, tmp_path / "m.npy", ok=False)
    assert r.returncode == 1 and "f0..f8" in r.stderr
    good = tmp_path / "g.npy"
    _run(exe, "grid", "cavity", 8, 6, good)
    r = _run(exe, "moments", good, 7, tmp_path / "m.npy", ok=False)
    assert r.returncode == 1 and "not a grid of width 7" in r.stderr
    rec = np.zeros(9, lbm.RECORD_DTYPE)             # 3x3, all fluid: edge must be non-fluid
    np.save(bad, rec)
    r = _run(exe, "moments", bad, 3, tmp_path / "m.npy", ok=False)
    assert r.returncode == 1 and "non-fluid" in r.stderr
    r = _run(exe, "frobnicate", ok=False)
    assert r.returncode == 2 and "usage" in r.stderr
