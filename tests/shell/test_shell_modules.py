"""Shell modules on their own (FIFO, descriptor queue and front end, status, arbiter, run counters,
host CSRs; RDMA receivers' checks, control side and stream table, the senders' stream, the word
buffer, the links' CRC, sender and receiver, the word engine's write coalescer and memory adapter,
the AFU's read and write arbiters, the stream endpoints' CSRs and binding, the reduction's CSRs
and completion record; the TX and RX DMA engines, and afu_shell around them), cocotb."""
from __future__ import annotations

import pytest
from shell_tb import SHELL_DIR, run_cocotb, shell_sources


def _passes(tmp_path, monkeypatch, name: str, files: list, test_module: str, parameters: dict | None = None,
            env: dict | None = None, testcase: str | None = None) -> bool:
    """Builds the first file's module with `parameters` (and the other files), runs its one
    cocotb test with `env` set (the parameters the test module models)."""
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, str(v))
    return run_cocotb(name, files[0].stem, files, test_module, parameters=parameters,
                      testcase=testcase, tmp_path=tmp_path) == (1, 0)


# a DMA engine's descriptor front end and what it instantiates
_FRONT = ("shell_dma_front.v", "shell_desc_queue.v", "shell_dma_status.v", "shell_fifo.v")


def _rdma(*names: str) -> list:
    return [SHELL_DIR / "rdma" / n for n in names]


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("record_words", "is_rx", "depth"),
                         [(16, 0, 16), (10, 1, 16), (3, 0, 4), (1, 1, 8)])
def test_desc_queue(tmp_path, monkeypatch, record_words, is_rx, depth):
    assert _passes(tmp_path, monkeypatch, f"descq{record_words}_{is_rx}_{depth}",
                   [SHELL_DIR / "shell_desc_queue.v", SHELL_DIR / "shell_fifo.v"], "cocotb_shell_desc_queue",
                   {"RECORD_WORDS": record_words, "IS_RX": is_rx, "DESC_FIFO_DEPTH": depth},
                   {"RECORD_WORDS": record_words, "IS_RX": is_rx, "DEPTH": depth})


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("record_words", "is_rx", "depth"), [(16, 0, 16), (3, 1, 4), (1, 1, 16)])
def test_dma_front(tmp_path, monkeypatch, record_words, is_rx, depth):
    assert _passes(tmp_path, monkeypatch, f"dma_front{record_words}_{is_rx}_{depth}",
                   [SHELL_DIR / f for f in _FRONT], "cocotb_shell_dma_front",
                   {"RECORD_WORDS": record_words, "IS_RX": is_rx, "DESC_FIFO_DEPTH": depth},
                   {"RECORD_WORDS": record_words, "IS_RX": is_rx, "DEPTH": depth})


# per DMA top: the other files it needs, its cocotb module and test
_DMA = {"shell_tx_dma": (("shell_word_unpack.v", *_FRONT), "cocotb_shell_dma_engine", "tx_dma_random"),
        "shell_rx_dma": (("shell_span_pack.v", *_FRONT), "cocotb_shell_dma_engine", "rx_dma_random"),
        "afu_shell": (None, "cocotb_afu_shell", "afu_shell_links")}
_ENGINE = ("RECORD_WORDS", "STREAM_WORDS", "DESC_FIFO_DEPTH", "MAX_BURST")


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("top", "params"), [
    ("shell_tx_dma", dict(zip(_ENGINE + ("MAX_READS", "PRIME_BEATS"), (1, 16, 16, 16, 256, 64)))),
    ("shell_tx_dma", dict(zip(_ENGINE + ("MAX_READS", "PRIME_BEATS"), (3, 3, 4, 4, 8, 4)))),
    ("shell_rx_dma", dict(zip(_ENGINE + ("WBUF_DEPTH",), (1, 16, 16, 16, 64)))),
    ("shell_rx_dma", dict(zip(_ENGINE + ("WBUF_DEPTH",), (3, 3, 4, 4, 8)))),
    ("afu_shell", {"N_CORES": 0, "RECORD_WORDS": 1, "DESC_FIFO_DEPTH": 16, "MAX_BURST": 16, "MAX_READS": 256}),
    ("afu_shell", {"N_CORES": 1, "RECORD_WORDS": 3, "DESC_FIFO_DEPTH": 4, "MAX_BURST": 4, "MAX_READS": 16})])
def test_dma(tmp_path, monkeypatch, top, params):
    """The TX and RX DMA engines alone, and afu_shell around them (with the pass-through core
    where it has cores)."""
    others, module, testcase = _DMA[top]
    files = [SHELL_DIR / f for f in (f"{top}.v", *others)] if others else \
        sorted(shell_sources(), key=lambda f: f.stem != top)
    assert _passes(tmp_path, monkeypatch, top + "_".join(map(str, params.values())), files, module, params,
                   params, testcase=testcase)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("width", "depth", "fwd"), [(32, 16, 1), (1, 2, 1), (72, 4, 0), (524, 64, 0), (8, 2, 0)])
def test_fifo(tmp_path, monkeypatch, width, depth, fwd):
    assert _passes(tmp_path, monkeypatch, f"fifo{width}_{depth}_{fwd}", [SHELL_DIR / "shell_fifo.v"],
                   "cocotb_shell_fifo", {"DATA_WIDTH": width, "FIFO_DEPTH": depth, "FWD_WRITES": fwd},
                   {"DATA_WIDTH": width, "DEPTH": depth, "FWD_WRITES": fwd})


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
@pytest.mark.parametrize("top", ["rdma_start_check", "rdma_rx_ctrl"])
def test_rdma_receiver_checks(tmp_path, monkeypatch, top, mem_bytes):
    """The receivers' start checks, and their control side around them (with the stream table)."""
    files = _rdma(f"{top}.v", "rdma_rx_streams.v", "rdma_start_check.v")[:1 if top == "rdma_start_check" else 3]
    assert _passes(tmp_path, monkeypatch, f"{top}{mem_bytes:x}", files, f"cocotb_{top}",
                   {"MEM_BYTES": f"64'h{mem_bytes:x}"}, {"MEM_BYTES": mem_bytes})


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("top", ["rdma_rx_streams", "rdma_tx_stream"])
def test_rdma_streams(tmp_path, monkeypatch, top):
    assert _passes(tmp_path, monkeypatch, top, _rdma(f"{top}.v"), f"cocotb_{top}")


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("depth", "n_in", "n_out", "width"),
                         [(1024, 16, 16, 32), (256, 32, 16, 32), (64, 16, 32, 33), (32, 16, 2, 8)])
def test_rdma_wbuf(tmp_path, monkeypatch, depth, n_in, n_out, width):
    params = {"DEPTH": depth, "IN": n_in, "OUT": n_out, "WIDTH": width}
    assert _passes(tmp_path, monkeypatch, f"wbuf{depth}_{n_in}_{n_out}_{width}", _rdma("rdma_wbuf.v"),
                   "cocotb_rdma_wbuf", params, params)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("lanes", [1, 16, 32])
def test_rdma_crc32(tmp_path, monkeypatch, lanes):
    assert _passes(tmp_path, monkeypatch, f"crc32_{lanes}", _rdma("rdma_crc32.v"), "cocotb_rdma_crc32",
                   {"LANES": lanes}, {"LANES": lanes})


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("burst", [1, 4, 16])
def test_rdma_wr_lines_takes_a_line_a_cycle(tmp_path, monkeypatch, burst):
    assert _passes(tmp_path, monkeypatch, f"wr_lines{burst}", _rdma("afu/rdma_wr_lines.v"),
                   "cocotb_rdma_wr_lines", {"BURST": burst}, {"BURST": burst})


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("burst", [1, 4, 64])
def test_rdma_wr_coalesce(tmp_path, monkeypatch, burst):
    assert _passes(tmp_path, monkeypatch, f"wr_coalesce{burst}", _rdma("afu/rdma_wr_coalesce.v", "afu/rdma_wr_lines.v"),
                   "cocotb_rdma_wr_coalesce", {"BURST": burst}, {"BURST": burst})


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("record_words", "brch_in", "brch_out"), [(1, 0, 0), (16, 3, 255)])
def test_rdma_stream_csr(tmp_path, monkeypatch, record_words, brch_in, brch_out):
    params = {"RECORD_WORDS": record_words, "BRCH_IN_WORDS": brch_in, "BRCH_OUT_WORDS": brch_out}
    assert _passes(tmp_path, monkeypatch, f"stream_csr{record_words}_{brch_in}_{brch_out}",
                   _rdma("afu/rdma_stream_csr.v"), "cocotb_rdma_stream_csr", params, params)


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


@pytest.mark.xdist_group("shell_modules")
def test_rdma_reduce_csr(tmp_path, monkeypatch):
    assert _passes(tmp_path, monkeypatch, "reduce_csr", _rdma("afu/rdma_reduce_csr.v"), "cocotb_rdma_reduce_csr")


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("n_cores", "in_words", "out_words", "n_regs", "depth", "afu_id"),
                         [(0, 1, 1, 0, 16, None), (3, 10, 16, 5, 64, (0x0123456789ABCDEF, 0xFEDCBA9876543210)),
                          (255, 16, 1, 256, 4, None)])
def test_shell_csr(tmp_path, monkeypatch, n_cores, in_words, out_words, n_regs, depth, afu_id):
    from cocotb_shell_csr import reg_defaults
    from csr_tb import CSR
    id_l, id_h = afu_id or (CSR.afu_id_l, CSR.afu_id_h)
    defaults = sum(v << (32 * k) for k, v in enumerate(reg_defaults(n_regs, n_regs)))
    params = {"N_CORES": n_cores, "IN_RECORD_WORDS": in_words, "OUT_RECORD_WORDS": out_words, "N_REGS": n_regs,
              "DESC_FIFO_DEPTH": depth, "AFU_ID_L": f"64'h{id_l:x}", "AFU_ID_H": f"64'h{id_h:x}",
              "REG_DEFAULTS": f"8192'h{defaults:x}"}
    env = {**params, "AFU_ID_L": id_l, "AFU_ID_H": id_h, "REG_SEED": n_regs}
    del env["REG_DEFAULTS"]
    assert _passes(tmp_path, monkeypatch, f"shell_csr{n_cores}_{n_regs}", [SHELL_DIR / "shell_csr.v"],
                   "cocotb_shell_csr", params, env)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("reads", [4, 64])
def test_rdma_rd_arb(tmp_path, monkeypatch, reads):
    assert _passes(tmp_path, monkeypatch, f"rd_arb{reads}", [*_rdma("afu/rdma_rd_arb.v"), SHELL_DIR / "shell_fifo.v"],
                   "cocotb_rdma_rd_arb", {"READS": reads}, {"READS": reads})


@pytest.mark.xdist_group("shell_modules")
def test_rdma_wr_arb(tmp_path, monkeypatch):
    assert _passes(tmp_path, monkeypatch, "wr_arb", _rdma("afu/rdma_wr_arb.v"), "cocotb_rdma_wr_arb")


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("reads", "wr_burst"), [(64, 4), (4, 1), (16, 64)])
def test_rdma_mem_adapter(tmp_path, monkeypatch, reads, wr_burst):
    params = {"READS": reads, "WR_BURST": wr_burst}
    assert _passes(tmp_path, monkeypatch, f"mem_adapter{reads}_{wr_burst}",
                   [*_rdma("afu/rdma_mem_adapter.v", "afu/rdma_wr_coalesce.v", "afu/rdma_wr_lines.v"),
                    SHELL_DIR / "shell_fifo.v"], "cocotb_rdma_mem_adapter", params, params)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("lanes", "in_words", "out_words", "bi_words", "bo_words"),
                         [(1, 3, 2, 0, 0), (1, 1, 16, 2, 3), (16, 10, 16, 4, 1), (32, 1, 5, 0, 32)])
def test_rdma_stream_bind(tmp_path, monkeypatch, lanes, in_words, out_words, bi_words, bo_words):
    params = {"LANES": lanes, "IN_WORDS": in_words, "OUT_WORDS": out_words, "BI_WORDS": bi_words, "BO_WORDS": bo_words}
    assert _passes(tmp_path, monkeypatch, "stream_bind" + "_".join(map(str, params.values())),
                   _rdma("afu/rdma_stream_bind.v", "rdma_stream_ser.v", "rdma_stream_des.v"), "cocotb_rdma_stream_bind",
                   params, params)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("lanes", "window", "vc_buf", "timeout"), [(1, 8, 2, 300), (4, 16, 4, 200)])
def test_rdma_link_tx(tmp_path, monkeypatch, lanes, window, vc_buf, timeout):
    params = {"LANES": lanes, "WINDOW": window, "VC_BUF": vc_buf, "TIMEOUT": timeout}
    for k, v in params.items():
        monkeypatch.setenv(k, str(v))
    assert run_cocotb(f"link_tx{lanes}_{window}_{vc_buf}", "rdma_link_tx", _rdma("rdma_link_tx.v", "rdma_crc32.v"),
                      "cocotb_rdma_link", parameters=params, testcase="link_tx_random", tmp_path=tmp_path) == (1, 0)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("lanes", "vc_buf"), [(1, 2), (4, 4)])
def test_rdma_link_rx(tmp_path, monkeypatch, lanes, vc_buf):
    params = {"LANES": lanes, "VC_BUF": vc_buf}
    for k, v in params.items():
        monkeypatch.setenv(k, str(v))
    assert run_cocotb(f"link_rx{lanes}_{vc_buf}", "rdma_link_rx", _rdma("rdma_link_rx.v", "rdma_crc32.v"),
                      "cocotb_rdma_link", parameters=params, testcase="link_rx_random", tmp_path=tmp_path) == (1, 0)


@pytest.mark.xdist_group("shell_modules")
def test_rdma_reduce_cpl(tmp_path, monkeypatch):
    assert _passes(tmp_path, monkeypatch, "reduce_cpl", _rdma("afu/rdma_reduce_cpl.v"), "cocotb_rdma_reduce_cpl")


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize(("bin_bits", "ring_lines", "chunk_lines"), [(2, 8, 4), (4, 16, 4), (3, 64, 16)])
def test_rdma_sort_stage(tmp_path, monkeypatch, bin_bits, ring_lines, chunk_lines):
    """The sort's single-pass stage: its five cocotb tests (a fast engine, the counts' puts after
    the bins' rests, a slow engine that fills the rings, a late write dropped, a spill's two
    writers in one region never aliased)."""
    params = {"BIN_BITS": bin_bits, "RING_LINES": ring_lines, "CHUNK_LINES": chunk_lines}
    for k, v in params.items():
        monkeypatch.setenv(k, str(v))
    assert run_cocotb(f"sort_stage{bin_bits}_{ring_lines}_{chunk_lines}", "rdma_sort_stage",
                      _rdma("afu/rdma_sort_stage.v"), "cocotb_rdma_sort_stage", parameters=params,
                      tmp_path=tmp_path) == (5, 0)


@pytest.mark.xdist_group("shell_modules")
@pytest.mark.parametrize("depth_bits", [10, 6])
def test_rdma_seq(tmp_path, monkeypatch, depth_bits):
    """The card's sequencer: random programs beside random host traffic, and each way a run stops."""
    monkeypatch.setenv("DEPTH_BITS", str(depth_bits))
    assert run_cocotb(f"seq{depth_bits}", "rdma_seq", _rdma("afu/rdma_seq.v"), "cocotb_rdma_seq",
                      parameters={"DEPTH_BITS": depth_bits}, tmp_path=tmp_path) == (2, 0)
