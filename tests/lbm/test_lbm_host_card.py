"""afushell/lbm_card.hpp (via examples/lbm_host/lbm_card): N LBM steps on the simulated card from C++.

The card test is slow: it needs the Verilated LBM card of `make demo` (W = 32, cascade 2,
`spgen build` cached by content; 7-20 minutes to build when the shell RTL has changed),
which the normal suite never builds. The normal suite compiles the program against the
runtime and checks its errors on the loop-back and exprmix cards, which the runtime
tests build anyway.
"""
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import spgen
from spgen import lbm, runtime

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples" / "lbm_host" / "lbm_card.cpp"
WIDTH, HEIGHT, DEPTH = 32, 12, 2          # the card `make demo` builds (bench lbm --grid 32x410)

pytestmark = pytest.mark.xdist_group("lbm_host_card")


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    gxx = shutil.which("g++")
    assert gxx, "g++ is needed to build examples/lbm_host/lbm_card.cpp"
    rt = runtime.build_runtime()
    out = tmp_path_factory.mktemp("lbm_card") / "lbm_card"
    r = subprocess.run([gxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror",
                        f"-I{ROOT / 'runtime' / 'include'}", f"-I{ROOT / 'runtime' / 'sim' / 'include'}",
                        str(SOURCE), f"-L{rt}", "-lafushell", "-lopae-c-sim", f"-Wl,-rpath,{rt}",
                        "-o", str(out)],
                       capture_output=True, text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def env():
    return dict(os.environ, SPGEN_LOOPBACK_CARD=str(runtime.loopback_card()))


def _run(exe, env, *args, ok=True):
    r = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                       timeout=600, env=env, check=False)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def test_lbm_card_errors_are_codes_with_messages(exe, env, tmp_path):
    out = tmp_path / "o"
    r = _run(exe, env, "sim:loopback", 8, 6, 4, out, ok=False)
    assert r.returncode == 1 and "error not supported (0x6)" in r.stderr
    assert "no cores" in r.stderr and "lbm_d2q9" in r.stderr
    r = _run(exe, env, tmp_path / "no_such_build", 8, 6, 4, out, ok=False)
    assert r.returncode == 1 and "bad target URI" in r.stderr and "no_such_build" in r.stderr
    r = _run(exe, env, "sim:loopback", 2, 6, 4, out, ok=False)
    assert r.returncode == 1 and "too small" in r.stderr
    rec = tmp_path / "r.npy"
    np.save(rec, lbm.to_records(lbm.initial_f(lbm.cavity(8, 5)), lbm.cavity(8, 5)))
    r = _run(exe, env, "sim:loopback", 8, 6, 4, out, "--in", rec, ok=False)
    assert r.returncode == 1 and "holds 40 records, not a 8x6 grid" in r.stderr
    r = _run(exe, env, "sim:loopback", 8, 6, "x", out, ok=False)
    assert r.returncode == 1 and "STEPS must be a number" in r.stderr
    r = _run(exe, env, "sim:loopback", 8, 6, 4, out, "--omega", ok=False)
    assert r.returncode == 2 and "usage" in r.stderr
    assert not list(tmp_path.glob("o.*"))       # nothing written on error


def test_python_run_card_is_the_cpp_one_with_spgen_errors():
    """spgen.lbm.run_card calls lbm_card.hpp's run_card (bound into the extension): its
    refusals come back as SpgenError naming the build, with the C++ message."""
    attr = lbm.cavity(8, 6)
    with pytest.raises(spgen.SpgenError, match=r"^loopback: the card has no cores .*lbm_d2q9"):
        lbm.run_card("loopback", lbm.initial_f(attr), attr, 4)
    with pytest.raises(spgen.SpgenError, match="steps must be a non-negative integer, got -1"):
        lbm.run_card("loopback", lbm.initial_f(attr), attr, -1)


def test_lbm_card_refuses_a_core_of_another_record_width(exe, env, tmp_path):
    """cores/exprmix (5-word records in, 7 out), the card the runtime tests build anyway."""
    from spgen.cli import main

    build = tmp_path / "exprmix"
    assert main(["build", str(ROOT / "cores" / "exprmix" / "exprmix.spd"), "-o", str(build)]) == 0
    r = _run(exe, env, build, 8, 6, 4, tmp_path / "o", ok=False)
    assert r.returncode == 1 and "(0x10d)" in r.stderr
    assert "take 5-word records and give 7-word records" in r.stderr and "40-byte" in r.stderr


def _start():
    """A 32 x 12 cavity with every cell kind and a perturbed start."""
    attr = lbm.cavity(WIDTH, HEIGHT)
    attr[5, 9] = lbm.WALL
    attr[1, WIDTH - 3] = lbm.MOVING_WALL
    attr[7, 20] = 3 | 0x40                        # reserved kind 3 (a wall) with high bits set
    attr[3, 4] |= 0x1F00                          # fluid with unused high bits
    assert set(np.unique(attr & 3)) == {0, 1, 2, 3}
    rng = np.random.default_rng(11)
    f = lbm.initial_f(attr) * (1 + 0.05 * rng.standard_normal((9,) + attr.shape))
    return f.astype(np.float32), attr


@pytest.fixture(scope="module")
def card_build():
    from spgen.commands._bench_lbm import _build

    return _build(lbm.CORE_PATH, WIDTH, DEPTH)   # same parameters as `make demo`: cached


@pytest.mark.slow
@pytest.mark.parametrize("steps", [2 * DEPTH, 5 * DEPTH])
def test_cpp_card_equals_emulator_and_python_card(exe, env, card_build, tmp_path, steps):
    """2 x depth: upload and download only; 5 x depth: three F2F runs, A->B->A->B."""
    f, attr = _start()
    regs = {"omega": 1.3, "uw": (0.07, 0.01)}
    src = tmp_path / "in.npy"
    np.save(src, lbm.to_records(f, attr))
    out = tmp_path / "o"
    r = _run(exe, env, card_build, WIDTH, HEIGHT, steps, out, "--omega", 1.3, "--uw", 0.07, 0.01,
             "--in", src)
    fields = r.stdout.split()
    stats = dict(zip(fields[0::2], fields[1::2]))
    assert int(stats["depth"]) == DEPTH and int(stats["steps"]) == steps
    assert int(stats["transfers"]) == steps // DEPTH and int(stats["f2f_runs"]) == steps // DEPTH - 2
    assert int(stats["in_moved_cycles"]) == (steps // DEPTH - 2) * WIDTH * HEIGHT

    got = np.load(f"{out}.records.npy")
    assert got.dtype == lbm.RECORD_DTYPE and got.shape == (WIDTH * HEIGHT,)
    want = lbm.to_records(lbm.run_emulator(lbm.compile_core(WIDTH), f, attr, steps, **regs), attr)
    assert got.tobytes() == want.tobytes()      # bit for bit, attr words included
    py_f, runs = lbm.run_card(card_build, f, attr, steps, **regs)
    assert got.tobytes() == lbm.to_records(py_f, attr).tobytes() and len(runs) == steps // DEPTH - 2
    assert not np.array_equal(got["f1"], lbm.to_records(f, attr)["f1"])

    m = np.load(f"{out}.moments.npy")
    rho, ux, uy = lbm.macroscopic(py_f, attr)
    assert m.shape == (3, HEIGHT, WIDTH)
    for a, b in zip(m, (rho, ux, uy)):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15, equal_nan=True)


@pytest.mark.slow
def test_cpp_card_cavity_from_rest_and_step_errors(exe, env, card_build, tmp_path):
    out = tmp_path / "c"
    _run(exe, env, card_build, WIDTH, HEIGHT, 3 * DEPTH, out, "--omega", 1.6, "--uw", 0.1, 0)
    attr = lbm.cavity(WIDTH, HEIGHT)
    want, _ = lbm.run_card(card_build, lbm.initial_f(attr), attr, 3 * DEPTH, omega=1.6, uw=(0.1, 0.0))
    got = np.load(f"{out}.records.npy")
    assert got.tobytes() == lbm.to_records(want, attr).tobytes()
    assert np.nanmax(np.abs(np.load(f"{out}.moments.npy")[1])) > 1e-3   # the lid moves the fluid
    for steps, msg in ((2 * DEPTH + 1, "must be a multiple of 2"), (DEPTH, "at least 4"), (0, "got 0")):
        r = _run(exe, env, card_build, WIDTH, HEIGHT, steps, tmp_path / "e", ok=False)
        assert r.returncode == 1 and msg in r.stderr and "invalid parameter" in r.stderr


@pytest.mark.slow
def test_grid_of_another_width_is_refused(exe, env, card_build, tmp_path):
    """The card's cores hold rows of W = 32 cells: a 36-wide grid would run and give wrong
    results, so the C++ and the Python paths refuse it (the card reports its Param W)."""
    r = _run(exe, env, card_build, WIDTH + 4, HEIGHT, 2 * DEPTH, tmp_path / "w", ok=False)
    assert r.returncode == 1 and "built for grids 32 cells wide" in r.stderr
    assert "-P W=36" in r.stderr and "invalid parameter" in r.stderr
    assert not list(tmp_path.glob("w*"))
    attr = lbm.cavity(WIDTH + 4, HEIGHT)
    with pytest.raises(spgen.SpgenError, match="built for grids 32 cells wide"):
        lbm.run_card(card_build, lbm.initial_f(attr), attr, 2 * DEPTH)
