"""The wheel, installed (not editable) in a new virtual environment and used from another folder:
its data folders, compiling a core, building and opening cards, DMA, LBM bit-exact."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from spgen._paths import DATA_DIRS, SOURCE_VERSION
from spgen._tools import cache_dir, locked
from spgen.commands._container import stage_tree

pytestmark = pytest.mark.xdist_group("packaging")
ROOT = Path(__file__).resolve().parents[2]
CHECK = Path(__file__).with_name("installed_check.py")


def _run(cmd: list, cwd: Path, env: dict | None = None, timeout: int = 1800) -> str:
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=timeout, check=False)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))}:\n{(r.stdout + r.stderr)[-4000:]}"
    return r.stdout


def _clean_env(venv: Path) -> dict:
    """The environment of a command of `venv`: its bin first, no path to this checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPGEN_ROOT")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of a clean copy of the checkout (tracked and unignored files), built as a user
    builds it."""
    tmp = tmp_path_factory.mktemp("wheel")
    stage_tree(ROOT, tmp / "src")
    _run([sys.executable, "-m", "pip", "wheel", tmp / "src", "--no-deps", "-w", tmp / "dist", "-q"],
         tmp)
    return next((tmp / "dist").glob("spgen-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """(venv, environment, work folder): the wheel installed in a new venv whose only other
    packages are this interpreter's (a path in a .pth file, whose own .pth files, among them
    the editable checkout's, are not read)."""
    tmp = tmp_path_factory.mktemp("installed")
    # One venv path per machine: the runtime's CMake build folder is keyed by its source path,
    # so the installed copy's runtime is built once, not on every run.
    base = cache_dir("packaging")
    with locked(base / "venv.lock"):
        venv = base / "venv"
        shutil.rmtree(venv, ignore_errors=True)
        _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp)
        py = venv / "bin" / "python"
        _run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps",
              "--no-index", wheel], tmp)
        purelib = _run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp)
        paths = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
        pth = Path(purelib.strip()) / "_spgen_test_deps.pth"
        pth.write_text("".join(f"{p}\n" for p in paths))
        work = tmp / "elsewhere"
        work.mkdir()
        yield venv, _clean_env(venv), work


def test_wheel_carries_the_data_folders(installed):
    venv, env, work = installed
    out = _run([venv / "bin" / "spgen", "--version"], work, env)
    data = next(venv.glob("lib/python*/site-packages/spgen/_data"))
    assert out.startswith(f"spgen {SOURCE_VERSION} ") and f": {data})" in out, out
    tracked = _run(["git", "-C", ROOT, "ls-files", *DATA_DIRS], ROOT).split()
    for rel in tracked:
        if (ROOT / rel).is_file():     # not deleted in the working tree
            assert (data / rel).read_bytes() == (ROOT / rel).read_bytes(), rel
    assert len(tracked) > 100 and (data / "runtime" / "CMakeLists.txt").is_file()


def test_installed_spgen_builds_cards_runs_dma_and_lbm(installed):
    venv, env, work = installed
    spgen = venv / "bin" / "spgen"
    data = next(venv.glob("lib/python*/site-packages/spgen/_data"))
    core = data / "cores" / "lbm" / "lbm_d2q9.spd"
    summary = _run([spgen, "compile", core, "-P", "W=32"], work, env)
    assert "lbm_d2q9" in summary
    # the card tests/lbm/test_lbm_cards.py builds too: its simulated card is cached by content
    _run([spgen, "build", core, "-P", "W=32", "--cascade", "2", "--core-model", "fast",
          "--links", "2", "-o", work / "lbm"], work, env)
    assert (work / "lbm" / "hw").is_dir() and (work / "lbm" / "rtl").is_dir()
    found = json.loads(_run([venv / "bin" / "python", CHECK, work / "lbm"], work, env))
    assert found["spgen"] == str(data.parent / "__init__.py")
    assert found["data_root"] == found["repo_root"] == str(data)
    assert found["checkout_root"] is None
    assert not any(Path(p).resolve() == (ROOT / "compiler").resolve() for p in found["sys_path"])
    assert found["unmet"] == []
    assert found["missing"] == []
    assert "lbm/lbm_d2q9.spd" in found["cores"] and "jacobi5/jacobi5.spd" in found["cores"]
    assert found["dma"] is True
    assert "round trip intact" in found["native"], found["native"]
    assert found["lbm"] is True


@pytest.mark.slow
def test_wheel_installs_its_dependencies_from_the_registry(wheel, tmp_path):
    """The wheel in a venv of its own, its requirements resolved by pip (registry or pip's
    cache): they are consistent, and the installed spgen emulates a core bit for bit as this
    one does."""
    import numpy as np
    import spgen

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], tmp_path)
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel], tmp_path)
    _run([venv / "bin" / "python", "-m", "pip", "check"], tmp_path)
    work = tmp_path / "elsewhere"
    work.mkdir()
    script = (
        "import sys, numpy as np, spgen; from spgen._paths import cores_dir\n"
        "d = spgen.compile(cores_dir() / 'jacobi5' / 'jacobi5.spd')\n"
        "x = np.load(sys.argv[1]); out = d.emulate(x)\n"
        "np.save(sys.argv[2], out); print(spgen.__file__)\n")
    core = spgen.compile(ROOT / "cores" / "jacobi5" / "jacobi5.spd")
    x = np.zeros(4096, dtype=core.input_dtype())
    rng = np.random.default_rng(2)
    for name in x.dtype.names:
        kind = x.dtype[name].kind
        x[name] = rng.standard_normal(len(x)) if kind == "f" else rng.integers(0, 3, len(x))
    np.save(tmp_path / "x.npy", x)
    where = _run([venv / "bin" / "python", "-c", script, tmp_path / "x.npy", tmp_path / "y.npy"],
                 work, _clean_env(venv))
    assert where.strip().startswith(str(venv))
    got, want = np.load(tmp_path / "y.npy"), core.emulate(x)
    assert got.dtype == want.dtype
    for n in want.dtype.names:
        assert np.array_equal(got[n].view(np.uint32), want[n].view(np.uint32)), n
