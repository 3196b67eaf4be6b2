"""cocotb test of the descriptor queue (FIFO, chained fetches, validation) against a model."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

ERR_BAD_LENGTH, ERR_BAD_ALIGN, ERR_ADDR_RANGE, ERR_RECORD_WIDTH = 1, 2, 3, 4
CHAIN = 1 << 3
GIB4 = 1 << 32
HOST = 1 << 63
# (base, size) of memory A, memory B and the host window
REGIONS = ((0, GIB4), (GIB4, GIB4), (HOST, HOST))
OUTSIDE = (2 * GIB4, 0x4000_0000_0000_0000)   # addresses in no region


def region(a: int) -> int | None:
    for i, (base, size) in enumerate(REGIONS):
        if base <= a < base + size:
            return i
    return None


def check(d: dict, words: int) -> tuple[int, bool]:
    """The spec's verdict on a descriptor: (ERR_* code or 0, pure chain jump)."""
    chain = bool(d["ctrl"] & CHAIN)
    ln, cnt = d["len"], d["count"]
    if (ln == 0 and not chain) or ln % 4:
        return ERR_BAD_LENGTH, False
    if d["addr"] % 4 or (cnt > 1 and d["stride"] % 4) or (chain and d["next"] % 64):
        return ERR_BAD_ALIGN, False
    if chain and region(d["next"]) is None:
        return ERR_ADDR_RANGE, False
    if ln == 0:
        return 0, True
    if (ln // 4) % words:
        return ERR_RECORD_WIDTH, False
    last = d["addr"] + ln - 1 + d["stride"] * (max(cnt, 1) - 1)
    r = region(d["addr"])
    if r is None or last >= 1 << 64 or region(last) != r:
        return ERR_ADDR_RANGE, False
    return 0, False


class Gen:
    """Random descriptors biased towards the edges of every check; chain tables in memory."""

    def __init__(self, rng: random.Random, words: int):
        self.rng, self.words = rng, words
        self.table: dict[int, dict] = {}
        self.next_slot = 0

    def fresh_next(self) -> int:
        r = self.rng
        self.next_slot += 1
        base, size = REGIONS[r.randrange(3)]
        return base + (self.next_slot * 4096 + r.randrange(64) * 64) % size

    def desc(self, depth: int = 0) -> dict:
        r, rb = self.rng, 4 * self.words
        nrec = r.choice([1, 1, 2, r.randrange(1, 100), r.randrange(1, 1 << 16)])
        ln = nrec * rb
        u = r.random()
        if u < 0.08 and self.words > 1:
            ln += 4 * r.randrange(1, self.words)          # not whole records
        elif u < 0.12:
            ln += r.randrange(1, 4)                        # not whole words
        elif u < 0.18:
            ln = 0
        elif u < 0.2:
            ln = r.choice([(1 << 32) - 4, (1 << 32) - 1])
        cnt = r.choice([0, 1, 1, 2, 3, r.randrange(2, 20), r.randrange(2, 1 << 16),
                        (1 << 32) - 1])
        stride = r.choice([ln, ln, ln + 4 * r.randrange(64), 4 * r.randrange(1 << 20),
                           (1 << 32) - 4, 0])
        if r.random() < 0.08:
            stride = (stride & ~3) | r.randrange(1, 4)
        stride &= (1 << 32) - 1
        extent = ln + stride * (max(cnt, 1) - 1)
        if r.random() < 0.06:
            addr = r.choice(OUTSIDE) + 4 * r.randrange(1000)
        else:
            base, size = REGIONS[r.randrange(3)]
            v = r.random()
            if v < 0.35 and extent <= size:   # at, just below or just past the region's end
                addr = base + size - extent + r.choice([-8, -4, 0, 0, 4, 8])
            elif v < 0.7:
                addr = base + 4 * r.randrange(1000)
            else:
                addr = base + 4 * r.randrange(size // 4)
            addr = max(addr, 0)
        if r.random() < 0.06:
            addr = (addr & ~3) | r.randrange(1, 4)
        addr &= (1 << 64) - 1
        ctrl = r.randrange(8) | (CHAIN if depth < 3 and r.random() < 0.3 else 0)
        nxt = self.fresh_next()
        w = r.random()
        if w < 0.05:
            nxt += r.choice([4, 32])
        elif w < 0.1:
            nxt = r.choice(OUTSIDE) + 64 * r.randrange(100)
        d = {"src": r.getrandbits(64), "dst": r.getrandbits(64), "len": ln, "stride": stride,
             "count": cnt, "next": nxt, "ctrl": ctrl}
        d["src" if os.environ["IS_RX"] == "0" else "dst"] = addr
        d["addr"] = addr
        if ctrl & CHAIN and check(d, self.words)[0] == 0:
            self.table[nxt] = self.desc(depth + 1)
        return d

    def expected(self, d: dict) -> list[tuple]:
        """The outputs for one FIFO entry: it, then its chain while each link passes."""
        out = []
        while True:
            err, nodata = check(d, self.words)
            out.append((d["addr"], d["len"], d["stride"], max(d["count"], 1), d["ctrl"],
                        err, int(nodata)))
            if not (d["ctrl"] & CHAIN) or err:
                return out
            d = self.table[d["next"]]


def beat(d: dict) -> int:
    """The 64-byte in-memory descriptor: the DESC_* words at their register offsets; the
    unused word and the bits above CTRL hold junk the queue must ignore."""
    return (d["src"] | d["dst"] << 64 | d["len"] << 128 | 0x5A5A5A5A << 160
            | d["stride"] << 192 | d["count"] << 224 | d["next"] << 256 | d["ctrl"] << 320
            | 0xDEAD_BEEF << 324 | ((1 << 150) - 1) << 360)


async def fetcher(dut, gen: Gen, rng: random.Random, p_ready: float, fetched: list):
    """The descriptor read master: random request acceptance and read latency."""
    while True:
        await FallingEdge(dut.clk)
        dut.fetch_resp_valid.value = 0
        dut.fetch_req_ready.value = int(rng.random() < p_ready)
        await ReadOnly()
        if int(dut.fetch_req_valid.value) and int(dut.fetch_req_ready.value):
            a = int(dut.fetch_req_addr.value)
            fetched.append(a)
            assert a in gen.table, f"fetch of {a:#x}, which no passing chain names"
            for _ in range(rng.randrange(1, 12)):
                await FallingEdge(dut.clk)
                dut.fetch_req_ready.value = int(rng.random() < p_ready)
            dut.fetch_resp_valid.value = 1
            dut.fetch_resp_data.value = beat(gen.table[a])


async def sink(dut, rng: random.Random, p_ready: float, got: list, n: int):
    while len(got) < n:
        await FallingEdge(dut.clk)
        dut.m_ready.value = int(rng.random() < p_ready)
        await ReadOnly()
        if int(dut.m_valid.value) and int(dut.m_ready.value):
            got.append(tuple(int(getattr(dut, f"m_{k}").value)
                             for k in ("addr", "len", "stride", "count", "ctrl", "err", "nodata")))
    await FallingEdge(dut.clk)
    dut.m_ready.value = 0


async def push(dut, d: dict) -> bool:
    """Offers one descriptor for a cycle; False when the FIFO was full and dropped it."""
    await FallingEdge(dut.clk)
    dut.push_valid.value = 1
    for k in ("src", "dst", "len", "stride", "count", "next", "ctrl"):
        getattr(dut, f"push_{k}").value = d[k]
    await ReadOnly()
    full = int(dut.fifo_full.value)
    assert int(dut.push_overflow.value) == full, "push_overflow differs from push while full"
    depth = int(os.environ["DEPTH"])
    assert full == (int(dut.fifo_level.value) == depth), "fifo_full differs from level == depth"
    await FallingEdge(dut.clk)
    dut.push_valid.value = 0
    return not full


@cocotb.test()
async def desc_queue_random(dut):
    """Random descriptors and chains under four valid/ready mixes; overflow with the sink held."""
    words, depth = int(os.environ["RECORD_WORDS"]), int(os.environ["DEPTH"])
    rng = random.Random(words * 7 + int(os.environ["IS_RX"]))
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    dut.rst.value = 1
    for s in ("push_valid", "fetch_req_ready", "fetch_resp_valid", "m_ready"):
        getattr(dut, s).value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    gen = Gen(rng, words)
    seen_err: dict[tuple[int, int], int] = {}
    overflows = 0
    for p_push, p_fetch, p_out in ((0.5, 0.5, 0.5), (1.0, 1.0, 1.0), (0.3, 0.2, 1.0),
                                   (1.0, 1.0, 0.2)):
        fetched: list[int] = []
        fetch_task = cocotb.start_soon(fetcher(dut, gen, rng, p_fetch, fetched))
        expect, got = [], []
        descs = [gen.desc() for _ in range(150)]
        # the FIFO's fill is pushed with the sink stalled, so it overflows
        held = [gen.desc() for _ in range(depth + 3)]
        for d in held:
            if await push(dut, d):
                expect += gen.expected(d)
            else:
                overflows += 1
        for d in descs:
            expect += gen.expected(d)
        out = cocotb.start_soon(sink(dut, rng, p_out, got, len(expect)))
        for d in descs:
            while rng.random() > p_push:
                await FallingEdge(dut.clk)
            while not await push(dut, d):
                overflows += 1     # retried, as the host would after ERR_FIFO_OVERFLOW
        await out
        for _ in range(20):
            await RisingEdge(dut.clk)
        await ReadOnly()
        fetch_task.cancel()
        assert int(dut.busy.value) == 0 and int(dut.chaining.value) == 0
        assert int(dut.fifo_level.value) == 0
        assert len(got) == len(expect), f"{len(got)} descriptors out, {len(expect)} expected"
        for i, (g, e) in enumerate(zip(got, expect)):
            if e[5]:    # a refused descriptor moves nothing either way: m_nodata is free
                g = (*g[:6], e[6])
            assert g == e, f"descriptor {i} (mix {p_push, p_fetch, p_out}): got {g}, expected {e}"
        for e in expect:
            seen_err[(e[5], e[6])] = seen_err.get((e[5], e[6]), 0) + 1
        await FallingEdge(dut.clk)
    codes = {0, ERR_BAD_LENGTH, ERR_BAD_ALIGN, ERR_ADDR_RANGE} | ({ERR_RECORD_WIDTH}
                                                                  if words > 1 else set())
    for c in codes:
        assert seen_err.get((c, 0), 0) >= 5, f"code {c} seen only {seen_err.get((c, 0), 0)} times"
    assert seen_err.get((0, 1), 0) >= 3, "too few pure chain jumps"
    assert overflows >= 4, "the FIFO never overflowed"
