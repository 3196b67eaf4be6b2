"""The Singularity image, built for real without Apptainer and used.

`spgen container build --builder builtin` makes the SIF file from a clean copy of this
repository (debootstrap, %post in chroot, mksquashfs, siftool); the test then reads its
descriptors, runs its %test inside it (`spgen container test`), and runs
`spgen bench dma --quick` inside (`spgen container exec`) and outside, and compares the
two result files with `spgen container compare`: the same transfers, all intact, at the same bandwidth
within the published Singularity bound.

Slow suite (about 15 minutes on 2 cores, see docs/containers.md); `.ci/run` runs it
when the recipe, the container commands or the system set-up changed.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from spgen.commands._container import compare_results

ROOT = Path(__file__).resolve().parents[2]
SPGEN = [sys.executable, "-m", "spgen"]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("container-image"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the built-in builder needs root (chroot)"),
]


def _run(cmd: list[str], log: Path, timeout: int, **kw) -> subprocess.CompletedProcess:
    """Run ``cmd`` with its output in ``log`` (long runs: the log shows where it stands)."""
    with open(log, "w") as fh:
        r = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, check=False, **kw)
    r.stdout = log.read_text()
    return r


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """The built image and a working folder, with its own build cache for the image's runs."""
    tmp = tmp_path_factory.mktemp("image")
    image = tmp / "spgen.sif"
    r = _run([*SPGEN, "container", "build", "--builder", "builtin", "--repo", str(ROOT),
              "-o", str(image), "--json", str(tmp / "build.json"), "--jobs", "2"],
             tmp / "build.log", timeout=3600, cwd=tmp)
    assert r.returncode == 0, r.stdout[-5000:]
    env = dict(os.environ, SPGEN_CACHE=str(tmp / "cache-in-image"))
    return tmp, image, env


def test_sif_file_has_the_definition_labels_and_root_file_system(work):
    tmp, image, _ = work
    listing = subprocess.run(["siftool", "list", str(image)], capture_output=True, text=True,
                             check=True).stdout
    types = [line.split("|")[-1].strip() for line in listing.splitlines()
             if line.split("|")[0].strip().isdigit()]
    assert types == ["Def.FILE", "JSON.Generic", "FS (Squashfs/*System/amd64)"], listing
    deffile = subprocess.run(["siftool", "dump", "1", str(image)], capture_output=True,
                             text=True, check=True).stdout
    assert deffile.startswith("Bootstrap: docker\nFrom: debian:12.8-slim\n")
    labels = json.loads(subprocess.run(["siftool", "dump", "2", str(image)],
                                       capture_output=True, text=True, check=True).stdout)
    assert labels["org.opencontainers.image.title"] == "spgen"
    assert labels["spgen.debian_version"].startswith("12.")
    figures = json.loads((tmp / "build.json").read_text())
    assert figures["size_bytes"] == image.stat().st_size > 100 << 20


def test_inside_is_debian_12_with_spgen_from_the_image(work):
    tmp, image, env = work
    probe = "import spgen, os; print(spgen.__file__, os.environ['SPGEN_ROOT'], os.getcwd())"
    r = _run([*SPGEN, "container", "exec", str(image), "--", "sh", "-c",
              (f'cat /etc/debian_version; python3 -c "{probe}"; '
               "test -f /.singularity.d/labels.json && echo labels-ok")],
             tmp / "exec.log", timeout=600, env=env, cwd=tmp)
    assert r.returncode == 0, r.stdout[-3000:]
    assert r.stdout.splitlines()[-3].startswith("12.")
    assert f"/opt/spgen/venv/lib/python3.11/site-packages/spgen/__init__.py " \
           f"/opt/spgen/src {tmp}" in r.stdout  # %environment sourced; working folder bound
    assert r.stdout.splitlines()[-1] == "labels-ok"
    r = _run([*SPGEN, "container", "exec", str(image), "--", "sh", "-c", "exit 7"],
             tmp / "exit.log", timeout=600, env=env, cwd=tmp)
    assert r.returncode == 7  # the command's own exit status comes back


def test_percent_test_passes_inside_the_image(work):
    tmp, image, env = work
    r = _run([*SPGEN, "container", "test", str(image)], tmp / "test.log", timeout=1800,
             env=env, cwd=tmp)
    assert r.returncode == 0, r.stdout[-5000:]
    for step in ("[ ok ] compile a core: jacobi5", "[ ok ] emulate: 4096 elements, bit-exact",
                 "[ ok ] DMA on the simulated card"):
        assert step in r.stdout, r.stdout[-5000:]
    assert "self-check passed" in r.stdout


def test_dma_benchmark_inside_equals_outside(work):
    tmp, image, env = work
    bench = ["bench", "dma", "--quick", "--no-progress", "--json"]
    inside = _run([*SPGEN, "container", "exec", str(image), "--", "spgen", *bench,
                   str(tmp / "dma-image.json")], tmp / "dma-image.log", timeout=1800,
                  env=env, cwd=tmp)
    assert inside.returncode == 0, inside.stdout[-3000:]
    outside = _run([*SPGEN, *bench, str(tmp / "dma-bare.json")], tmp / "dma-bare.log",
                   timeout=1800, cwd=tmp)
    assert outside.returncode == 0, outside.stdout[-3000:]
    r = _run([*SPGEN, "container", "compare", str(tmp / "dma-bare.json"),
              str(tmp / "dma-image.json"), "--fields", "gbps,integrity_errors"],
             tmp / "compare.log", timeout=120)
    print(r.stdout)
    assert r.returncode == 0, r.stdout
    assert "only in" not in r.stdout  # every (type, size) measured both ways
    assert "largest |difference| of integrity_errors: 0.00 %" in r.stdout
    # The simulated card's times move by a few percent from run to run (host threads
    # schedule the transfers), inside as outside; large transfers stay within the
    # published Singularity bound (10 %).
    a, b = (json.loads((tmp / f).read_text())["records"] for f in ("dma-bare.json",
                                                                    "dma-image.json"))
    rows = compare_results(a, b, ["type", "bytes"])["rows"]
    big = [x for x in rows if x["field"] == "gbps" and x["key"]["bytes"] >= 16 << 10]
    assert len(big) == 8 and all(abs(x["pct"]) <= 10 for x in big), big
    assert all(x["a"] == x["b"] == 0 for x in rows if x["field"] == "integrity_errors")
    if os.environ.get("SPGEN_CONTAINER_RESULTS"):  # keep the files for the docs
        dest = Path(os.environ["SPGEN_CONTAINER_RESULTS"])
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("build.json", "build.log", "test.log", "dma-image.json", "dma-bare.json",
                     "compare.log"):
            shutil.copy(tmp / name, dest / name)
