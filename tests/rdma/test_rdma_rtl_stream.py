"""Streams over links as RTL (shell/rdma/rdma_stream.v, rdma_local_mux.v in rdma_node with
STREAM=1): every word of four concurrent card-to-card streams arrives once, in order, with
its last flag, under random back-pressure and link faults; a stalled consumer holds no
router buffer (RDMA puts keep completing meanwhile), and credits are what prevents loss."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from spgen._tools import verilate_cached
from spgen.runtime.rdma import rtl_includes, rtl_sources

pytestmark = pytest.mark.xdist_group("rdma_rtl")
ROOT = Path(__file__).resolve().parents[2]
RTL = rtl_sources()  # shell/rdma/*.v and the shell modules they use
TB = Path(__file__).with_name("tb_rdma_stream.cpp")
# the C++ link and routing helpers the testbenches share with RTLCluster
LINKS = ROOT / "runtime" / "rdma" / "rtl_links.hpp"
LINKS_INC = ("-CFLAGS", f"-I{LINKS.parent}")
# the generated packet-format include (shell/rdma_packet.vh) every RDMA module reads
PACKET = ROOT / "shell" / "rdma_packet.vh"
PACKET_INC = (f"-I{PACKET.parent}",)
PARAMS = ("-GSTREAM=1", "-GMEM_BYTES=64'h100000", "-GQUEUE_DEPTH=8")


def stream_model(*extra: str) -> Path:
    """The Verilated 2 x 2 torus of rdma_node with stream endpoints, cached by content."""
    return verilate_cached("rdma", "rdma_stream", "rdma_node", [*RTL, TB], (*PARAMS, *extra, *LINKS_INC, *PACKET_INC),
                           deps=[LINKS, *rtl_includes()])


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
    f = run_stream(*args)
    assert f["errors"] == 0 and f["stream_errors"] == 0
    assert f["delivered"] == f["words"] == 4 * int(args[0])
    if args[3] != "0":  # the stalled stream did not stop the network
        assert f["puts_in_stall"] >= 20
    if args[4] != "0":
        assert f["flips"] > 0 and f["drops"] > 0
