"""cocotb test of the word engine's memory adapter (rdma_mem_adapter) beside an Avalon-MM memory
model: 32-bit words to 64-byte lines and back, a line read once per unbroken run of requests in
it, at most READS words in flight, words written land after a flush."""
from __future__ import annotations

import os
import random

import cocotb
from avm_tb import flush, line_of, read_memory, write_memory, write_word
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset

INPUTS = ("rd_address", "rd_read", "wr_address", "wr_write", "wr_writedata", "wr_flush",
          "avm_rd_waitrequest", "avm_rd_readdata", "avm_rd_readdatavalid", "avm_wr_waitrequest")
REGION = 1 << 12      # words of the region the test reads and writes (a few lines reused often)


def fill(a: int) -> int:
    """Memory bytes never written."""
    return (a * 0x9E3779B1 >> 13) & 0xFF


def word(mem: dict, a: int) -> int:
    return line_of(mem, a // 64, fill) >> (8 * (a % 64)) & 0xFFFFFFFF


async def read_words(dut, rng: random.Random, mem: dict, base: int, n: int, p_req: float) -> tuple[int, int, int]:
    """Runs of consecutive words (and jumps), a request held until taken; every word checked
    as it returns. Returns (words, line reads the model expects, most words in flight)."""
    want: list[int] = []
    a = base
    issued = expect_reads = deepest = 0
    prev_line = None          # the line of the request taken last cycle
    while issued < n or want:
        await FallingEdge(dut.clk)
        if rng.random() < 0.05:
            a = base + 4 * rng.randrange(REGION)
        req = issued < n and rng.random() < p_req
        dut.rd_read.value, dut.rd_address.value = int(req), a
        await ReadOnly()
        if int(dut.rd_readdatavalid.value):
            assert want, "a word nobody asked for"
            got, w = int(dut.rd_readdata.value), want.pop(0)
            assert got == w, f"word {issued - len(want) - 1}: {got:#x} != {w:#x}"
        taken = req and not int(dut.rd_waitrequest.value)
        if taken:
            expect_reads += prev_line != a // 64
            want.append(word(mem, a))
            issued += 1
            a += 4
        deepest = max(deepest, len(want))
        prev_line = (a - 4) // 64 if taken else None
    return issued, expect_reads, deepest


@cocotb.test()
async def mem_adapter_random(dut):
    """Rounds of word writes (runs, jumps, rewrites) ended by a flush, then reads of the region
    (runs at full rate and with gaps, jumps, waitrequest): every word as written, or as the
    memory held it, and exactly one line read per run of requests in a line."""
    reads, burst = int(os.environ["READS"]), int(os.environ["WR_BURST"])
    rng = random.Random(reads + burst)
    await reset(dut, INPUTS)
    mem: dict[int, int] = {}
    stats = {"bursts": 0, "longest": 0, "reads": 0}
    base = rng.choice([0, 1 << 33]) + 64 * rng.randrange(1 << 20)
    cocotb.start_soon(write_memory(dut, rng, mem, stats, burst, prefix="avm_wr_"))
    deepest = 0
    written: dict[int, int] = {}
    for rnd in range(8):
        a = base + 4 * rng.randrange(REGION)
        for _ in range(rng.choice([1, 20, 200])):
            if rng.random() < 0.05:
                a = base + 4 * rng.randrange(REGION)
            v = rng.getrandbits(32)
            await write_word(dut, rng, a, v)
            written.update({a + b: v >> (8 * b) & 0xFF for b in range(4)})
            a += 4
        await flush(dut, "wr_flush", "wr_pending", f"round {rnd}")
        assert all(mem.get(x) == v for x, v in written.items()), f"round {rnd}: a word written is not in memory"
        dut.wr_write.value = 0
        # reads only between flushes: the engine never reads a word it has not flushed
        reader = cocotb.start_soon(read_memory(dut, rng, mem, fill, stats, p_wait=rng.choice([0.0, 0.3])))
        before = stats["reads"]
        n, expect, depth = await read_words(dut, rng, mem, base, 300, rng.choice([1.0, 0.7]))
        reader.cancel()
        assert stats["reads"] - before == expect, f"round {rnd}: {stats['reads'] - before} line reads, {expect} expected"
        assert expect < n, f"round {rnd}: no word served from a line already read"
        deepest = max(deepest, depth)
    assert deepest <= reads and stats["bursts"] > 0
