"""The link layer as RTL (shell/rdma/): lint-clean, and two ports over a faulty cable deliver every packet once."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from spgen._tools import cache_dir, content_hash, verilator_bin, verilator_env

pytestmark = pytest.mark.xdist_group("rdma_rtl")
ROOT = Path(__file__).resolve().parents[2]
RTL = sorted((ROOT / "shell" / "rdma").glob("*.v"))
TB = Path(__file__).with_name("tb_rdma_link.cpp")


def _lint(top: str, *params: str) -> str:
    cmd = [str(verilator_bin()), "--lint-only", "-Wall", "--top-module", top, *params, *map(str, RTL)]
    r = subprocess.run(cmd, env=verilator_env(), check=False, capture_output=True, text=True)
    return "" if r.returncode == 0 else r.stdout + r.stderr


@pytest.mark.parametrize("top, params", [
    ("rdma_link_port", ()), ("rdma_link_port", ("-GWINDOW=64", "-GVC_BUF=16")),
    ("rdma_link_tx", ()), ("rdma_link_rx", ()), ("rdma_crc32", ()),
])
def test_rdma_rtl_lint_clean(top: str, params: tuple) -> None:
    assert _lint(top, *params) == ""


def _model() -> Path:
    out = cache_dir("rdma") / ("link-" + content_hash(*[f.read_bytes() for f in [*RTL, TB]]))
    exe = out / "Vrdma_link_port"
    if not exe.is_file():
        cmd = [str(verilator_bin()), "--cc", "--exe", "--build", "-O1", "-j", "2", "--top-module", "rdma_link_port",
               "-Mdir", str(out), "-CFLAGS", "-O1", *map(str, RTL), str(TB)]
        r = subprocess.run(cmd, env=verilator_env(), check=False, capture_output=True, text=True)
        assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    return exe


@pytest.mark.parametrize("args", [
    ("300", "0", "0", "1", "20", "0", "0", "1.0"),          # clean, no back-pressure
    ("300", "0.01", "0.02", "2", "20", "3000", "5000", "0.7"),  # drops, bit flips, link down
    ("200", "0.02", "0.05", "3", "40", "0", "0", "0.15"),   # heavy faults, slow consumer: credits
], ids=["clean", "faults", "backpressure"])
def test_rdma_link_rtl_delivers_every_packet_once(args: tuple) -> None:
    r = subprocess.run([str(_model()), *args], capture_output=True, text=True, check=False, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    fields = dict(zip(r.stdout.split()[::2], map(int, r.stdout.split()[1::2]), strict=True))
    assert fields["errors"] == 0
    if args[1] != "0":
        assert fields["crc_errors"] > 0 and fields["replays"] > 0 and fields["dropped"] > 0
