"""cocotb test of the wide RDMA engine's realigning word buffer (rdma_wbuf) against a model."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset


@cocotb.test()
async def wbuf_random(dut):
    """Random push and pop counts within the caller's limits, biased to full and empty; the
    count and the oldest OUT words every cycle."""
    depth, n_in, n_out, width = (int(os.environ[k]) for k in ("DEPTH", "IN", "OUT", "WIDTH"))
    rng = random.Random(depth + n_in * 3 + n_out * 7 + width)
    await reset(dut, ["push_n", "push_data", "pop_n"])
    held: list[int] = []
    moved = fulls = empties = 0
    for cycle in range(5000):
        bias = cycle // 400 % 3   # filling, draining, both
        await FallingEdge(dut.clk)
        room = depth - len(held)
        push = rng.choice([min(room, n_in), rng.randrange(min(room, n_in) + 1)])
        pop = rng.choice([min(len(held), n_out), rng.randrange(min(len(held), n_out) + 1)])
        if (bias == 1 and rng.random() < 0.9) or (bias == 0 and rng.random() < 0.5):
            push, pop = (0, pop) if bias == 1 else (push, 0)
        words = [rng.getrandbits(width) for _ in range(n_in)]
        dut.push_n.value, dut.pop_n.value = push, pop
        dut.push_data.value = sum(w << (width * k) for k, w in enumerate(words))
        await ReadOnly()
        assert int(dut.count.value) == len(held), f"cycle {cycle}: count {int(dut.count.value)} != {len(held)}"
        head = int(dut.head.value)
        for k, w in enumerate(held[:n_out]):
            assert (head >> (width * k)) & ((1 << width) - 1) == w, f"cycle {cycle}: head word {k} differs"
        fulls += len(held) > depth - n_in
        empties += len(held) < n_out
        del held[:pop]
        held += words[:push]
        moved += pop
    assert moved > 1000 and fulls > 100 and empties > 100, (moved, fulls, empties)
