"""cocotb tests of the span packer (the RX realigner) against a word model."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import check_span, drive, pack, reset

SPAN_FIELDS = ("tdata", "cnt", "tlast")  # the span packer's input has no `lo`


def input_beats(rng, in_words, n_packets):
    """Packets of random length as in_words-word beats (the last one short); the word list."""
    items, words = [], []
    for _ in range(n_packets):
        p = [rng.getrandbits(32) for _ in range(rng.randint(1, 90))]
        for k in range(0, len(p), in_words):
            chunk = p[k:k + in_words]
            junk = [rng.getrandbits(32) for _ in range(in_words - len(chunk))]
            items.append((pack(chunk + junk), len(chunk), k + in_words >= len(p)))
        words += [(w, j == len(p) - 1) for j, w in enumerate(p)]
    return items, words


def block(off, n):
    """A destination block of n words from lane off as (off, cnt, next) spans; next: the
    following span's words when it continues this one from lane 0, else 0."""
    cnts, lane = [], off
    while n:
        cnts.append(min(n, 16 - lane))
        n -= cnts[-1]
        lane = 0
    return [(off if k == 0 else 0, c, cnts[k + 1] if k + 1 < len(cnts) else 0)
            for k, c in enumerate(cnts)]


def block_spans(rng, total):
    """Destination blocks at random lanes, of random lengths, for `total` words."""
    spans, left = [], total
    while left:
        n = min(left, rng.choice([rng.randint(1, 20), rng.randint(1, 200)]))
        left -= n
        spans += block(rng.randrange(16), n)
    return spans


async def take(dut, spans, words, p_req, p_ready, rng):
    """Requests every span (held until taken) and checks its words and flags; the cycles."""
    pos = cycles = 0
    for n, (off, cnt, nxt) in enumerate(spans, 1):
        held, waited = False, 0
        while True:
            waited += 1
            assert waited < 5000, f"span {n} ({off}, {cnt}, {nxt}) never came"
            await FallingEdge(dut.clk)
            dut.req_off.value, dut.req_cnt.value, dut.req_next.value = off, cnt, nxt
            held = held or rng.random() < p_req
            dut.req_valid.value = int(held)
            dut.m_axis_tready.value = int(rng.random() < p_ready)
            await ReadOnly()
            cycles += 1
            if held and int(dut.m_axis_tready.value) and int(dut.m_axis_tvalid.value):
                break
        check_span(dut, words[pos:pos + cnt], off, f"span {n} ({off}, {cnt}, {nxt})")
        pos += cnt
    await FallingEdge(dut.clk)
    dut.req_valid.value = 0
    dut.m_axis_tready.value = 0
    return cycles


@cocotb.test()
async def span_random(dut):
    """Random destination blocks across packet ends; random input, request and ready gaps."""
    in_words = int(os.environ["IN_WORDS"])
    await reset(dut, ["s_axis_tvalid", "req_valid", "m_axis_tready"])
    rng = random.Random(in_words)
    for pv, pq, pr in ((0.6, 0.5, 0.7), (1.0, 0.4, 1.0), (0.4, 1.0, 0.5), (1.0, 1.0, 1.0)):
        items, words = input_beats(rng, in_words, 15)
        spans = block_spans(rng, len(words))
        src = cocotb.start_soon(drive(dut, items, pv, rng, SPAN_FIELDS))
        await take(dut, spans, words, pq, pr, rng)
        await src


@cocotb.test()
async def span_full_rate(dut):
    """One block at lane 5, both sides always ready: the input never waits, and a span
    leaves every cycle when the input is 16 words wide."""
    in_words = int(os.environ["IN_WORDS"])
    await reset(dut, ["s_axis_tvalid", "req_valid", "m_axis_tready"])
    rng = random.Random(100 + in_words)
    n = 16 * 40 + 3
    p = [rng.getrandbits(32) for _ in range(n)]
    items = [(pack(p[k:k + in_words]), len(p[k:k + in_words]), k + in_words >= n)
             for k in range(0, n, in_words)]
    words = [(w, j == n - 1) for j, w in enumerate(p)]
    spans = block(5, n)
    src = cocotb.start_soon(drive(dut, items, 1.0, rng, SPAN_FIELDS))
    cycles = await take(dut, spans, words, 1.0, 1.0, rng)
    stalls = await src
    assert stalls == 0, f"input stalled {stalls} times"
    # the last span may need one cycle of its own (the overflow that completes it)
    assert cycles <= max(len(items), len(spans)) + 1, (cycles, len(items), len(spans))
