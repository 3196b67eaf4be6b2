"""Shared drivers of the word packer and unpacker cocotb tests."""
from __future__ import annotations

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

__all__ = ["drive", "pack", "reset", "words_of"]

MASK32 = (1 << 32) - 1


def pack(words: list[int], at: int = 0) -> int:
    v = 0
    for i, w in enumerate(words):
        v |= w << (32 * (at + i))
    return v


def words_of(v: int, lo: int, cnt: int) -> list[int]:
    return [(v >> (32 * i)) & MASK32 for i in range(lo, lo + cnt)]


async def reset(dut, inputs):
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.rst.value = 1
    for name in inputs:
        getattr(dut, name).value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


async def drive(dut, items, p_valid, rng, lo_sig=True):
    """items: (data, lo, cnt, last) on s_axis; returns the cycles the input was stalled."""
    i = stalls = 0
    while i < len(items):
        await FallingEdge(dut.clk)
        v = rng.random() < p_valid
        dut.s_axis_tvalid.value = int(v)
        d, lo, c, la = items[i]
        dut.s_axis_tdata.value = d
        if lo_sig:
            dut.s_axis_lo.value = lo
        dut.s_axis_cnt.value = c
        dut.s_axis_tlast.value = int(la)
        await ReadOnly()
        if v and int(dut.s_axis_tready.value):
            i += 1
        elif v:
            stalls += 1
    await FallingEdge(dut.clk)
    dut.s_axis_tvalid.value = 0
    return stalls
