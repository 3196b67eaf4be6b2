"""Streams over links as RTL (shell/rdma/rdma_stream.v, rdma_stream_wide.v, rdma_local_mux.v in
rdma_node with STREAM=1): every word of four concurrent card-to-card streams arrives once, in
order, with its last flag, under random back-pressure and link faults; a stalled consumer holds
no router buffer (RDMA puts keep completing meanwhile), and credits are what prevents loss. On
wide nodes a stream runs at the line: at least 93 % of a 40 or 100 Gb/s line's payload over 1
and 3 hops, records of 10 words and of a full beat."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rdma_rtl_tb import verilate_tb
from spgen.shellgen._project import LINK_PORT

pytestmark = pytest.mark.xdist_group("rdma_rtl")
TB = Path(__file__).with_name("tb_rdma_stream.cpp")
PARAMS = ("-GSTREAM=1", "-GMEM_BYTES=64'h100000", "-GQUEUE_DEPTH=8")


def stream_model(*extra: str) -> Path:
    """The Verilated 2 x 2 torus of rdma_node with stream endpoints, cached by content."""
    return verilate_tb("rdma_stream", "rdma_node", TB, *PARAMS, *extra)


def wide_stream_model(lanes: int) -> Path:
    """The same torus of wide nodes: the cascade's stream endpoints (rdma_stream_wide) share the
    local port with the wide engine at beat level; link windows and buffers as the AFU's for the
    line these lanes serve (1 KiB packets at the line need them)."""
    port = next(p for p in LINK_PORT.values() if p["RDMA_LANES"] == lanes)
    return verilate_tb(f"rdma_stream_w{lanes}", "rdma_node", TB, *PARAMS, f"-GLANES={lanes}",
                       f"-GWINDOW={port['RDMA_WINDOW']}", f"-GVC_BUF={port['RDMA_VC_BUF']}", "-CFLAGS",
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
    # up to a beat a cycle each way: streams long enough to run into card 3's stall
    args = ("40000", "0.6", "0.3", "15000", "0.02", "0.02", "3", "900000")
    _check(args, run_stream(*args, model=wide_stream_model(lanes)))


def _check(args: tuple, f: dict[str, int]) -> None:
    assert f["errors"] == 0 and f["stream_errors"] == 0
    assert f["delivered"] == f["words"] == 4 * int(args[0])
    if args[3] != "0":  # the stalled stream did not stop the network
        assert f["puts_in_stall"] >= 20
    if args[4] != "0":
        assert f["flips"] > 0 and f["drops"] > 0


# line Gb/s -> lanes of the afu_rdma_top built for it
LINES = {g: p["RDMA_LANES"] for g, p in LINK_PORT.items()}


def stream_rate(gbps: int, hops: int, record: int, per_cycle: int, records: int, p_out: float = 1.0,
                per: float = 0.0) -> dict[str, int]:
    """One stream over `hops` hops with ports held to the line (tests/rdma/tb_stream_rate.hpp)."""
    return run_stream("rate", str(gbps), str(hops), str(record), str(per_cycle), str(records), str(p_out), str(per),
                      "7", model=wide_stream_model(LINES[gbps]))


@pytest.mark.parametrize("gbps", [40, 100])
@pytest.mark.parametrize("hops", [1, 3])
@pytest.mark.parametrize("record", ["beat", "10w"])
def test_rdma_rtl_stream_line_rate(gbps: int, hops: int, record: str) -> None:
    lanes = LINES[gbps]
    words, per_cycle = (lanes, 1) if record == "beat" else (10, lanes // 10)
    f = stream_rate(gbps, hops, words, per_cycle, 60000 // words)
    assert f["errors"] == 0 and f["stream_errors"] == 0 and f["delivered"] == f["words"]
    assert f["line_pct_x1000"] >= 93000, f


def test_rdma_rtl_stream_core_record_rate() -> None:
    """A core's output of one 10-word record a cycle (64 Gb/s at 200 MHz) fills a 40 Gb/s line
    and streams at its own rate over a 100 Gb/s one."""
    assert stream_rate(40, 1, 10, 1, 5000)["line_pct_x1000"] >= 93000
    f = stream_rate(100, 1, 10, 1, 5000)
    assert 0.93 * 64000 <= f["gbps_x1000"] <= 64000, f


@pytest.mark.parametrize("gbps", [40, 100])
def test_rdma_rtl_stream_line_rate_faults_backpressure(gbps: int) -> None:
    """Packet errors at 1e-4 (and 100x that) with a consumer that takes 3 of 4 cycles: nothing
    lost, duplicated or reordered (the testbench checks every word and the last flag)."""
    for per in (1e-4, 1e-2):
        f = stream_rate(gbps, 3, 10, LINES[gbps] // 10, 20000, p_out=0.75, per=per)
        assert f["errors"] == 0 and f["stream_errors"] == 0 and f["delivered"] == f["words"], f
    assert f["flips"] > 0
