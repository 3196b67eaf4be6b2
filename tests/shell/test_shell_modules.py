"""Shell modules on their own (FIFO, descriptor queue and front end, status, arbiter, run counters;
RDMA receivers' checks, control side and stream table, the senders' stream, the word buffer, the
links' CRC), cocotb."""
from __future__ import annotations

import pytest
from shell_tb import SHELL_DIR, run_cocotb


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("record_words", "is_rx", "depth"),
                         [(16, 0, 16), (10, 1, 16), (3, 0, 4), (1, 1, 8)])
def test_desc_queue(tmp_path, monkeypatch, record_words, is_rx, depth):
    for k, v in (("RECORD_WORDS", record_words), ("IS_RX", is_rx), ("DEPTH", depth)):
        monkeypatch.setenv(k, str(v))
    tests, failed = run_cocotb(f"descq{record_words}_{is_rx}_{depth}", "shell_desc_queue",
                               [SHELL_DIR / "shell_desc_queue.v", SHELL_DIR / "shell_fifo.v"],
                               "cocotb_shell_desc_queue",
                               parameters={"RECORD_WORDS": record_words, "IS_RX": is_rx,
                                           "DESC_FIFO_DEPTH": depth}, tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("record_words", "is_rx", "depth"), [(16, 0, 16), (3, 1, 4), (1, 1, 16)])
def test_dma_front(tmp_path, monkeypatch, record_words, is_rx, depth):
    for k, v in (("RECORD_WORDS", record_words), ("IS_RX", is_rx), ("DEPTH", depth)):
        monkeypatch.setenv(k, str(v))
    tests, failed = run_cocotb(f"dma_front{record_words}_{is_rx}_{depth}", "shell_dma_front",
                               [SHELL_DIR / f for f in ("shell_dma_front.v", "shell_desc_queue.v",
                                                        "shell_dma_status.v", "shell_fifo.v")],
                               "cocotb_shell_dma_front",
                               parameters={"RECORD_WORDS": record_words, "IS_RX": is_rx,
                                           "DESC_FIFO_DEPTH": depth}, tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("top", "test_module"),
                         [("shell_dma_status", "cocotb_shell_dma_status"),
                          ("shell_dsc_arbiter", "cocotb_shell_dsc_arbiter"),
                          ("shell_run_counters", "cocotb_shell_run_counters")])
def test_unparametrised(tmp_path, top, test_module):
    tests, failed = run_cocotb(top, top, [SHELL_DIR / f"{top}.v"], test_module, tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("mem_bytes", [0x2_0000_0000, 0x1000_0000])
def test_rdma_start_check(tmp_path, monkeypatch, mem_bytes):
    monkeypatch.setenv("MEM_BYTES", str(mem_bytes))
    tests, failed = run_cocotb(f"rdma_start_check{mem_bytes:x}", "rdma_start_check",
                               [SHELL_DIR / "rdma" / "rdma_start_check.v"], "cocotb_rdma_start_check",
                               parameters={"MEM_BYTES": f"64'h{mem_bytes:x}"}, tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("mem_bytes", [0x2_0000_0000, 0x1000_0000])
def test_rdma_rx_ctrl(tmp_path, monkeypatch, mem_bytes):
    monkeypatch.setenv("MEM_BYTES", str(mem_bytes))
    tests, failed = run_cocotb(f"rdma_rx_ctrl{mem_bytes:x}", "rdma_rx_ctrl",
                               [SHELL_DIR / "rdma" / f for f in ("rdma_rx_ctrl.v", "rdma_rx_streams.v",
                                                                 "rdma_start_check.v")],
                               "cocotb_rdma_rx_ctrl", parameters={"MEM_BYTES": f"64'h{mem_bytes:x}"},
                               tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_modules")
def test_rdma_rx_streams(tmp_path):
    tests, failed = run_cocotb("rdma_rx_streams", "rdma_rx_streams", [SHELL_DIR / "rdma" / "rdma_rx_streams.v"],
                               "cocotb_rdma_rx_streams", tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_modules")
def test_rdma_tx_stream(tmp_path):
    tests, failed = run_cocotb("rdma_tx_stream", "rdma_tx_stream", [SHELL_DIR / "rdma" / "rdma_tx_stream.v"],
                               "cocotb_rdma_tx_stream", tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("width", "depth", "fwd"), [(32, 16, 1), (1, 2, 1), (72, 4, 0), (524, 64, 0), (8, 2, 0)])
def test_fifo(tmp_path, monkeypatch, width, depth, fwd):
    for k, v in (("DATA_WIDTH", width), ("DEPTH", depth), ("FWD_WRITES", fwd)):
        monkeypatch.setenv(k, str(v))
    tests, failed = run_cocotb(f"fifo{width}_{depth}_{fwd}", "shell_fifo", [SHELL_DIR / "shell_fifo.v"],
                               "cocotb_shell_fifo",
                               parameters={"DATA_WIDTH": width, "FIFO_DEPTH": depth, "FWD_WRITES": fwd},
                               tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("depth", "n_in", "n_out", "width"),
                         [(1024, 16, 16, 32), (256, 32, 16, 32), (64, 16, 32, 33), (32, 16, 2, 8)])
def test_rdma_wbuf(tmp_path, monkeypatch, depth, n_in, n_out, width):
    for k, v in (("DEPTH", depth), ("IN", n_in), ("OUT", n_out), ("WIDTH", width)):
        monkeypatch.setenv(k, str(v))
    tests, failed = run_cocotb(f"wbuf{depth}_{n_in}_{n_out}_{width}", "rdma_wbuf",
                               [SHELL_DIR / "rdma" / "rdma_wbuf.v"], "cocotb_rdma_wbuf",
                               parameters={"DEPTH": depth, "IN": n_in, "OUT": n_out, "WIDTH": width},
                               tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("lanes", [1, 16, 32])
def test_rdma_crc32(tmp_path, monkeypatch, lanes):
    monkeypatch.setenv("LANES", str(lanes))
    tests, failed = run_cocotb(f"crc32_{lanes}", "rdma_crc32", [SHELL_DIR / "rdma" / "rdma_crc32.v"],
                               "cocotb_rdma_crc32", parameters={"LANES": lanes}, tmp_path=tmp_path)
    assert tests == 1 and failed == 0


def _fabric_desc(tmp_path, quiet, testcase):
    return run_cocotb(f"fabric_desc{quiet}", "shell_fabric_desc", [SHELL_DIR / "shell_fabric_desc.v"],
                      "cocotb_shell_fabric_desc", parameters={"QUIET_CYCLES": quiet},
                      testcase=testcase, tmp_path=tmp_path)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("quiet", [2, 4, 15])
def test_fabric_desc(tmp_path, monkeypatch, quiet):
    monkeypatch.setenv("QUIET_CYCLES", str(quiet))
    assert _fabric_desc(tmp_path, quiet, "fabric_desc_random") == (1, 0)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.xfail(strict=True, reason=(
    "shell_fabric_desc: in the cycle an engine's DONE_COUNT shows the fabric descriptor's "
    "completion, tx/rx_status_host still counts it (tx_fab_reg is incremented a cycle later): "
    "the host's DONE_COUNT reads one too high for that cycle, e.g. 1 with no host descriptor; "
    "subtracting it combinationally breaks the module's ALM and LUT-level budget"))
def test_fabric_desc_host_count_exact(tmp_path, monkeypatch):
    """The host's DONE_COUNT never includes a fabric descriptor, not even in the cycle its
    engine's count first shows it done."""
    monkeypatch.setenv("QUIET_CYCLES", "4")
    assert _fabric_desc(tmp_path, 4, "fabric_desc_host_count_exact") == (1, 0)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("n_cores", "words"), [(0, 1), (2, 16)])
def test_p2p_ctrl(tmp_path, monkeypatch, n_cores, words):
    monkeypatch.setenv("N_CORES", str(n_cores))
    monkeypatch.setenv("IN_WORDS", str(words))
    tests, failed = run_cocotb(f"p2p_ctrl{n_cores}_{words}", "shell_p2p_ctrl",
                               [SHELL_DIR / "shell_p2p_ctrl.v"], "cocotb_shell_p2p_ctrl",
                               parameters={"N_CORES": n_cores, "IN_WORDS": words,
                                           "OUT_WORDS": words}, tmp_path=tmp_path)
    assert tests == 1 and failed == 0
