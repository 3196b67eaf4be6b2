"""cocotb tests of the word packer (the TX realigner and the record-to-beat converter) against a word model."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import drive, pack, reset

# ---- shell_word_pack -----------------------------------------------------------------

def pack_spans(rng, in_words, step, n_items):
    """Random spans [lo, lo+cnt) of IN_WORDS-word beats (multiples of step), lasts now and then."""
    items, stream = [], []
    for k in range(n_items):
        lo = rng.randrange(0, in_words, step)
        cnt = rng.randrange(step, in_words - lo + 1, step)
        junk = [rng.getrandbits(32) for _ in range(in_words)]
        last = k == n_items - 1 or rng.random() < 0.15
        items.append((pack(junk), lo, cnt, last))
        stream.append((junk[lo:lo + cnt], last))
    return items, stream


def expected_beats(stream):
    beats, cur = [], []
    for words, last in stream:
        cur += words
        while len(cur) > 16 or (len(cur) == 16 and not last):
            beats.append((pack(cur[:16]), 16, 0))
            cur = cur[16:]
        if last:
            beats.append((pack(cur), len(cur), 1))
            cur = []
    return beats


async def collect(dut, count, p_ready, rng):
    out = []
    while len(out) < count:
        await FallingEdge(dut.clk)
        r = rng.random() < p_ready
        dut.m_axis_tready.value = int(r)
        await ReadOnly()
        if r and int(dut.m_axis_tvalid.value):
            c = int(dut.m_axis_cnt.value)
            out.append((int(dut.m_axis_tdata.value) & ((1 << (32 * c)) - 1), c,
                        int(dut.m_axis_tlast.value)))
    await FallingEdge(dut.clk)
    dut.m_axis_tready.value = 0
    return out


@cocotb.test()
async def pack_random(dut):
    """Every span and last placement under three valid/ready mixes; no stall with both ready."""
    in_words, step = int(os.environ["IN_WORDS"]), int(os.environ["FILL_STEP"])
    await reset(dut, ["s_axis_tvalid", "m_axis_tready"])
    rng = random.Random(in_words * 100 + step)
    for pv, pr in ((0.6, 0.5), (1.0, 0.3), (0.3, 1.0), (1.0, 1.0)):
        items, stream = pack_spans(rng, in_words, step, 300)
        expect = expected_beats(stream)
        src = cocotb.start_soon(drive(dut, items, pv, rng))
        out = await collect(dut, len(expect), pr, rng)
        stalls = await src
        assert out == expect, f"beats differ (valid {pv}, ready {pr})"
        if pr == 1.0:
            assert stalls == 0, f"input stalled {stalls} times with the output always ready"
