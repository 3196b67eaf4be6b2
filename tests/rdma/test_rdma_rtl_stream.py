"""Streams over links as RTL (shell/rdma/rdma_stream.v, rdma_local_mux.v in rdma_node with
STREAM=1): every word of four concurrent card-to-card streams arrives once, in order, with
its last flag, under random back-pressure and link faults; a stalled consumer holds no
router buffer (RDMA puts keep completing meanwhile), and credits are what prevents loss."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rdma_rtl_tb import verilate_tb

pytestmark = pytest.mark.xdist_group("rdma_rtl")
TB = Path(__file__).with_name("tb_rdma_stream.cpp")
PARAMS = ("-GSTREAM=1", "-GMEM_BYTES=64'h100000", "-GQUEUE_DEPTH=8")


def stream_model(*extra: str) -> Path:
    """The Verilated 2 x 2 torus of rdma_node with stream endpoints, cached by content."""
    return verilate_tb("rdma_stream", "rdma_node", TB, *PARAMS, *extra)


def wide_stream_model(lanes: int) -> Path:
    """The same torus of wide nodes: the streams behind the width converters share the local port
    with the wide engine at beat level."""
    return verilate_tb(f"rdma_stream_w{lanes}", "rdma_node", TB, *PARAMS, f"-GLANES={lanes}", "-CFLAGS",
                       f"-DLANES={lanes}")


def run_stream(*args: str, model: Path | None = None) -> dict[str, int]:
    r = subprocess.run([str(model or stream_model()), *args], capture_output=True, text=True, check=False,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return dict(zip(r.stdout.split()[::2], map(int, r.stdout.split()[1::2]), strict=True))


@pytest.mark.parametrize("args", [
    ("3000", "1", "1", "0", "0", "0", "1", "200000"),             # free-running
    ("3000", "0.7", "0.4", "20000", "0", "0", "2", "600000"),     # back-pressure, a long stall
    ("3000", "0.6", "0.3", "15000", "0.02", "0.02", "3", "900000"),  # ... and faulty links
], ids=["clean", "backpressure-stall", "faults"])
def test_rdma_rtl_stream_words_in_order(args: tuple) -> None:
    _check(args, run_stream(*args))


@pytest.mark.parametrize("lanes", [16, 32])
def test_rdma_rtl_stream_words_in_order_on_wide_nodes(lanes: int) -> None:
    args = ("3000", "0.6", "0.3", "15000", "0.02", "0.02", "3", "900000")
    _check(args, run_stream(*args, model=wide_stream_model(lanes)))


def _check(args: tuple, f: dict[str, int]) -> None:
    assert f["errors"] == 0 and f["stream_errors"] == 0
    assert f["delivered"] == f["words"] == 4 * int(args[0])
    if args[3] != "0":  # the stalled stream did not stop the network
        assert f["puts_in_stall"] >= 20
    if args[4] != "0":
        assert f["flips"] > 0 and f["drops"] > 0
