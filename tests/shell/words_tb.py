"""Shared drivers of the word packer and unpacker cocotb tests."""
from __future__ import annotations

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

__all__ = ["check_span", "collect", "drive", "expected_beats", "pack", "pack_spans", "reset",
           "words_of"]

MASK32 = (1 << 32) - 1


def pack(words: list[int], at: int = 0) -> int:
    v = 0
    for i, w in enumerate(words):
        v |= w << (32 * (at + i))
    return v


def words_of(v: int, lo: int, cnt: int) -> list[int]:
    return [(v >> (32 * i)) & MASK32 for i in range(lo, lo + cnt)]


def check_span(dut, want: list[tuple[int, bool]], off: int, what: str) -> None:
    """The span on m_axis (words from ``off``) is ``want`` ((word, last) pairs): its words,
    tlast from the last word's flag, inner_last from any other's."""
    got = words_of(int(dut.m_axis_tdata.value), off, len(want))
    assert got == [w for w, _ in want], f"{what} differs"
    flags = [la for _, la in want]
    assert int(dut.m_axis_tlast.value) == int(flags[-1]), f"{what}: last"
    assert int(dut.m_axis_inner_last.value) == int(any(flags[:-1])), f"{what}: inner"


async def reset(dut, inputs):
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.rst.value = 1
    for name in inputs:
        getattr(dut, name).value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


async def drive(dut, items, p_valid, rng, fields=("tdata", "lo", "cnt", "tlast")):
    """items: tuples of the s_axis_<fields> values (by default (data, lo, cnt, last)), each
    held until taken; returns the cycles the input was stalled."""
    i = stalls = 0
    while i < len(items):
        await FallingEdge(dut.clk)
        v = rng.random() < p_valid
        dut.s_axis_tvalid.value = int(v)
        for name, value in zip(fields, items[i]):
            getattr(dut, f"s_axis_{name}").value = int(value)
        await ReadOnly()
        if v and int(dut.s_axis_tready.value):
            i += 1
        elif v:
            stalls += 1
    await FallingEdge(dut.clk)
    dut.s_axis_tvalid.value = 0
    return stalls


def pack_spans(rng, in_words, step, n_items):
    """Random spans [lo, lo+cnt) of in_words-word beats (multiples of step), lasts now and then."""
    items, stream = [], []
    for k in range(n_items):
        lo = rng.randrange(0, in_words, step)
        cnt = rng.randrange(step, in_words - lo + 1, step)
        junk = [rng.getrandbits(32) for _ in range(in_words)]
        last = k == n_items - 1 or rng.random() < 0.15
        items.append((pack(junk), lo, cnt, last))
        stream.append((junk[lo:lo + cnt], last))
    return items, stream


def expected_beats(stream, width=16):
    beats, cur = [], []
    for words, last in stream:
        cur += words
        while len(cur) > width or (len(cur) == width and not last):
            beats.append((pack(cur[:width]), width, 0))
            cur = cur[width:]
        if last:
            beats.append((pack(cur), len(cur), 1))
            cur = []
    return beats


async def collect(dut, count, p_ready, rng, mask=True):
    """`count` outputs as (data, cnt, last); data past cnt dropped with `mask`."""
    out = []
    while len(out) < count:
        await FallingEdge(dut.clk)
        r = rng.random() < p_ready
        dut.m_axis_tready.value = int(r)
        await ReadOnly()
        if r and int(dut.m_axis_tvalid.value):
            c = int(dut.m_axis_cnt.value)
            d = int(dut.m_axis_tdata.value)
            out.append((d & ((1 << (32 * c)) - 1) if mask else d, c,
                        int(dut.m_axis_tlast.value)))
    await FallingEdge(dut.clk)
    dut.m_axis_tready.value = 0
    return out
