"""cocotb tests of the word unpacker (the RX realigner) against a word model."""
from __future__ import annotations

import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import check_span, drive, pack, reset, words_of

# ---- shell_word_unpack ---------------------------------------------------------------

def packed_stream(rng, n_packets):
    """Packets of random length as full 16-word beats, the last one short; the word list."""
    items, words = [], []
    for _ in range(n_packets):
        p = [rng.getrandbits(32) for _ in range(rng.randint(1, 120))]
        for k in range(0, len(p), 16):
            chunk = p[k:k + 16]
            items.append((pack(chunk), 0, len(chunk), k + 16 >= len(p)))
        words += [(w, j == len(p) - 1) for j, w in enumerate(p)]
    return items, words


def random_spans(rng, total):
    spans, left = [], total
    while left:
        off = rng.choice([0, 0, rng.randrange(16)])
        cnt = min(left, rng.randint(1, 16 - off) if rng.random() < 0.5 else 16 - off)
        spans.append((off, cnt))
        left -= cnt
    return spans


@cocotb.test()
async def unpack_random(dut):
    """Random destination spans across packet ends, random request and input gaps."""
    await reset(dut, ["s_axis_tvalid", "req_valid", "m_axis_tready"])
    rng = random.Random(3)
    for pv, pq in ((0.6, 0.5), (1.0, 0.4), (0.4, 1.0), (1.0, 1.0)):
        items, words = packed_stream(rng, 12)
        spans = random_spans(rng, len(words))
        src = cocotb.start_soon(drive(dut, items, pv, rng))
        pos = cycles = 0
        for fired, (off, cnt) in enumerate(spans, 1):
            while True:
                await FallingEdge(dut.clk)
                dut.req_off.value, dut.req_cnt.value = off, cnt
                q = rng.random() < pq
                dut.req_valid.value = int(q)
                dut.m_axis_tready.value = int(q)
                await ReadOnly()
                cycles += 1
                if q and int(dut.m_axis_tvalid.value):
                    break
            check_span(dut, words[pos:pos + cnt], off, f"span {fired} ({off}, {cnt})")
            pos += cnt
        await FallingEdge(dut.clk)
        dut.req_valid.value = 0
        dut.m_axis_tready.value = 0
        await src
        if pv == pq == 1.0:
            # a span may wait for one extra cycle only where a short beat ends a packet
            assert cycles <= len(spans) + 2 * 12 + 2, f"{cycles} cycles for {len(spans)} spans"


@cocotb.test()
async def unpack_full_rate_misaligned(dut):
    """A long packet to a destination at word 5: one full span per cycle after the first."""
    await reset(dut, ["s_axis_tvalid", "req_valid", "m_axis_tready"])
    rng = random.Random(9)
    p = [rng.getrandbits(32) for _ in range(16 * 40)]
    items = [(pack(p[k:k + 16]), 0, 16, k + 16 >= len(p)) for k in range(0, len(p), 16)]
    spans = [(5, 11)] + [(0, 16)] * 39 + [(0, 5)]
    src = cocotb.start_soon(drive(dut, items, 1.0, rng))
    fires, cycle, pos = [], 0, 0
    for off, cnt in spans:
        while True:
            await FallingEdge(dut.clk)
            dut.req_off.value, dut.req_cnt.value = off, cnt
            dut.req_valid.value = 1
            dut.m_axis_tready.value = 1
            await ReadOnly()
            cycle += 1
            if int(dut.m_axis_tvalid.value):
                break
        assert words_of(int(dut.m_axis_tdata.value), off, cnt) == p[pos:pos + cnt]
        pos += cnt
        fires.append(cycle)
    await src
    assert fires[-1] - fires[1] == len(spans) - 2, fires
