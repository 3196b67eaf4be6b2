"""cocotb tests of the word packer (the record-to-beat converter) against a word model."""
from __future__ import annotations

import os
import random

import cocotb
from words_tb import collect, drive, expected_beats, pack_spans, reset


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
