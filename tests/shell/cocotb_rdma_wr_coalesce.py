"""cocotb test of the word engine's write coalescer (rdma_wr_coalesce, with rdma_wr_lines) beside
an Avalon-MM memory model: every word lands, bursts are legal, flush and pending keep "done"
meaning "in memory"."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset


async def memory(dut, rng: random.Random, mem: dict, stats: dict, burst: int):
    """The memory side: random waitrequest; each burst's beats at consecutive lines, write held
    through the burst, at most BURST beats; enabled bytes written."""
    left = line = 0
    while True:
        await FallingEdge(dut.clk)
        dut.avm_waitrequest.value = int(rng.random() < 0.3)
        await ReadOnly()
        if left:
            assert int(dut.avm_write.value), "write dropped inside a burst"
        if not int(dut.avm_write.value) or int(dut.avm_waitrequest.value):
            continue
        if not left:
            addr, left = int(dut.avm_address.value), int(dut.avm_burstcount.value)
            assert addr % 64 == 0 and 1 <= left <= burst, f"burst of {left} at {addr:#x}"
            line = addr // 64
            stats["bursts"] += 1
            stats["longest"] = max(stats["longest"], left)
        data, be = int(dut.avm_writedata.value), int(dut.avm_byteenable.value)
        for b in range(64):
            if be >> b & 1:
                mem[line * 64 + b] = data >> (8 * b) & 0xFF
        line, left = line + 1, left - 1


@cocotb.test()
async def wr_coalesce_random(dut):
    """Runs of consecutive words (line and burst boundaries crossed at any word), jumps,
    rewrites, random gaps and waitrequest; a flush ends each stream, and when pending falls
    every word written before it is in memory."""
    burst = int(os.environ["BURST"])
    rng = random.Random(burst)
    await reset(dut, ["wr_address", "wr_write", "wr_writedata", "flush", "avm_waitrequest"])
    mem: dict[int, int] = {}
    stats = {"bursts": 0, "longest": 0}
    cocotb.start_soon(memory(dut, rng, mem, stats, burst))
    want: dict[int, int] = {}
    words = 0
    for stream in range(60):
        addr = 4 * rng.randrange(1 << 14) + rng.choice([0, 1 << 33])
        for _ in range(rng.choice([1, 5, 16, 40, rng.randrange(1, 300), 1100])):
            if rng.random() < 0.03:
                addr = 4 * rng.randrange(1 << 14)     # a jump (or back over written words)
            value = rng.getrandbits(32)
            while True:
                await FallingEdge(dut.clk)
                v = rng.random() < 0.8
                dut.wr_write.value, dut.wr_address.value, dut.wr_writedata.value = int(v), addr, value
                await ReadOnly()
                if v and not int(dut.wr_waitrequest.value):
                    break
            for b in range(4):
                want[addr + b] = value >> (8 * b) & 0xFF
            addr += 4
            words += 1
        # the stream's end: flush until nothing is pending, then all of it is in memory
        await FallingEdge(dut.clk)
        dut.wr_write.value, dut.flush.value = 0, 1
        for wait in range(10000):
            await ReadOnly()
            if not int(dut.pending.value):
                break
            await FallingEdge(dut.clk)
        else:
            raise AssertionError(f"stream {stream}: pending stuck")
        missing = [a for a, v in want.items() if mem.get(a) != v]
        assert not missing, f"stream {stream}: {len(missing)} bytes not in memory, pending low; {missing[0]:#x}"
        await FallingEdge(dut.clk)
        dut.flush.value = 0
    # (a jump every 33 words on average: bursts of 64 lines are rare here)
    assert words > 5000 and stats["longest"] >= min(burst, 8), (words, stats)
