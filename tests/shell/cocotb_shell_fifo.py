"""cocotb test of the shell's FIFO (shell_fifo) against a cycle model: when an entry shows, level,
full and empty, data order."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset


@cocotb.test()
async def fifo_random(dut):
    """Random valid/ready in phases (filling, draining, both busy); every output every cycle."""
    width, depth, fwd = (int(os.environ[k]) for k in ("DATA_WIDTH", "DEPTH", "FWD_WRITES"))
    rng = random.Random(width * 31 + depth + fwd)
    await reset(dut, ["s_axis_tvalid", "s_axis_tdata", "m_axis_tready"])
    held: list[tuple[int, int]] = []   # (data, cycle of its write), oldest first
    pushed = popped = fulls = 0
    # an entry written in cycle c shows from cycle c + 1 (forwarded) or c + 2
    lag = 1 if fwd else 2
    for cycle in range(6000):
        p_in, p_out = ((0.9, 0.2), (0.2, 0.9), (0.7, 0.7), (1.0, 1.0))[cycle // 500 % 4]
        await FallingEdge(dut.clk)
        v, r = int(rng.random() < p_in), int(rng.random() < p_out)
        data = rng.getrandbits(width)
        dut.s_axis_tvalid.value, dut.s_axis_tdata.value, dut.m_axis_tready.value = v, data, r
        await ReadOnly()
        shows = bool(held) and held[0][1] <= cycle - lag
        assert int(dut.level.value) == len(held), f"cycle {cycle}: level {int(dut.level.value)} != {len(held)}"
        assert int(dut.s_axis_tready.value) == (len(held) < depth), f"cycle {cycle}: ready with {len(held)} held"
        assert int(dut.m_axis_tvalid.value) == shows, f"cycle {cycle}: valid with {held[:1]}"
        if shows:
            assert int(dut.m_axis_tdata.value) == held[0][0], f"cycle {cycle}: entry {popped} differs"
        fulls += len(held) == depth
        if r and shows:
            held.pop(0)
            popped += 1
        if v and int(dut.s_axis_tready.value):   # full by the entries held before this cycle's pop
            held.append((data, cycle))
            pushed += 1
    assert popped > 1000 and fulls > 50, (pushed, popped, fulls)
