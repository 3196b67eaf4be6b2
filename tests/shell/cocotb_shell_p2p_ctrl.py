"""cocotb test of the card-initiated DMA controller (P2P_* registers) against a model."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from cocotb_shell_desc_queue import REGIONS, region
from words_tb import reset

ERR_BAD_LENGTH, ERR_BAD_ALIGN, ERR_ADDR_RANGE, ERR_RECORD_WIDTH = 1, 2, 3, 4
SRC, DST, LEN, PATTERN, STEP, CTRL, STATUS = (0x2000 + 8 * k for k in range(7))
M64, M32 = (1 << 64) - 1, (1 << 32) - 1


def transfers(p: dict, rec_bytes: int) -> tuple[list[tuple[int, int, int]], int]:
    """The spec's sequence: transfer k from SRC + k*SRC_STEP to DST + k*DST_STEP while each
    passes the engines' checks; (the transfers issued, ERR_* of the one refused or 0)."""
    out = []
    ln, ss, ds = p["len"], p["step"] & M32, p["step"] >> 32
    for k in range(max(p["count"], 1)):
        s, d = (p["src"] + k * ss) & M64, (p["dst"] + k * ds) & M64
        if ln == 0 or ln % 4:
            return out, ERR_BAD_LENGTH
        if s % 4 or d % 4 or ss % 4 or ds % 4:
            return out, ERR_BAD_ALIGN
        for a in (s, d):
            if region(a) is None or region(a + ln - 1) != region(a):
                return out, ERR_ADDR_RANGE
        if ln % rec_bytes:
            return out, ERR_RECORD_WIDTH
        out.append((s, d, ln))
    return out, 0


def pattern(rng: random.Random, rec_bytes: int) -> dict:
    r = rng.random
    count = rng.choice([0, 1, 2, 3, rng.randrange(1, 12)])
    ln = rec_bytes * rng.choice([1, 2, rng.randrange(1, 64)])
    if r() < 0.1:
        ln = rng.choice([0, ln + 2, ln + 4, ln + rec_bytes // 2])
    p = {"count": count, "len": ln}
    for k in ("src", "dst"):
        base, size = REGIONS[rng.randrange(3)]
        st = rng.choice([0, ln, ln + 4 * rng.randrange(100), 4 * rng.randrange(1 << 20)])
        if r() < 0.4:   # crossing the region's end at a random transfer of the sequence
            a = base + size - ln - st * rng.randrange(max(count, 1)) + rng.choice([-4, 0, 4])
        else:
            a = base + 4 * rng.randrange(1 << 16)
        if r() < 0.04:
            a += rng.randrange(1, 4)
        if r() < 0.04:
            st += rng.randrange(1, 4)
        p[k], p[k + "_step"] = a & M64, st & M32
    p["step"] = p["src_step"] | p["dst_step"] << 32
    return p


class Port:
    """The fabric descriptor port: random acceptance, completion latency and aborts."""

    def __init__(self, dut, rng: random.Random):
        self.dut, self.rng = dut, rng
        self.fired: list[tuple[int, int, int]] = []
        self.aborted = self.xfer_done = self.seq_done = 0
        self.hold = False     # keeps the transfer in the engines (a long one)

    async def run(self):
        dut, rng, wait = self.dut, self.rng, -1
        while True:
            await FallingEdge(dut.clk)
            dut.s_done.value = dut.s_aborted.value = 0
            dut.m_desc_ready.value = int(rng.random() < 0.6)
            if wait == 0 and not self.hold:
                ab = int(rng.random() < 0.05)
                dut.s_done.value, dut.s_aborted.value = 1, ab
                self.aborted += ab
            if wait != 0 or not self.hold:
                wait -= 1
            await ReadOnly()
            self.xfer_done += int(dut.xfer_done.value)
            self.seq_done += int(dut.seq_done.value)
            if int(dut.m_desc_valid.value) and int(dut.m_desc_ready.value):
                assert wait < 0, "a descriptor issued while the previous one is in the engines"
                self.fired.append((int(dut.m_desc_src.value), int(dut.m_desc_dst.value),
                                   int(dut.m_desc_len.value)))
                wait = rng.randrange(2, 20)


async def write(dut, addr: int, data: int) -> None:
    await FallingEdge(dut.clk)
    dut.mmio_wr_valid.value, dut.mmio_wr_addr.value, dut.mmio_wr_data.value = 1, addr, data
    await FallingEdge(dut.clk)
    dut.mmio_wr_valid.value = 0


async def read(dut, addr: int) -> int:
    await FallingEdge(dut.clk)
    dut.mmio_rd_valid.value, dut.mmio_rd_addr.value = 1, addr
    await FallingEdge(dut.clk)
    dut.mmio_rd_valid.value = 0
    await ReadOnly()
    return int(dut.mmio_rd_resp_data.value)


@cocotb.test()
async def p2p_ctrl_random(dut):
    """Random patterns (crossing a region's end at a random transfer, bad lengths, alignment,
    records), ABORT and GO while busy, engine aborts: the descriptors issued, STATUS after."""
    n_cores, words = int(os.environ["N_CORES"]), int(os.environ["IN_WORDS"])
    rec_bytes = 4 * words if n_cores else 4
    rng = random.Random(n_cores * 100 + words)
    await reset(dut, ["mmio_wr_valid", "mmio_rd_valid", "m_desc_ready", "s_done", "s_aborted"])
    port = Port(dut, rng)
    cocotb.start_soon(port.run())
    done_count = 0
    seen: dict[int, int] = {}
    for n in range(150):
        p = pattern(rng, rec_bytes)
        for a, k in ((SRC, "src"), (DST, "dst"), (LEN, "len"), (PATTERN, "count"), (STEP, "step")):
            await write(dut, a, p[k])
        for a, k in ((SRC, "src"), (DST, "dst"), (LEN, "len"), (PATTERN, "count"), (STEP, "step")):
            assert await read(dut, a) == p[k], f"sequence {n}: register {a:#x} read back"
        want, err = transfers(p, rec_bytes)
        fired0, aborted0, xd0, sd0 = len(port.fired), port.aborted, port.xfer_done, port.seq_done
        abort = rng.random() < 0.15
        dropped = rng.random() < 0.2
        # held, a sequence that is busy after a while stays so until released: no race
        # between reading BUSY and the GO or ABORT written after it
        port.hold = abort or dropped
        await write(dut, CTRL, 1)
        for _ in range(rng.randrange(1, 30)):
            await FallingEdge(dut.clk)
        if dropped:
            dropped = bool(await read(dut, STATUS) & 1)   # a GO while busy, if it still is
            if dropped:
                await write(dut, CTRL, 1)
        if abort:
            abort = bool(await read(dut, STATUS) & 1)
            if abort:
                await write(dut, CTRL, 2)
        port.hold = False
        for _ in range(100000):
            if port.seq_done > sd0:
                break
            await FallingEdge(dut.clk)
        assert port.seq_done == sd0 + 1, f"sequence {n}: seq_done pulsed {port.seq_done - sd0} times"
        fired = port.fired[fired0:]
        st = await read(dut, STATUS)
        aborted = port.aborted - aborted0
        assert fired == want[:len(fired)], f"sequence {n} {p}: issued {fired}, expected {want}"
        if aborted:    # an engine reset ends the sequence at that transfer
            assert aborted == 1 and (st >> 8) & 0xFF == 0
        elif abort:
            assert (st >> 8) & 0xFF == 0, f"sequence {n}: ERROR after ABORT"
        else:
            assert len(fired) == len(want), f"sequence {n} {p}: {len(fired)} of {len(want)} issued"
            assert (st >> 8) & 0xFF == err, f"sequence {n} {p}: ERROR {(st >> 8) & 0xFF} != {err}"
        done_count += len(fired) - aborted
        assert port.xfer_done - xd0 == len(fired) - aborted
        assert st & 1 == 0 and (st >> 1) & 1 == int(dropped), f"sequence {n}: STATUS {st:#x}"
        assert st >> 32 == done_count, f"sequence {n}: DONE_COUNT {st >> 32} != {done_count}"
        seen[err] = seen.get(err, 0) + 1
    codes = {0, ERR_BAD_LENGTH, ERR_BAD_ALIGN, ERR_ADDR_RANGE} | ({ERR_RECORD_WIDTH}
                                                                  if rec_bytes > 4 else set())
    assert all(seen.get(c, 0) >= 5 for c in codes), f"too few sequences of a kind: {seen}"
