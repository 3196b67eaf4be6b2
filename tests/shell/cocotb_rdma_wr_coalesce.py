"""cocotb test of the word engine's write coalescer (rdma_wr_coalesce, with rdma_wr_lines) beside
an Avalon-MM memory model: every word lands, bursts are legal, flush and pending keep "done"
meaning "in memory"."""
from __future__ import annotations

import os
import random

import cocotb
from avm_tb import flush, write_memory, write_word
from words_tb import reset


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
    cocotb.start_soon(write_memory(dut, rng, mem, stats, burst))
    want: dict[int, int] = {}
    words = 0
    for stream in range(60):
        addr = 4 * rng.randrange(1 << 14) + rng.choice([0, 1 << 33])
        for _ in range(rng.choice([1, 5, 16, 40, rng.randrange(1, 300), 1100])):
            if rng.random() < 0.03:
                addr = 4 * rng.randrange(1 << 14)     # a jump (or back over written words)
            value = rng.getrandbits(32)
            await write_word(dut, rng, addr, value)
            for b in range(4):
                want[addr + b] = value >> (8 * b) & 0xFF
            addr += 4
            words += 1
        # the stream's end: flush until nothing is pending, then all of it is in memory
        await flush(dut, "flush", "pending", f"stream {stream}")
        missing = [a for a, v in want.items() if mem.get(a) != v]
        assert not missing, f"stream {stream}: {len(missing)} bytes not in memory, pending low; {missing[0]:#x}"
    # (a jump every 33 words on average: bursts of 64 lines are rare here)
    assert words > 5000 and stats["longest"] >= min(burst, 8), (words, stats)
