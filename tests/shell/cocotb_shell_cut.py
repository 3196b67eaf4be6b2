"""cocotb tests of the word unpacker as the TX realigner: memory spans to packed beats or records."""
from __future__ import annotations

import os
import random

import cocotb
from words_tb import collect, drive, expected_beats, pack, pack_spans, reset


async def start(dut, width):
    await reset(dut, ["s_axis_tvalid", "m_axis_tready"])
    dut.req_valid.value, dut.req_off.value, dut.req_cnt.value = 1, 0, width


@cocotb.test()
async def cut_random(dut):
    """Spans at any alignment with lasts now and then: dense outputs, zero-padded at a last."""
    width, zero_pad = int(os.environ["OUT_WORDS"]), os.environ["ZERO_PAD"] == "1"
    await start(dut, width)
    rng = random.Random(width)
    for pv, pr in ((0.6, 0.5), (1.0, 0.3), (0.3, 1.0), (1.0, 1.0)):
        items, stream = pack_spans(rng, 16, 1, 300)
        expect = expected_beats(stream, width)
        src = cocotb.start_soon(drive(dut, items, pv, rng))
        # without ZERO_PAD the words past a cut output's count are undefined
        out = await collect(dut, len(expect), pr, rng, mask=not zero_pad)
        await src
        assert out == expect, f"outputs differ (valid {pv}, ready {pr})"


@cocotb.test()
async def cut_full_rate_misaligned(dut):
    """A block starting at word 5: no input stall with both sides ready, beat or records."""
    width, zero_pad = int(os.environ["OUT_WORDS"]), os.environ["ZERO_PAD"] == "1"
    await start(dut, width)
    rng = random.Random(2)
    words = [rng.getrandbits(32) for _ in range(11 + 16 * 30 + 7)]
    items = [(pack(words[:11], 5), 5, 11, False)]
    items += [(pack(words[k:k + 16]), 0, 16, False) for k in range(11, 11 + 16 * 30, 16)]
    items.append((pack(words[-7:]), 0, 7, True))
    expect = expected_beats([(words, True)], width)
    src = cocotb.start_soon(drive(dut, items, 1.0, rng))
    out = await collect(dut, len(expect), 1.0, rng, mask=not zero_pad)
    stalls = await src
    assert out == expect
    # records narrower than a beat take several cycles per beat; a full beat takes one
    if width == 16:
        assert stalls == 0, f"input stalled {stalls} times"
    else:
        assert stalls <= len(expect) - len(items) + 2, f"input stalled {stalls} times"
