"""cocotb tests of the width converters 512 <-> N x 32 under random back-pressure."""
from __future__ import annotations

import itertools
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

WIDTHS = (1, 2, 3, 5, 10, 16)
MASK32 = (1 << 32) - 1


def pack(words: list[int]) -> int:
    v = 0
    for i, w in enumerate(words):
        v |= w << (32 * i)
    return v


def unpack(v: int, n: int) -> list[int]:
    return [(v >> (32 * i)) & MASK32 for i in range(n)]


async def reset(dut):
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.rst.value = 1
    for n in WIDTHS:
        for s in ("d", "u"):
            getattr(dut, f"{s}{n}_s_valid").value = 0
            getattr(dut, f"{s}{n}_m_ready").value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


async def source(dut, prefix, items, p_valid, rng, with_cnt):
    """items: (data, cnt, last); drive with random gaps, return the cycles taken."""
    valid, ready = getattr(dut, f"{prefix}_s_valid"), getattr(dut, f"{prefix}_s_ready")
    data, last = getattr(dut, f"{prefix}_s_data"), getattr(dut, f"{prefix}_s_last")
    cnt = getattr(dut, f"{prefix}_s_cnt") if with_cnt else None
    i = cycles = 0
    stalls = 0
    while i < len(items):
        await FallingEdge(dut.clk)
        v = rng.random() < p_valid
        valid.value = int(v)
        d, c, la = items[i]
        data.value = d
        last.value = int(la)
        if cnt is not None:
            cnt.value = c
        await ReadOnly()
        cycles += 1
        if v and int(ready.value):
            i += 1
        elif v:
            stalls += 1
    await FallingEdge(dut.clk)
    valid.value = 0
    return cycles, stalls


async def sink(dut, prefix, count, p_ready, rng, fields):
    """Collect `count` output beats as tuples of the named fields; also the fire cycles."""
    valid, ready = getattr(dut, f"{prefix}_m_valid"), getattr(dut, f"{prefix}_m_ready")
    sigs = [getattr(dut, f"{prefix}_{f}") for f in fields]
    out, fire_cycles, cycle = [], [], 0
    while len(out) < count:
        await FallingEdge(dut.clk)
        r = rng.random() < p_ready
        ready.value = int(r)
        await ReadOnly()
        cycle += 1
        if r and int(valid.value):
            out.append(tuple(int(s.value) for s in sigs))
            fire_cycles.append(cycle)
    await FallingEdge(dut.clk)
    ready.value = 0
    return out, fire_cycles


def make_packets(rng, n, count, partial=False):
    pkts = []
    for _ in range(count):
        words = rng.randint(1, 40) * n
        if partial:
            words += rng.randint(1, n - 1)
        pkts.append([rng.getrandbits(32) for _ in range(words)])
    return pkts


def down_items(pkts):
    items = []
    for p in pkts:
        for k in range(0, len(p), 16):
            chunk = p[k:k + 16]
            items.append((pack(chunk), len(chunk), k + 16 >= len(p)))
    return items


async def check_down(dut, n, rng, p_valid, p_ready, partial=False):
    pkts = make_packets(rng, n, 6, partial)
    expect = []
    for p in pkts:
        recs = [p[k:k + n] for k in range(0, len(p), n)]
        recs[-1] = recs[-1] + [0] * (n - len(recs[-1]))
        expect += [(pack(r), int(j == len(recs) - 1)) for j, r in enumerate(recs)]
    src = cocotb.start_soon(source(dut, f"d{n}", down_items(pkts), p_valid, rng, True))
    partials = 0

    async def count_partial():
        nonlocal partials
        while True:
            await RisingEdge(dut.clk)
            partials += int(getattr(dut, f"d{n}_partial").value)
    cp = cocotb.start_soon(count_partial())
    out, fires = await sink(dut, f"d{n}", len(expect), p_ready, rng, ("m_data", "m_last"))
    await src
    cp.cancel()
    assert out == expect, f"width {n}: records differ"
    assert partials == (len(pkts) if partial and n > 1 else 0), f"width {n}: partial pulses {partials}"
    return fires


async def check_up(dut, n, rng, p_valid, p_ready):
    pkts = make_packets(rng, n, 6)
    items = []
    for p in pkts:
        recs = [p[k:k + n] for k in range(0, len(p), n)]
        items += [(pack(r), n, j == len(recs) - 1) for j, r in enumerate(recs)]
    expect = [(d, c, int(la)) for d, c, la in down_items(pkts)]
    src = cocotb.start_soon(source(dut, f"u{n}", items, p_valid, rng, False))
    out, _ = await sink(dut, f"u{n}", len(expect), p_ready, rng, ("m_data", "m_cnt", "m_last"))
    _, stalls = await src
    # words past the count are undefined
    out = [(d & ((1 << (32 * c)) - 1), c, la) for d, c, la in out]
    assert out == expect, f"width {n}: beats differ"
    return stalls


@cocotb.test()
async def converters_random_backpressure(dut):
    """Every width, both directions, random valid and ready, packets with last."""
    await reset(dut)
    rng = random.Random(11)
    tasks = []
    for n in WIDTHS:
        for pv, pr in ((0.6, 0.5), (1.0, 0.3), (0.3, 1.0)):
            tasks.append(cocotb.start_soon(check_down(dut, n, random.Random(rng.random()), pv, pr)))
            tasks.append(cocotb.start_soon(check_up(dut, n, random.Random(rng.random()), pv, pr)))
            for t in tasks[-2:]:
                await t


@cocotb.test()
async def converters_no_bubbles(dut):
    """Both sides always ready: one record (down) or no input stall (up) every cycle."""
    await reset(dut)
    rng = random.Random(5)
    for n in WIDTHS:
        fires = await check_down(dut, n, rng, 1.0, 1.0)
        # after the first record, a packet's records leave back to back except where the
        # next packet's first beat is still arriving
        gaps = sum(1 for a, b in itertools.pairwise(fires) if b - a > 1)
        assert gaps <= 6, f"width {n}: {gaps} gaps in the record stream"
        stalls = await check_up(dut, n, rng, 1.0, 1.0)
        assert stalls == 0, f"width {n}: input stalled {stalls} times with output always ready"


@cocotb.test()
async def converter_partial_record(dut):
    """A stream ending inside a record gives a padded record with last and a partial pulse."""
    await reset(dut)
    rng = random.Random(7)
    for n in WIDTHS:
        if n > 1:
            await check_down(dut, n, rng, 0.7, 0.7, partial=True)
