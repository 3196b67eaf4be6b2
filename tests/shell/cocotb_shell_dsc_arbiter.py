"""cocotb test of the descriptor-read arbiter (round robin, one read at a time) against a model."""
from __future__ import annotations

import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset


async def requester(dut, k: int, rng: random.Random, p_req: float, n: int, done: list):
    """Requests n reads (random addresses), holding each until granted, then waits for its data."""
    sent: list[int] = []
    while len(sent) < n:
        await FallingEdge(dut.clk)
        if rng.random() >= p_req:
            continue
        addr = rng.getrandbits(58) << 6
        getattr(dut, f"req{k}_valid").value = 1
        getattr(dut, f"req{k}_addr").value = addr
        while True:
            await ReadOnly()
            if int(getattr(dut, f"req{k}_ready").value):
                break
            await FallingEdge(dut.clk)
        sent.append(addr)
        await FallingEdge(dut.clk)
        getattr(dut, f"req{k}_valid").value = 0
        while True:       # one read outstanding per requester, as the descriptor queues do
            await ReadOnly()
            if int(getattr(dut, f"resp{k}_valid").value):
                done.append((k, addr, int(dut.resp_data.value)))
                break
            await FallingEdge(dut.clk)
    return sent


async def memory(dut, rng: random.Random, p_wait: float, log: list, order: list, stop: list):
    """Avalon-MM slave: random waitrequest, latency; answers each read with data of its address."""
    while not stop:
        await FallingEdge(dut.clk)
        dut.dsc_rd_readdatavalid.value = 0
        dut.dsc_rd_waitrequest.value = int(rng.random() < p_wait)
        await ReadOnly()
        # the request the arbiter just granted (visible one cycle before the read)
        for k in (0, 1):
            if int(getattr(dut, f"req{k}_valid").value) and int(getattr(dut, f"req{k}_ready").value):
                order.append((k, int(getattr(dut, f"req{k}_addr").value),
                              int(dut.req0_valid.value), int(dut.req1_valid.value)))
        assert int(dut.req0_ready.value) + int(dut.req1_ready.value) <= 1, "both granted"
        if int(dut.dsc_rd_read.value) and not int(dut.dsc_rd_waitrequest.value):
            a = int(dut.dsc_rd_address.value)
            assert int(dut.dsc_rd_burstcount.value) == 1
            log.append(a)
            for _ in range(rng.randrange(1, 10)):
                await FallingEdge(dut.clk)
                dut.dsc_rd_waitrequest.value = int(rng.random() < p_wait)
                await ReadOnly()
                assert not int(dut.dsc_rd_read.value), "a second read while one is in flight"
                assert not (int(dut.req0_ready.value) or int(dut.req1_ready.value)), \
                    "a grant while a read is in flight"
            await FallingEdge(dut.clk)
            dut.dsc_rd_readdatavalid.value = 1
            dut.dsc_rd_readdata.value = (a * 0x9E3779B97F4A7C15) % (1 << 512) | a << 448


@cocotb.test()
async def dsc_arbiter_random(dut):
    """Both engines reading at random rates: every read answered to its requester with its data,
    grants alternate while both wait, one read on the bus at a time."""
    rng = random.Random(3)
    await reset(dut, ["req0_valid", "req1_valid", "dsc_rd_waitrequest", "dsc_rd_readdatavalid"])
    last = 1      # as after reset: requester 0 wins the first contest
    for p0, p1, p_wait in ((1.0, 1.0, 0.0), (1.0, 1.0, 0.5), (0.3, 0.8, 0.3), (0.1, 0.1, 0.0)):
        log, order, done, stop = [], [], [], []
        mem = cocotb.start_soon(memory(dut, rng, p_wait, log, order, stop))
        r0 = cocotb.start_soon(requester(dut, 0, rng, p0, 60, done))
        r1 = cocotb.start_soon(requester(dut, 1, rng, p1, 60, done))
        sent = {0: await r0, 1: await r1}
        stop.append(1)
        await mem
        for k in (0, 1):
            got = [(a, d) for kk, a, d in done if kk == k]
            assert [a for a, _ in got] == sent[k], f"requester {k}: reads answered out of order"
            for a, d in got:
                assert d == (a * 0x9E3779B97F4A7C15) % (1 << 512) | a << 448, \
                    f"requester {k} got another read's data for {a:#x}"
        assert log == [a for _, a, _, _ in order], "bus reads differ from the granted requests"
        # round robin: with both requesting, the grant goes to the other than last time
        contested = 0
        for k, _, v0, v1 in order:
            if v0 and v1:
                contested += 1
                assert k != last, "the same requester was granted twice while the other waited"
            last = k
        if p0 == 1.0 and p1 == 1.0:
            assert contested > 50, f"only {contested} contested grants"
