"""cocotb tests of the TX and RX DMA engines alone against Avalon-MM memory models and a stream
model: descriptor walks, block-stride bursts, completions, back-pressure."""
from __future__ import annotations

import os
import random

import cocotb
from avm_tb import read_memory, write_memory
from cocotb.triggers import FallingEdge, ReadOnly
from cocotb_shell_desc_queue import fetcher
from words_tb import reset

SOP, EOP, IRQ, CHAIN = 1, 2, 4, 8
DESC_INPUTS = ("push_valid", "fetch_req_ready", "fetch_resp_valid", "err_clear", "srst")
TABLES = 0x8000_0000      # chained descriptors live here, data below


def fill(a: int) -> int:
    """The byte the TX engine's memory holds at `a` (never written)."""
    return (a * 0x9E3779B1 >> 11) & 0xFF


class Descs:
    """Random valid 1-D and 2-D descriptors in memory A at any word alignment, each over bytes
    of its own; about a quarter chained (through a table the fetcher serves) to one or two more."""

    def __init__(self, rng: random.Random, words: int, key: str):
        self.rng, self.rec_words, self.key = rng, words, key
        self.table: dict[int, dict] = {}
        self.free, self.slot = 0x1000, 0

    def desc(self, depth: int = 0) -> dict:
        r = self.rng
        ln = 4 * self.rec_words * r.choice([1, 2, r.randrange(1, 40), r.randrange(1, 400)])
        count = r.choice([0, 1, 1, 2, 3])
        stride = ln + 4 * r.choice([0, 0, r.randrange(1, 40), r.randrange(1, 400)])
        addr = self.free + 4 * r.randrange(16)
        self.free = (addr + stride * max(count, 1) + 4095) // 4096 * 4096
        self.slot += 1
        ctrl = r.randrange(8) | (CHAIN if depth < 2 and r.random() < 0.25 else 0)
        d = {"src": r.getrandbits(64), "dst": r.getrandbits(64), "len": ln, "stride": stride,
             "count": count, "next": TABLES + 64 * self.slot, "ctrl": ctrl}
        d[self.key] = addr
        if ctrl & CHAIN:
            self.table[d["next"]] = self.desc(depth + 1)
        return d

    def walk(self, d: dict) -> list[dict]:
        """The descriptor and the chain it starts, in the order the engine runs them."""
        out = [d]
        while out[-1]["ctrl"] & CHAIN:
            out.append(self.table[out[-1]["next"]])
        return out

    def blocks(self, d: dict) -> list[tuple[int, int]]:
        """A descriptor's blocks as (first byte, length)."""
        return [(d[self.key] + k * d["stride"], d["len"]) for k in range(max(d["count"], 1))]

    def words(self, d: dict) -> list[int]:
        """The addresses of the words a descriptor moves, in order."""
        return [a + b for a, n in self.blocks(d) for b in range(0, n, 4)]

    def bursts(self, walked: list[dict], burst: int) -> int:
        """The bursts the descriptors take: a block's lines cut at every `burst`-line boundary."""
        return sum((a + n - 1) // 64 // burst - a // 64 // burst + 1
                   for d in walked for a, n in self.blocks(d))


async def pusher(dut, rng: random.Random, descs: list[dict], p_push: float) -> None:
    """Offers each descriptor at random times, only while the FIFO has room (STATUS.FULL)."""
    for d in descs:
        while True:
            await FallingEdge(dut.clk)
            dut.push_valid.value = 0
            if rng.random() < p_push and not int(dut.status.value) >> 1 & 1:
                break
        dut.push_valid.value = 1
        for k in ("src", "dst", "len", "stride", "count", "next", "ctrl"):
            getattr(dut, f"push_{k}").value = d[k]
    await FallingEdge(dut.clk)
    dut.push_valid.value = 0


async def start(dut, extra_inputs: tuple, key: str, n: int):
    """Reset, the descriptor fetcher, and `n` random descriptors with their walks."""
    words = int(os.environ["RECORD_WORDS"])
    rng = random.Random(words * 31 + int(os.environ["MAX_BURST"]) + len(key))
    await reset(dut, DESC_INPUTS + extra_inputs)
    gen = Descs(rng, words, key)
    heads = [gen.desc() for _ in range(n)]
    walked = [w for d in heads for w in gen.walk(d)]
    cocotb.start_soon(fetcher(dut, gen, rng, 0.5, []))
    return rng, gen, heads, walked


async def finish(dut, walked: list[dict], gen: Descs, irqs: int) -> None:
    """Every descriptor complete once, its IRQ pulse each, its bytes counted, no error."""
    for _ in range(3):
        await FallingEdge(dut.clk)
    await ReadOnly()
    status = int(dut.status.value)
    assert status >> 32 == len(walked), f"DONE_COUNT {status >> 32}, {len(walked)} descriptors"
    assert status & 1 == 0 and (status >> 2) & 1, f"STATUS {status:#x}: busy or queue not empty"
    assert int(dut.error.value) == 0, f"ERROR {int(dut.error.value):#x}"
    assert irqs == sum(1 for d in walked if d["ctrl"] & IRQ), f"{irqs} interrupts"
    assert int(dut.bytes.value) == sum(n for d in walked for _, n in gen.blocks(d))
    assert int(dut.busy_cycles.value) > 0
    assert len(walked) > len(gen.table) >= 5, "too few chains"


async def count_irqs(dut, box: list) -> None:
    while True:
        await ReadOnly()
        box[0] += int(dut.irq_pulse.value)
        await FallingEdge(dut.clk)


@cocotb.test()
async def tx_dma_random(dut):
    """Read ahead to the PRIME_BEATS mark with the stream stalled, then random descriptors and
    chains read in bursts under random waitrequest, latency and sink back-pressure: the stream
    carries every block's words in order, last at each EOP descriptor's final word."""
    sw, reads = int(os.environ["STREAM_WORDS"]), int(os.environ["MAX_READS"])
    burst, prime = int(os.environ["MAX_BURST"]), int(os.environ["PRIME_BEATS"])
    rng, gen, heads, walked = await start(
        dut, ("rd_waitrequest", "rd_readdata", "rd_readdatavalid", "m_axis_tready"), "src", 40)
    stats = {"reads": 0}
    cocotb.start_soon(read_memory(dut, rng, {}, fill, stats, prefix="rd_", burst=burst))
    irqs = [0]
    cocotb.start_soon(count_irqs(dut, irqs))
    # a long block first, with the sink held: primed once PRIME_BEATS (or all of the
    # buffer) has arrived, not before
    big = {"src": 0x4000_0000, "dst": 0, "len": 4 * gen.rec_words * (16 * reads // gen.rec_words + 1), "stride": 0,
           "count": 1, "next": 0, "ctrl": EOP}
    walked.insert(0, big)
    await pusher(dut, rng, [big], 1.0)
    for cycle in range(4000):
        await ReadOnly()
        if stats["reads"] and int(dut.primed.value):
            break
        await FallingEdge(dut.clk)
    else:
        raise AssertionError("never primed")
    assert stats["answered"] >= min(prime, reads), f"primed after {stats['answered']} beats"
    want, lasts = [], set()
    for d in walked:
        want += [sum(fill(a + b) << 8 * b for b in range(4)) for a in gen.words(d)]
        if d["ctrl"] & EOP:
            lasts.add(len(want) - 1)
    cocotb.start_soon(pusher(dut, rng, heads, 0.3))
    got, got_lasts = [], set()
    p_ready = 0.3
    for cycle in range(400000):
        await FallingEdge(dut.clk)
        if cycle % 2000 == 0:
            p_ready = rng.choice([0.2, 0.7, 1.0])
        dut.m_axis_tready.value = int(rng.random() < p_ready)
        await ReadOnly()
        if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tready.value):
            cnt, last, data = int(dut.m_axis_cnt.value), int(dut.m_axis_tlast.value), int(dut.m_axis_tdata.value)
            assert 1 <= cnt <= sw and (last or cnt == sw), f"beat of {cnt} words, last {last}"
            new = [data >> (32 * k) & 0xFFFF_FFFF for k in range(cnt)]
            n = len(got) + cnt
            assert new == want[n - cnt:n], f"words {n - cnt}..{n - 1} differ"
            got += new
            if last:
                got_lasts.add(n - 1)
            if n == len(want) and int(dut.status.value) >> 32 == len(walked):
                break
    else:
        raise AssertionError(f"{len(got)} of {len(want)} words after {cycle} cycles")
    assert got_lasts == lasts, f"last flags at {sorted(got_lasts ^ lasts)[:5]} differ"
    assert stats["most_pending"] <= reads, f"{stats['most_pending']} beats in flight"
    assert stats["reads"] == gen.bursts(walked, burst), f"{stats['reads']} bursts"
    await finish(dut, walked, gen, irqs[0])
    assert int(dut.primed.value), "not primed with nothing left to read"


@cocotb.test()
async def rx_dma_random(dut):
    """Random descriptors and chains fed by a stream of random beat sizes and gaps under random
    waitrequest: every destination byte written once with its word, nothing else written, each
    burst buffered whole (write held through it) and inside a MAX_BURST boundary."""
    sw, burst = int(os.environ["STREAM_WORDS"]), int(os.environ["MAX_BURST"])
    rng, gen, heads, walked = await start(
        dut, ("s_axis_tvalid", "s_axis_tdata", "s_axis_cnt", "s_axis_tlast", "wr_waitrequest"), "dst", 40)
    mem: dict[int, int] = {}
    stats = {"bursts": 0, "longest": 0}
    cocotb.start_soon(write_memory(dut, rng, mem, stats, burst, prefix="wr_", aligned=True))
    irqs = [0]
    cocotb.start_soon(count_irqs(dut, irqs))
    want: dict[int, int] = {}
    words: list[tuple[int, int]] = []
    for d in walked:
        addrs = gen.words(d)
        for k, a in enumerate(addrs):
            w = rng.getrandbits(32)
            want.update({a + b: w >> 8 * b & 0xFF for b in range(4)})
            words.append((w, int(k == len(addrs) - 1 and bool(d["ctrl"] & EOP))))
    cocotb.start_soon(pusher(dut, rng, heads, 0.3))
    i, p_valid, valid = 0, 0.5, False
    for cycle in range(400000):
        await FallingEdge(dut.clk)
        if cycle % 2000 == 0:
            p_valid = rng.choice([0.2, 0.7, 1.0])
        dut.s_axis_tvalid.value = int(valid)
        if not valid:
            # a beat of 1..STREAM_WORDS words, ending at the packet's last word
            cnt = min(rng.choice([sw, sw, rng.randrange(1, sw + 1)]), len(words) - i)
            cnt = next((k + 1 for k in range(cnt) if words[i + k][1]), cnt)
            valid = bool(cnt) and rng.random() < p_valid
            if valid:
                dut.s_axis_tvalid.value, dut.s_axis_cnt.value = 1, cnt
                dut.s_axis_tdata.value = sum(words[i + k][0] << 32 * k for k in range(cnt))
                dut.s_axis_tlast.value = words[i + cnt - 1][1]
        await ReadOnly()
        if valid and int(dut.s_axis_tready.value):
            i += int(dut.s_axis_cnt.value)
            valid = False
        if i == len(words) and int(dut.status.value) >> 32 == len(walked):
            break
    else:
        raise AssertionError(f"{i} of {len(words)} words taken, {len(mem)} bytes written")
    assert mem.keys() == want.keys(), f"{len(mem.keys() ^ want.keys())} bytes written or missed wrongly"
    bad = [a for a in want if mem[a] != want[a]]
    assert not bad, f"{len(bad)} bytes differ, first at {bad[0]:#x}"
    assert stats["longest"] == burst and stats["bursts"] == gen.bursts(walked, burst), stats
    await finish(dut, walked, gen, irqs[0])
