"""RDMA engine as RTL (shell/rdma/rdma_engine*.v, rdma_node.v): lint-clean; on a torus of
Verilated cards with faulty cables, random puts, gets and block-stride puts deliver every
byte, errors end with the right code instead of hanging."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rdma_rtl_tb import LANES_HPP, LINKS, PACKET_INC, RTL, lint, verilate_tb
from spgen._tools import verilate_cached, verilator_bin, verilator_env
from spgen.runtime.rdma import rtl_includes

pytestmark = pytest.mark.xdist_group("rdma_rtl")
TB = Path(__file__).with_name("tb_rdma_engine.cpp")
# the build the testbench assumes: 1 MiB per card, short operation timeout
PARAMS = ("-GMEM_BYTES=64'h100000", "-GOP_TIMEOUT=300000", "-GQUEUE_DEPTH=64")
# the wide engine's AFU memory adapter, and a test top with it behind rdma_node
ADAPTER_TOP = Path(__file__).with_name("tb_rdma_wide_card.v")
LINE_ADAPTER = [Path(__file__).resolve().parents[2] / "shell" / "rdma" / "afu" / f for f in
                ("rdma_line_adapter.v", "rdma_wr_lines.v")]


@pytest.mark.parametrize("top, params", [
    ("rdma_engine", ()), ("rdma_engine_rx", ()), ("rdma_engine_tx", ()),
    ("rdma_rx_ctrl", ()), ("rdma_rx_ctrl", ("-GMEM_BYTES=64'h10000000",)), ("rdma_rx_streams", ()),
    ("rdma_tx_stream", ()),
    ("rdma_node", ()), ("rdma_node", ("-GP=2", *PARAMS)), ("rdma_node", ("-GSTREAM=1",)),
    ("rdma_stream", ()), ("rdma_local_mux", ()), ("rdma_stream_ser", ()), ("rdma_stream_ser", ("-GWORDS=1",)),
    ("rdma_reduce", ()),
    ("rdma_stream_des", ()), ("rdma_stream_des", ("-GWORDS=16",)),
    ("rdma_node", ("-GLANES=16", "-GSTREAM=1")),
    ("rdma_node", ("-GLANES=32", "-GP=2", *PARAMS)), ("rdma_node", ("-GLANES=32", "-GSTREAM=1")),
    ("rdma_engine", ("-GLANES=16",)), ("rdma_engine", ("-GLANES=32", "-GPF_DEPTH=4096")),
    ("rdma_engine_wtx", ()), ("rdma_engine_wtx", ("-GLANES=32",)), ("rdma_engine_wrx", ()),
    ("rdma_engine_wrx", ("-GLANES=32",)), ("rdma_wbuf", ()), ("rdma_wbuf", ("-GIN=32", "-GDEPTH=256")),
    ("rdma_wbuf", ("-GWIDTH=33",)), ("rdma_stream_wide", ()), ("rdma_stream_wide", ("-GLANES=32",)),
    ("rdma_local_mux", ("-GLANES=16", "-GBY_SID=1")), ("rdma_local_mux", ("-GLANES=32", "-GBY_SID=1", "-GSID_BIT=6")),
])
def test_rdma_rtl_engine_lint_clean(top: str, params: tuple) -> None:
    assert lint(top, *params) == ""


@pytest.mark.parametrize("top, params", [
    ("rdma_line_adapter", ()), ("rdma_wr_lines", ()), ("rdma_wr_lines", ("-GBURST=1",)),
    ("tb_rdma_wide_card", ()), ("tb_rdma_wide_card", ("-GLANES=32", "-GP=2")),
])
def test_rdma_rtl_line_adapter_lint_clean(top: str, params: tuple) -> None:
    """The wide engine's AFU memory adapter (shell/rdma/afu/rdma_line_adapter.v, rdma_wr_lines.v)
    and the test top that puts it behind rdma_node."""
    cmd = [str(verilator_bin()), "--lint-only", "-Wall", *PACKET_INC, "--top-module", top, *params,
           *map(str, [*RTL, *LINE_ADAPTER, ADAPTER_TOP])]
    r = subprocess.run(cmd, env=verilator_env(), check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def engine_model(lanes: int = 1, *extra: str) -> Path:
    """The Verilated 2-D torus testbench of rdma_node, cached by content; with `lanes` > 1 the
    nodes are wide: beats of that many words on the network and the engine's port, 64-byte
    lines on its memory ports, bulk DATA packets."""
    if lanes == 1:
        return verilate_tb("rdma_node", "rdma_node", TB, *PARAMS, *extra)
    tag = "".join(e.strip("-G").replace("=", "") for e in extra)
    return verilate_tb(f"rdma_node_w{lanes}{tag}", "rdma_node", TB, *PARAMS, *extra, f"-GLANES={lanes}", "-CFLAGS",
                       f"-DLANES={lanes}")


def adapter_model(lanes: int) -> Path:
    """The same torus of wide nodes, each behind its AFU memory adapter (tb_rdma_wide_card.v:
    rdma_line_adapter, write bursts, mem_wr_flush / mem_wr_pending) on Avalon-MM masters."""
    return verilate_cached("rdma", f"tb_rdma_wide_card_w{lanes}", "tb_rdma_wide_card",
                           [*RTL, *LINE_ADAPTER, ADAPTER_TOP, TB],
                           (*PARAMS, f"-GLANES={lanes}", "-CFLAGS", f"-DLANES={lanes} -DADAPTER", "-CFLAGS",
                            f"-I{LINKS.parent}", *PACKET_INC), deps=[LINKS, LANES_HPP, *rtl_includes()])


def run_tb(*args: str, timeout: int = 600, lanes: int = 1, adapter: bool = False) -> tuple[int, dict[str, int], str]:
    exe = adapter_model(lanes) if adapter else engine_model(lanes)
    r = subprocess.run([str(exe), *args], capture_output=True, text=True, check=False, timeout=timeout)
    last = r.stdout.strip().splitlines()[-1].split() if r.stdout.strip() else []
    fields = dict(zip(last[::2], map(int, last[1::2]), strict=True))
    return r.returncode, fields, r.stdout + r.stderr


@pytest.mark.parametrize("args", [
    ("random", "2", "2", "30", "0", "0", "1", "2000000"),
    ("random", "2", "2", "30", "0.01", "0.01", "2", "3000000", "20000", "26000"),
    ("random", "2", "4", "60", "0.02", "0.01", "5", "20000000", "100000", "110000"),  # 8-card torus
    ("random", "2", "2", "60", "0", "0", "6", "2000000", "0", "0", "4"),  # 4 operations in flight per card
    ("random", "2", "4", "60", "0.02", "0.01", "7", "20000000", "30000", "40000", "4"),
], ids=["clean", "faults-linkdown", "torus2x4-faults-linkdown", "4inflight", "torus2x4-4inflight-faults"])
def test_rdma_rtl_engine_random_transfers(args: tuple) -> None:
    rc, f, out = run_tb(*args)
    assert rc == 0, out
    assert f["errors"] == 0 and f["overflow"] == 0 and f["failed"] == 0
    assert f["ok"] == int(args[1]) * int(args[2]) * int(args[3]) and f["events"] == f["ok"]
    if args[4] != "0":
        assert f["flips"] > 0 and f["drops"] > 0 and f["replays"] > 0


WIDE_RUNS = [
    ("random", "2", "2", "30", "0", "0", "1", "2000000"),
    ("random", "2", "2", "30", "0.01", "0.01", "2", "3000000", "6000", "9000"),
    ("random", "2", "2", "60", "0", "0", "6", "2000000", "0", "0", "4"),
    ("random", "2", "4", "60", "0.02", "0.01", "5", "20000000", "15000", "20000"),
    ("random", "2", "4", "60", "0.02", "0.01", "7", "20000000", "10000", "14000", "4"),
    ("random", "4", "4", "150", "0.01", "0.01", "9", "80000000", "30000", "45000", "4"),
]
WIDE_IDS = ["clean", "faults-linkdown", "4inflight", "torus2x4-faults-linkdown", "torus2x4-4inflight-faults",
            "torus4x4-4inflight-faults"]


@pytest.mark.parametrize("lanes", [16, 32])
@pytest.mark.parametrize("args", WIDE_RUNS, ids=WIDE_IDS)
def test_rdma_rtl_engine_wide_random_transfers(lanes: int, args: tuple) -> None:
    """The random puts, gets and block-stride transfers (4 B..16 KiB at any 4-byte alignment,
    64-byte, 1 KiB and other packet sizes) on wide nodes: 512- and 1024-bit beats, the engine
    reading and writing 64-byte lines (random waitrequest, read latency up to 60 cycles)."""
    rc, f, out = run_tb(*args, lanes=lanes)
    assert rc == 0, out
    assert f["errors"] == 0 and f["overflow"] == 0 and f["failed"] == 0
    assert f["ok"] == int(args[1]) * int(args[2]) * int(args[3]) and f["events"] == f["ok"]
    if args[4] != "0":
        assert f["flips"] > 0 and f["drops"] > 0 and f["replays"] > 0


@pytest.mark.parametrize("lanes", [16, 32])
@pytest.mark.parametrize("args", [WIDE_RUNS[1], WIDE_RUNS[4]], ids=[WIDE_IDS[1], WIDE_IDS[4]])
def test_rdma_rtl_engine_wide_behind_memory_adapter(lanes: int, args: tuple) -> None:
    """The random transfers with each engine behind rdma_line_adapter: the engine's line writes
    gathered into write bursts; "done" waits until the bursts are in memory (every range is
    checked at its completion)."""
    rc, f, out = run_tb(*args, lanes=lanes, adapter=True)
    assert rc == 0, out
    assert f["errors"] == 0 and f["overflow"] == 0 and f["failed"] == 0
    assert f["ok"] == int(args[1]) * int(args[2]) * int(args[3]) and f["events"] == f["ok"]
    assert f["bursts"] > 100  # multi-beat write bursts


@pytest.mark.parametrize("lanes", [16, 32])
def test_rdma_rtl_engine_wide_errors_reported(lanes: int) -> None:
    rc, f, out = run_tb("errors", "2", "2", "0", "0", "0", "3", "1000000", lanes=lanes)
    assert rc == 0, out
    assert f["errors"] == 0 and f["ok"] == 4 and f["failed"] == 10


def test_rdma_rtl_engine_errors_reported() -> None:
    rc, f, out = run_tb("errors", "2", "2", "0", "0", "0", "3", "1000000")
    assert rc == 0, out
    assert f["errors"] == 0 and f["ok"] == 4 and f["failed"] == 10  # block-stride get: one past the end, one ok


@pytest.mark.slow
def test_rdma_rtl_engine_random_transfers_4x4_torus() -> None:
    rc, f, out = run_tb("random", "4", "4", "150", "0.01", "0.01", "9", "80000000", "100000", "130000", "4")
    assert rc == 0, out
    assert f["errors"] == 0 and f["failed"] == 0 and f["ok"] == 16 * 150 and f["replays"] > 0
