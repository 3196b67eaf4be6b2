"""cocotb tests of the sort's scatter writer (shell/shell_sort_scatter.v) against numpy: a
whole beat a cycle, stable, under random stalls of the RX engine and the memory."""
from __future__ import annotations

import random

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

BASE = 0x2800
CFG, BINS, SHIFT, DST, HIST, N, CTRL, STATUS, RANGE, LINES, CYCLES = (BASE + 8 * i for i in range(11))
BINS_HI, RANGE_HI = BASE + 0x60, BASE + 0x68
MASK32 = (1 << 32) - 1


class Bench:
    """The writer between a stream of beats (the RX engine) and a word memory."""

    def __init__(self, dut, rng: random.Random) -> None:
        self.dut, self.rng, self.mem, self.p_wait = dut, rng, {}, 0.0

    async def start(self) -> None:
        d = self.dut
        cocotb.start_soon(Clock(d.clk, 5, unit="ns").start())
        d.rst.value = 1
        for name in ("mmio_wr_valid", "mmio_rd_valid", "s_write", "m_waitrequest", "s_address", "s_burstcount",
                     "s_writedata", "s_byteenable", "mmio_wr_addr", "mmio_wr_data", "mmio_rd_addr"):
            getattr(d, name).value = 0
        for _ in range(3):
            await RisingEdge(d.clk)
        d.rst.value = 0
        cocotb.start_soon(self._memory())

    async def _memory(self) -> None:
        """Takes a line when write is up and waitrequest down; waitrequest at random."""
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            wait = self.rng.random() < self.p_wait
            d.m_waitrequest.value = int(wait)
            await ReadOnly()
            if int(d.m_write.value) and not wait:
                addr, data, be = int(d.m_address.value), int(d.m_writedata.value), int(d.m_byteenable.value)
                assert addr % 64 == 0 and int(d.m_burstcount.value) == 1
                for w in range(16):
                    if (be >> (4 * w)) & 0xF == 0xF:
                        self.mem[addr // 4 + w] = (data >> (32 * w)) & MASK32
                    else:
                        assert (be >> (4 * w)) & 0xF == 0, "a word written in part"

    async def write(self, addr: int, value: int) -> None:
        d = self.dut
        await FallingEdge(d.clk)
        d.mmio_wr_valid.value, d.mmio_wr_addr.value, d.mmio_wr_data.value = 1, addr, value
        await FallingEdge(d.clk)
        d.mmio_wr_valid.value = 0

    async def read(self, addr: int) -> int:
        d = self.dut
        await FallingEdge(d.clk)
        d.mmio_rd_valid.value, d.mmio_rd_addr.value = 1, addr
        await FallingEdge(d.clk)
        d.mmio_rd_valid.value = 0
        return int(d.mmio_rd_resp_data.value)

    async def stream(self, words: np.ndarray, at: int, p_valid: float) -> int:
        """The RX engine's beats of `words` written from word `at` of a line; returns the
        cycles from the first beat to the last but one taken (the writer holds the last
        one until the pass is in memory)."""
        d, beats, w = self.dut, [], list(words) + [0] * 16
        first, k = at % 16, 0
        while k < len(words):
            cnt = min(16 - first, len(words) - k)
            data = sum(int(v) << (32 * (first + i)) for i, v in enumerate(w[k:k + cnt]))
            be = sum(0xF << (4 * (first + i)) for i in range(cnt))
            beats.append((data, be))
            k, first = k + cnt, 0
        i = cycles = 0
        while i < len(beats):
            await FallingEdge(d.clk)
            v = self.rng.random() < p_valid
            d.s_write.value = int(v)
            d.s_writedata.value, d.s_byteenable.value = beats[i]
            await ReadOnly()
            cycles += (i > 0 or v) and i < len(beats) - 1
            if v and not int(d.s_waitrequest.value):
                i += 1
        await FallingEdge(d.clk)
        d.s_write.value = 0
        return cycles

    async def run(self, elems: np.ndarray, n: int, *, count: tuple[int, int], bits: int = 0, pairs: bool = False,
                  scatter: tuple[int, int, int] | None = None, dump: int | None = None, p_valid: float = 1.0,
                  at: int = 0, u64: bool = False) -> int:
        """One pass (with u64 over uint64 keys, `elems` their words); returns its stream's cycles."""
        (clo, csh), (slo, ssh, dst) = count, scatter or (0, 0, 0)
        await self.write(CFG, 1 | (2 if scatter else 0) | (4 if dump is not None else 0) | (8 if pairs else 0)
                         | (64 if u64 else 0))
        await self.write(BINS, (slo & MASK32) | (clo & MASK32) << 32)
        if u64:
            await self.write(BINS_HI, slo >> 32 | (clo >> 32) << 32)
        await self.write(SHIFT, ssh | csh << 8 | bits << 16)
        await self.write(DST, dst)
        await self.write(HIST, dump or 0)
        await self.write(N, n)
        await self.write(CTRL, 1)
        cycles = await self.stream(elems, at, p_valid) if n else 0
        for _ in range(10000):
            status = await self.read(STATUS)
            if status & 2:
                break
        else:
            raise AssertionError(f"no DONE: status {status:#x}")
        assert status & 4 == 0 and status >> 32 == n, f"status {status:#x}"
        await self.write(CFG, 0)
        return cycles

    def words(self, addr: int, count: int) -> np.ndarray:
        return np.array([self.mem.get(addr // 4 + i, 0xDEADBEEF) for i in range(count)], np.uint32)


def _bins(keys: np.ndarray, lo: int, sh: int, bits: int) -> np.ndarray:
    return (((keys - np.uint32(lo)) >> np.uint32(sh)) & np.uint32((1 << bits) - 1)).astype(np.int64)


async def _bench(dut, seed: int) -> tuple[Bench, int]:
    b = Bench(dut, random.Random(seed))
    await b.start()
    return b, (await b.read(STATUS)) >> 8 & 0xF


async def _two_passes(b: Bench, max_bits: int, keys: np.ndarray, bits: int, pairs: bool, p_valid: float,
                      p_wait: float) -> None:
    """A count pass with a dump, then a scatter pass counting the next digit, from a
    source and to a destination that are no line start; checks places, dumps and lines."""
    bits = min(bits, max_bits)
    b.mem.clear()
    b.p_wait = p_wait
    n, lo = keys.size, int(keys.min())
    pays = np.arange(n, dtype=np.uint32) * 7 + 3
    elems = np.stack([keys, pays], axis=1).ravel() if pairs else keys
    w = 2 if pairs else 1
    dump, dst, sh = 0x100000, 0x200000 + (24 if pairs else 12), 4
    await b.run(elems, n, count=(lo, sh), bits=bits, pairs=pairs, dump=dump, p_valid=p_valid, at=6 if pairs else 3)
    nb = 1 << bits
    head = b.words(dump, 16)
    assert (head[0], head[2], head[4]) == (keys.min(), keys.max(), n)
    assert np.array_equal(b.words(dump + 64, max(nb, 16))[:nb], np.bincount(_bins(keys, lo, sh, bits), minlength=nb))
    await b.run(elems, n, count=(lo, sh + bits), bits=bits, pairs=pairs, scatter=(lo, sh, dst), dump=dump,
                p_valid=p_valid, at=4 if pairs else 5)
    order = np.argsort(_bins(keys, lo, sh, bits), kind="stable")
    got = b.words(dst, w * n)
    assert np.array_equal(got, elems.reshape(n, w)[order].ravel()), "places differ from a stable counting sort"
    assert np.array_equal(b.words(dump + 64, max(nb, 16))[:nb],
                          np.bincount(_bins(keys, lo, sh + bits, bits), minlength=nb))
    assert b.mem.get(dst // 4 - 1) is None and b.mem.get(dst // 4 + w * n) is None, "words outside the keys written"
    lines = await b.read(LINES)
    used = np.count_nonzero(np.bincount(_bins(keys, lo, sh, bits)))
    full, partial = lines & MASK32, lines >> 32
    assert partial <= 2 * used and full * 16 + partial <= w * n + 16 * partial
    assert full * 16 >= w * n - 30 * used


@cocotb.test()
async def random_keys_stalls(dut):
    """Random keys over the widest bins, and with 16 bins (several keys of a bin in every
    beat), under stalls of both sides."""
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 1 << 24, 3001, dtype=np.uint32)
    # one bin, many beats in a row, distinct words (a lane's forwarding of the bin's place
    # and line buffer from the segment just before is what keeps them)
    keys[700:1100] = (keys[699] & ~np.uint32(15)) | rng.integers(0, 16, 400, dtype=np.uint32)
    b, max_bits = await _bench(dut, 1)
    await _two_passes(b, max_bits, keys, 12, False, 0.7, 0.3)
    await _two_passes(b, max_bits, keys, 4, False, 0.8, 0.2)


@cocotb.test()
async def pairs_and_equal_keys(dut):
    """Key-payload pairs (8 a beat) follow their keys; all-equal keys keep their order."""
    rng = np.random.default_rng(2)
    b, max_bits = await _bench(dut, 3)
    await _two_passes(b, max_bits, rng.integers(0, 1 << 20, 1499, dtype=np.uint32), 12, True, 0.6, 0.3)
    await _two_passes(b, max_bits, np.full(517, 12345, np.uint32), 8, True, 1.0, 0.0)
    await _two_passes(b, max_bits, 5000 + rng.integers(0, 16, 700, dtype=np.uint32), 8, False, 1.0, 0.0)
    await _two_passes(b, max_bits, np.full(1000, 7, np.uint32), 12, False, 1.0, 0.1)


def _bins64(keys: np.ndarray, lo: int, sh: int, bits: int) -> np.ndarray:
    return (((keys - np.uint64(lo)) >> np.uint64(sh)) & np.uint64((1 << bits) - 1)).astype(np.int64)


async def _u64_passes(b: Bench, max_bits: int, keys: np.ndarray, lo: int, sh: int, bits: int, p_valid: float,
                      p_wait: float) -> None:
    """U64: a count pass with a dump (the 64-bit range), then a scatter pass counting the
    next digit, the keys' words from and to places that are no line start."""
    bits = min(bits, max_bits)
    b.mem.clear()
    b.p_wait = p_wait
    n, words = keys.size, keys.view(np.uint32)
    dump, dst, nb = 0x100000, 0x200000 + 40, 1 << bits
    await b.run(words, n, count=(lo, sh), bits=bits, dump=dump, p_valid=p_valid, at=6, u64=True)
    head = b.words(dump, 16)
    assert head[0:4].view(np.uint64).tolist() == [keys.min(), keys.max()] and head[4] == n
    rng_lo, rng_hi = await b.read(RANGE), await b.read(RANGE_HI)
    assert (rng_lo & MASK32 | (rng_hi & MASK32) << 32, rng_lo >> 32 | (rng_hi >> 32) << 32) == (keys.min(), keys.max())
    assert np.array_equal(b.words(dump + 64, max(nb, 16))[:nb], np.bincount(_bins64(keys, lo, sh, bits), minlength=nb))
    await b.run(words, n, count=(lo, sh + bits), bits=bits, scatter=(lo, sh, dst), dump=dump, p_valid=p_valid, at=10,
                u64=True)
    order = np.argsort(_bins64(keys, lo, sh, bits), kind="stable")
    assert np.array_equal(b.words(dst, 2 * n).view(np.uint64), keys[order]), "places differ from a stable counting sort"
    assert np.array_equal(b.words(dump + 64, max(nb, 16))[:nb],
                          np.bincount(_bins64(keys, lo, sh + bits, bits), minlength=nb))
    assert b.mem.get(dst // 4 - 1) is None and b.mem.get(dst // 4 + 2 * n) is None, "words outside the keys written"


@cocotb.test()
async def uint64_keys(dut):
    """uint64 keys, 8 a beat: bins of the top byte over the full range, a digit across the
    keys' two words, keys a little under and over 2^32 steps (the subtraction's borrow)
    with a 64-bit low, all-equal keys; 32-bit keys afterwards as before."""
    rng = np.random.default_rng(9)
    b, max_bits = await _bench(dut, 9)
    keys = rng.integers(0, 2**64 - 1, 1203, dtype=np.uint64, endpoint=True)
    keys[300:500] = keys[299]
    await _u64_passes(b, max_bits, keys, 0, 56, 8, 0.7, 0.3)
    await _u64_passes(b, max_bits, keys, int(keys.min()), 26, 12, 1.0, 0.1)
    lo = (0xFFFF_FFF3 << 32) - 5000
    near = lo + rng.integers(0, 3 << 32, 999, dtype=np.uint64)
    await _u64_passes(b, max_bits, near, lo, 0, 12, 0.8, 0.2)
    await _u64_passes(b, max_bits, near, lo, 32, 4, 0.8, 0.2)
    await _u64_passes(b, max_bits, np.full(77, 0xDEAD_BEEF_0123_4567, np.uint64), 0xDEAD_BEEF_0000_0000, 16, 8,
                      1.0, 0.0)
    await _two_passes(b, max_bits, rng.integers(0, 1 << 20, 501, dtype=np.uint32), 8, False, 0.9, 0.1)


async def _u64_pair_passes(b: Bench, max_bits: int, keys: np.ndarray, lo: int, sh: int, bits: int, p_valid: float,
                           p_wait: float) -> None:
    """U64 with PAIRS: 16-byte elements (key, payload, a word carried along), 4 a beat, a
    count pass with a dump, then a scatter pass, from and to places that are no line start."""
    bits = min(bits, max_bits)
    b.mem.clear()
    b.p_wait = p_wait
    n, nb = keys.size, 1 << bits
    elems = np.zeros((n, 4), np.uint32)
    elems[:, 0:2] = keys.view(np.uint32).reshape(n, 2)
    elems[:, 2] = np.arange(n, dtype=np.uint32) * 5 + 1
    elems[:, 3] = np.arange(n, dtype=np.uint32) ^ 0xA5A5_0000
    dump, dst = 0x100000, 0x200000 + 48
    await b.run(elems.ravel(), n, count=(lo, sh), bits=bits, pairs=True, dump=dump, p_valid=p_valid, at=4, u64=True)
    head = b.words(dump, 16)
    assert head[0:4].view(np.uint64).tolist() == [keys.min(), keys.max()] and head[4] == n
    assert np.array_equal(b.words(dump + 64, max(nb, 16))[:nb], np.bincount(_bins64(keys, lo, sh, bits), minlength=nb))
    await b.run(elems.ravel(), n, count=(lo, sh + bits), bits=bits, pairs=True, scatter=(lo, sh, dst), dump=dump,
                p_valid=p_valid, at=8, u64=True)
    order = np.argsort(_bins64(keys, lo, sh, bits), kind="stable")
    assert np.array_equal(b.words(dst, 4 * n).reshape(n, 4), elems[order]), \
        "elements differ from a stable counting sort"
    assert np.array_equal(b.words(dump + 64, max(nb, 16))[:nb],
                          np.bincount(_bins64(keys, lo, sh + bits, bits), minlength=nb))
    assert b.mem.get(dst // 4 - 1) is None and b.mem.get(dst // 4 + 4 * n) is None, "words outside the keys written"


@cocotb.test()
async def uint64_keys_with_payloads(dut):
    """uint64 keys with payloads, 4 a beat: the top byte over the full range, a digit across
    the key's two words, many equal keys in a row (their payloads keep the stream order),
    all-equal keys; the capability bit; 8-byte pairs afterwards as before."""
    rng = np.random.default_rng(11)
    b, max_bits = await _bench(dut, 11)
    assert (await b.read(STATUS)) >> 14 & 1, "STATUS.U64_PAIRS clear"
    keys = rng.integers(0, 2**64 - 1, 1001, dtype=np.uint64, endpoint=True)
    keys[200:420] = keys[199]
    await _u64_pair_passes(b, max_bits, keys, 0, 56, 8, 0.7, 0.3)
    await _u64_pair_passes(b, max_bits, keys, int(keys.min()), 26, 12, 1.0, 0.1)
    await _u64_pair_passes(b, max_bits, np.full(93, 0x0123_4567_89AB_CDEF, np.uint64), 0, 0, 4, 0.9, 0.0)
    await _two_passes(b, max_bits, rng.integers(0, 1 << 20, 333, dtype=np.uint32), 8, True, 0.9, 0.1)


@cocotb.test()
async def a_beat_a_cycle(dut):
    """Without stalls a scatter pass over 256 bins takes a beat nearly every cycle: 16 keys
    a cycle (with 37 keys a bin most lines leave whole, at one a beat on average)."""
    b, max_bits = await _bench(dut, 6)
    keys = np.random.default_rng(6).integers(0, 1 << 32, 16 * 600, dtype=np.uint64).astype(np.uint32)
    await b.run(keys, keys.size, count=(0, 24), bits=8)
    cycles = await b.run(keys, keys.size, count=(0, 0), bits=8, scatter=(0, 24, 0x40000))
    prep = (1 << max_bits) // 16   # START's prefix sums, 16 bins a cycle, before the first beat
    assert cycles <= 600 * 1.05 + prep, f"{cycles} cycles for 600 beats"
    assert np.array_equal(b.words(0x40000, keys.size), keys[np.argsort(keys >> np.uint32(24), kind="stable")])
    # the pass: the prefix sums (16 bins a cycle), the beats, the flush of every bin's last line
    total = await b.read(CYCLES)
    assert total <= cycles + (1 << max_bits) // 16 + 256 + 64
    # one bin: a segment of one lane a beat, whose lines must still leave a line a cycle
    one = keys & np.uint32(0x00FFFFFF)
    await b.run(one, one.size, count=(0, 24), bits=8)
    cycles = await b.run(one, one.size, count=(0, 0), bits=8, scatter=(0, 24, 0x40000))
    assert cycles <= 600 * 1.05 + prep, f"{cycles} cycles for 600 beats of one bin"
    assert np.array_equal(b.words(0x40000, one.size), one)


@cocotb.test()
async def overrun_and_empty_pass(dut):
    """Words past N are dropped and flagged; a pass of no keys only dumps."""
    b, _ = await _bench(dut, 7)
    keys = np.arange(40, dtype=np.uint32)[::-1].copy()
    await b.write(CFG, 1)
    await b.write(N, 10)
    await b.write(CTRL, 1)
    await b.stream(keys, 0, 1.0)
    for _ in range(1000):
        status = await b.read(STATUS)
        if status & 2:
            break
    assert status & 0b110 == 0b110 and status >> 32 == 10
    assert await b.read(RANGE) == (39 << 32) | 30
    await b.write(CFG, 0)
    await b.run(np.zeros(0, np.uint32), 0, count=(0, 0), dump=0x1000)
    assert b.words(0x1000, 5).tolist()[:5] == [MASK32, 0, 0, 0, 0]

