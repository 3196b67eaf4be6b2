"""Peer-device (GPU) memory on the simulated PCIe: P2F/F2P moved by host-initiated and
card-initiated DMA, register mode, the CPU-staged path; exact bytes for every size and
alignment, guards, concurrency with host DMA and runs, the controller's refusals."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from spgen import runtime
from spgen.runtime import AfuError

pytestmark = pytest.mark.xdist_group("runtime")
B = 1 << 32
GUARD = 256
SIZES = [4 << i for i in range(17)] + [12, 36, 100, 1028, 4100, 65540]   # 4 B .. 256 KiB and odd ones


def _fill_fpga(card, addr, n, value):
    h = card.alloc(n)
    h[:] = value
    card.dma(addr, h, n, "H2F")


def _read_fpga(card, addr, n):
    h = card.alloc(n)
    card.dma(h, addr, n, "F2H")
    return h.copy()


def _p2f_f2p(card, move, sizes, seed):
    """move(dst, src, n, kind) for each size at random 4-byte offsets on both sides;
    every byte of the destination and its guards checked, in both directions."""
    rng = np.random.default_rng(seed)
    top = max(sizes) + 2 * GUARD + 64
    peer_src, peer_dst = card.peer_alloc(top), card.peer_alloc(top)
    for n in sizes:
        data = rng.integers(0, 256, n, dtype=np.uint8)
        po, fo = GUARD + 4 * int(rng.integers(0, 16)), 4 * int(rng.integers(0, 16))
        fa = B + 0x40000 + fo
        # P2F: peer -> FPGA memory B, guards around the destination
        peer_src.write(data, po)
        _fill_fpga(card, fa - GUARD, n + 2 * GUARD, 0xC3)
        move(fa, peer_src.bus + po, n, "P2F")
        got = _read_fpga(card, fa - GUARD, n + 2 * GUARD)
        assert np.array_equal(got[GUARD:GUARD + n], data), ("P2F", n, po, fo)
        assert (got[:GUARD] == 0xC3).all() and (got[GUARD + n:] == 0xC3).all(), ("P2F guard", n)
        # F2P: FPGA memory B -> peer, guards around the destination
        guard = np.full(top, 0x5A, np.uint8)
        peer_dst.write(guard)
        move(peer_dst.bus + po, fa, n, "F2P")
        back = peer_dst.read()
        assert np.array_equal(back[po:po + n], data), ("F2P", n, po, fo)
        assert (back[:po] == 0x5A).all() and (back[po + n:] == 0x5A).all(), ("F2P guard", n)
    assert card.sim_stats()["bus_errors"] == 0


def test_peer_memory_is_what_the_host_wrote(card):
    p = card.peer_alloc(4096)
    assert p.bus >= 0x3800_0000_0000
    assert (p.read() == 0).all()
    p.write(np.arange(1024, dtype=np.uint32), 0)
    assert np.array_equal(p.read(4096).view(np.uint32), np.arange(1024, dtype=np.uint32))
    q = card.peer_alloc(64)
    assert q.bus >= p.bus + 4096   # separate buffers never overlap
    with pytest.raises(AfuError) as e:
        p.read(8, 4092)
    assert e.value.name == "NOT_PREPARED"
    with pytest.raises(AfuError) as e:
        card.peer_alloc(6)
    assert e.value.name == "BAD_COUNT"


def test_host_initiated_every_size_and_alignment(card):
    _p2f_f2p(card, lambda d, s, n, k: card.dma(d, s, n, k), SIZES, seed=11)


def test_card_initiated_every_size_and_alignment(card):
    def move(d, s, n, k):
        r = card.card_dma(d, s, n, k)
        assert r.transfers == 1 and 0 < r.last_cycles <= r.seq_cycles
    _p2f_f2p(card, move, SIZES, seed=12)


def test_card_initiated_pattern_builds_every_descriptor(card):
    # 64 transfers of 100 bytes, gathered from every 4 KiB of the peer into a packed block.
    peer = card.peer_alloc(64 * 4096)
    rng = np.random.default_rng(5)
    data = rng.integers(0, 256, 64 * 4096, dtype=np.uint8)
    peer.write(data)
    _fill_fpga(card, 0x80000 - GUARD, 6400 + 2 * GUARD, 0xEE)
    r = card.card_dma(0x80000, peer.bus + 8, 100, "P2F", repeat=64, src_step=4096, dst_step=100)
    assert r.transfers == 64 and r.seq_cycles >= 64 * 100 // 64
    got = _read_fpga(card, 0x80000 - GUARD, 6400 + 2 * GUARD)
    want = np.concatenate([data[k * 4096 + 8:k * 4096 + 108] for k in range(64)])
    assert np.array_equal(got[GUARD:GUARD + 6400], want)
    assert (got[:GUARD] == 0xEE).all() and (got[GUARD + 6400:] == 0xEE).all()
    # and scattered back the other way
    out = card.peer_alloc(64 * 4096)
    card.card_dma(out.bus, 0x80000, 100, "F2P", repeat=64, src_step=100, dst_step=4096)
    back = out.read().reshape(64, 4096)
    assert np.array_equal(back[:, :100].reshape(-1), want) and (back[:, 100:] == 0).all()


def test_card_descriptors_are_not_counted_as_the_hosts(card):
    p = card.peer_alloc(4096)
    before = [card.read_reg(r) >> 32 for r in ("TX_STATUS", "RX_STATUS")]
    p2p_before = card.read_reg("P2P_STATUS") >> 32
    card.card_dma(0x1000, p, 4096, "P2F", repeat=5, src_step=0, dst_step=0)
    assert [card.read_reg(r) >> 32 for r in ("TX_STATUS", "RX_STATUS")] == before
    assert (card.read_reg("P2P_STATUS") >> 32) - p2p_before == 5
    card.dma(0x2000, p, 4096, "P2F")   # the host's own requests still complete by DONE_COUNT
    assert [card.read_reg(r) >> 32 for r in ("TX_STATUS", "RX_STATUS")] == [b + 1 for b in before]


def test_concurrent_with_host_dma_and_runs(card):
    rng = np.random.default_rng(7)
    peer = card.peer_alloc(1 << 20)
    pdata = rng.integers(0, 256, 1 << 20, dtype=np.uint8)
    peer.write(pdata)
    errors: list[BaseException] = []

    def card_side():
        try:
            for i in range(6):   # gathers of 16 KiB pieces into memory B, card-initiated
                card.card_dma(B + i * (1 << 20), peer, 16384, "P2F", repeat=16, src_step=65536, dst_step=16384)
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    t = threading.Thread(target=card_side)
    t.start()
    h, back = card.alloc(1 << 18), card.alloc(1 << 18)
    for i in range(8):             # host traffic meanwhile: H2F, F2H and loop-back runs
        h[:] = rng.integers(0, 256, h.nbytes, dtype=np.uint8)
        req = card.dma_async(0x100000 * i, h, h.nbytes, "H2F")
        req.wait()
        res = card.run(0x100000 * i, 0x800000 + 0x100000 * i, h.nbytes // 4)   # 4-byte records in loop-back
        assert res.total_cycles > 0
        card.dma(back, 0x800000 + 0x100000 * i, back.nbytes, "F2H")
        assert np.array_equal(back, h), i
    t.join()
    assert not errors, errors
    want = np.concatenate([pdata[k * 65536:k * 65536 + 16384] for k in range(16)])
    for i in range(6):
        assert np.array_equal(_read_fpga(card, B + i * (1 << 20), 1 << 18), want), i
    assert card.sim_stats()["bus_errors"] == 0


def test_card_sequence_waits_for_host_descriptors_in_flight(card):
    rng = np.random.default_rng(8)
    # 32 MiB: about a million card cycles, so the engines are still busy when the next call
    # comes even if the host thread loses its core for a while on a loaded machine
    h = card.alloc(32 << 20)
    h[:] = rng.integers(0, 256, h.nbytes, dtype=np.uint8)
    p = card.peer_alloc(4096)
    p.write(rng.integers(0, 256, 4096, dtype=np.uint8))
    req = card.dma_async(0x0, h, h.nbytes, "H2F")          # 32 MiB for the engines
    # dma_async returns once the request is queued; the runtime's engine thread pushes its
    # descriptors a moment later. Only then is there something on the card to wait behind.
    deadline = time.monotonic() + 30
    while not card.read_reg_bits("TX_STATUS") & 1 and not req.done:
        assert time.monotonic() < deadline, "the TX engine never started the 32 MiB request"
        time.sleep(0.0005)
    r = card.card_dma(B, p, 4096, "P2F")                   # queued behind it on the card
    assert r.wait_cycles > 1000 and r.last_cycles < r.seq_cycles
    assert req.wait()
    assert np.array_equal(_read_fpga(card, 0x0, h.nbytes), h)
    assert np.array_equal(_read_fpga(card, B, 4096), p.read())


def test_controller_refuses_bad_transfers_and_moves_nothing(card):
    p = card.peer_alloc(4096)
    p.write(np.full(4096, 7, np.uint8))
    _fill_fpga(card, 0x3000, 256, 0x11)
    card.set_checks(False)   # let the card's controller see them
    try:
        for dst, src, n, code in ((0x3000, p.bus, 6, "ERR_BAD_LENGTH"),
                                  (0x3002, p.bus, 8, "ERR_BAD_ALIGN"),
                                  (0xFFFF_FFF0, p.bus, 64, "ERR_ADDR_RANGE"),    # past memory A
                                  (0x3000, 0x2_0000_0000, 64, "ERR_ADDR_RANGE")):  # no memory there
            with pytest.raises(AfuError) as e:
                card.card_dma(dst, src, n, "P2F" if src >= 1 << 40 else "F2F")
            assert e.value.name == "DEVICE" and code in str(e.value), (code, str(e.value))
    finally:
        card.set_checks(True)
    assert (_read_fpga(card, 0x3000, 256) == 0x11).all()
    assert card.read_reg("TX_ERROR") == 0 and card.read_reg("RX_ERROR") == 0   # the engines saw nothing
    card.dma(0x3000, p, 64, "P2F")      # and the host path is unharmed
    assert (_read_fpga(card, 0x3000, 64) == 7).all()
    with pytest.raises(AfuError) as e:  # the runtime's own check: not a registered peer range
        card.card_dma(0x3000, p.bus + 4096, 4, "P2F")
    assert e.value.name == "NOT_PREPARED"


def test_controller_registers_abort_dropped_and_reset(card):
    p = card.peer_alloc(4096)
    card.write_reg("P2P_SRC", p.bus | (1 << 63))
    card.write_reg("P2P_DST", 0x10000)
    card.write_reg("P2P_LEN", 64)
    card.write_reg("P2P_PATTERN", 100000)
    card.write_reg("P2P_STEP", 0)
    card.write_reg("P2P_CTRL", 1)
    card.write_reg("P2P_CTRL", 1)                       # a second GO while busy
    st = card.read_reg("P2P_STATUS")
    assert st & 1 and st & 2                            # BUSY, DROPPED
    card.write_reg("P2P_CTRL", 2)                       # ABORT: no further transfer
    while card.read_reg("P2P_STATUS") & 1:
        pass
    done = card.read_reg("P2P_STATUS") >> 32
    assert 0 < done < 100000
    card.write_reg("P2P_CTRL", 1)                       # again, ended by a datapath reset
    card.read_reg("P2P_STATUS")
    card.write_reg("SHELL_CTRL", 1)
    for _ in range(5):
        if not card.read_reg("P2P_STATUS") & 1:
            break
    assert not card.read_reg("P2P_STATUS") & 1
    card.dma(0x20000, p, 64, "P2F")                    # the shell works on


def test_cpu_staged_path(card):
    rng = np.random.default_rng(9)
    p, q = card.peer_alloc(1 << 16), card.peer_alloc(1 << 16)
    data = rng.integers(0, 256, 1 << 16, dtype=np.uint8)
    p.write(data)
    t_in = card.peer_staged(0x50000, p, 1 << 16, "P2F")
    assert np.array_equal(_read_fpga(card, 0x50000, 1 << 16), data)
    t_out = card.peer_staged(q, 0x50000, 1 << 16, "F2P")
    assert np.array_equal(q.read(), data)
    direct = card.card_dma(0x60000, p, 1 << 16, "P2F").elapsed_ns
    assert t_in > direct and t_out > 0
    with pytest.raises(AfuError) as e:
        card.peer_staged(0x50000, 0x0, 64, "F2F")
    assert e.value.name == "BAD_TYPE"


def test_peer_model_parameters_change_the_timing(loopback_lib):
    def latency(params):
        # The card clocks by the host's wall time between calls, so a transfer starts at a
        # cycle the host's pace decides and may meet a DDR refresh or a PCIe credit update:
        # the least of a few is the undisturbed latency.
        with runtime.open("loopback", params=params) as c:
            p = c.peer_alloc(64)
            return (min(c.card_dma(0x0, p, 4, "P2F").last_cycles for _ in range(5)),
                    min(c.card_dma(p, 0x0, 4, "F2P").last_cycles for _ in range(5)))
    base_in, base_out = latency(None)
    slow_in, slow_out = latency({"peer_read_latency_ns": 2650})
    assert slow_in - base_in == pytest.approx(2000 / 5, abs=2)   # 200 MHz: 5 ns a cycle
    assert slow_out == base_out                                   # writes are posted
    with runtime.open("loopback", params={"peer_pcie_gen": 1, "peer_pcie_lanes": 1}) as c:
        p = c.peer_alloc(1 << 20)                                 # a Gen1 x1 peer: 0.25 GB/s raw
        r = c.card_dma(0x0, p, 1 << 20, "P2F")
        assert 0.2 < (1 << 20) / (r.last_cycles * 5) < 0.25
    with pytest.raises(AfuError) as e:
        runtime.open("loopback", params={"peer_pcie_gen": 6})
    assert "peer_pcie_gen must be a whole number 1..5" in str(e.value)


def test_a_cuda_pointer_needs_cuda_device_memory(card):
    core = card._live()
    code, msg, _ = core.ext.peer_register(core.handle, 0x1234_0000, 64)
    assert code in (core.ext.CODES["NOT_SUPPORTED"], core.ext.CODES["INVALID_PARAM"])
    assert "CUDA" in msg


def test_bench_p2p_quick(loopback_lib, tmp_path, capsys):
    from spgen.cli import main

    out, png = tmp_path / "p2p.json", tmp_path / "p2p.png"
    assert main(["bench", "p2p", "--quick", "--no-progress", "--json", str(out), "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "1.08 us" in text and "PEACH2" in text and "peer_read_latency_ns=650" in text
    doc = json.loads(out.read_text())
    assert doc["benchmark"] == "p2p" and doc["key"] == ["mode", "type", "bytes"]
    recs = {(r["mode"], r["type"], r["bytes"]): r for r in doc["records"]}
    assert {m for m, _, _ in recs} == {"card", "reg", "host", "staged"}
    assert all(r["integrity_errors"] == 0 for r in recs.values())
    for k in ("P2F", "F2P"):   # what the paths cost, in the order the published designs found
        lat = [recs[(m, k, 4)]["median_ns"] for m in ("card", "reg", "host", "staged")]
        assert lat == sorted(lat), (k, lat)
    assert recs[("card", "F2P", 4)]["median_ns"] < recs[("card", "P2F", 4)]["median_ns"]   # posted vs read
    assert doc["model"]["peer_read_gbytes_per_s"] == 4.2
    assert png.stat().st_size > 1000


def test_bench_p2p_rejects_bad_input(capsys):
    from spgen.cli import main

    assert main(["bench", "p2p", "--sizes", "6"]) == 1
    assert "multiple of 4" in capsys.readouterr().err
    assert main(["bench", "p2p", "--modes", "telepathy"]) == 1
    assert "unknown mode" in capsys.readouterr().err


def test_example_gpu_fpga_p2p(loopback_lib):
    script = Path(__file__).parents[2] / "examples" / "gpu_fpga_p2p" / "gpu_fpga_p2p.py"
    out = subprocess.run([sys.executable, str(script), "--size", "65536", "--simulated-gpu"],
                         check=False, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "simulated GPU: 65536 B GPU->FPGA" in out.stdout and "round trip intact" in out.stdout


def test_cuda_path_against_a_stand_in_driver(loopback_lib, tmp_path):
    # The GPU test (test_p2p_gpu.py) needs a GPU; this runs the same CUDA path of the
    # simulation (driver loading, pointer checks, contexts, partial-beat copies) over host
    # memory behind a stand-in libcuda, in a process of its own.
    data = Path(__file__).parent / "data"
    lib = tmp_path / "libcuda.so.1"
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-Wl,-soname,libcuda.so.1", "-o", str(lib),
                    str(data / "fake_libcuda.c")], check=True)
    out = subprocess.run([sys.executable, str(data / "fake_cuda_run.py"), str(lib)],
                         check=False, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "fake CUDA path ok" in out.stdout
