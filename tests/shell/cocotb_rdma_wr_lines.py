"""cocotb test of rdma_wr_lines' rate: full lines written one a cycle at consecutive addresses,
with a memory that never waits, leave as bursts back to back, a line a cycle, each line once
and in place (the engine's puts and a reduction's results at 100 Gb/s need all of it)."""
from __future__ import annotations

import os

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from words_tb import reset

LINES = 96


@cocotb.test()
async def wr_lines_line_a_cycle(dut):
    burst = int(os.environ["BURST"])
    await reset(dut, ["wr_address", "wr_write", "wr_writedata", "wr_byteenable", "flush", "avm_waitrequest"])
    base = 0x40000
    seen: list[tuple[int, int]] = []   # (cycle, line) of every beat the memory takes
    cycle = 0

    async def memory():
        nonlocal cycle
        left = line = 0
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            cycle += 1
            if not int(dut.avm_write.value):
                continue
            if not left:
                line, left = int(dut.avm_address.value) // 64, int(dut.avm_burstcount.value)
                assert 1 <= left <= burst
            assert int(dut.avm_byteenable.value) == (1 << 64) - 1
            assert int(dut.avm_writedata.value) == line * 0x1_0000_0001, f"line {line:#x}: wrong data"
            seen.append((cycle, line))
            line, left = line + 1, left - 1

    cocotb.start_soon(memory())
    i = 0
    while i < LINES:   # a line offered every cycle, taken when the queue has room
        await FallingEdge(dut.clk)
        line = base // 64 + i
        dut.wr_address.value = line * 64
        dut.wr_writedata.value = line * 0x1_0000_0001
        dut.wr_byteenable.value = (1 << 64) - 1
        dut.wr_write.value = 1
        await ReadOnly()
        if not int(dut.wr_waitrequest.value):
            i += 1
    await FallingEdge(dut.clk)
    dut.wr_write.value = 0
    dut.flush.value = 1
    for _ in range(40):
        await RisingEdge(dut.clk)
    assert [ln for _, ln in seen] == [base // 64 + k for k in range(LINES)], "lines lost, repeated or reordered"
    span = seen[-1][0] - seen[0][0] + 1
    assert span == LINES, f"{LINES} lines took {span} cycles at the memory: not a line a cycle"
