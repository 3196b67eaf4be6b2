"""cocotb test of rdma_sort_stage: a writer's lines into bins' rings, handed to a model engine as
puts of whole chunks, read back through the stage, written into the destinations' memories.

The writer model writes every bin's keys as rdma_sort_stage expects them from the scatter
writer's grouping pass (a bin's lines in order at its region of the window, the last one in
part), the bins interleaved at random; the engine model takes commands with random
back-pressure, at most MAX_OPS in flight, reads each put's lines in command order with random
gaps (back to back at times, as the RDMA engine reads) and completes it after a random latency. Checked: every bin's bytes arrive at its
destination's region exactly; every put is whole chunks but a bin's last, none crosses a ring;
the number of puts; a slow engine makes the writer wait (the rings fill) without a hang; a
late write (an overflowing bin's spill) is dropped and counted; the counts' puts (a block of
card memory to every card of a mask) go once every bin's rest is issued, and idle waits for them."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from words_tb import reset

INPUTS = ["base", "cap_shift", "tbl_we", "tbl_bin", "tbl_dst", "tbl_remote", "card_id", "cnt_local", "cnt_remote",
          "cnt_len", "cnt_dests", "start", "flush",
          "w_write", "w_address", "w_writedata", "w_byteenable", "r_read", "r_address",
          "cmd_ready", "done", "done_code"]
BASE = 0x4000_0000
MAX_OPS = 4
READ_LATENCY = 2   # cycles from a read of the window to its data (the ring's address registered)


def _params():
    return (int(os.environ["BIN_BITS"]), int(os.environ["RING_LINES"]), int(os.environ["CHUNK_LINES"]))


COUNTS = (0x2000_0000, 0x1_8000_0040, 1024)   # the counts' puts: local (below the window), remote, bytes


async def _setup(dut, bins: int, cap_shift: int, rng: random.Random, dests: int = 0) -> dict[int, tuple[int, int]]:
    await reset(dut, INPUTS)
    dut.base.value = BASE
    dut.cap_shift.value = cap_shift
    dut.cnt_local.value, dut.cnt_remote.value, dut.cnt_len.value = COUNTS
    dut.cnt_dests.value = dests
    table = {}
    for b in range(bins):   # destination card and its region's address there
        table[b] = (rng.randrange(8), 0x1_0000_0000 + (b << cap_shift) + 64 * rng.randrange(16))
        await FallingEdge(dut.clk)
        dut.tbl_we.value = 1
        dut.tbl_bin.value = b
        dut.tbl_dst.value, dut.tbl_remote.value = table[b]
    await FallingEdge(dut.clk)
    dut.tbl_we.value = 0
    dut.start.value = 1
    await FallingEdge(dut.clk)
    dut.start.value = 0
    return table


def _lines(bins: int, words: dict[int, list[int]], cap_shift: int) -> dict[int, list[tuple[int, int, int]]]:
    """Every bin's writes (address, data, byte enables) as the scatter writer makes them."""
    out = {}
    for b in range(bins):
        w = words[b]
        out[b] = []
        for i in range(0, len(w), 16):
            part = w[i:i + 16]
            data = sum(x << (32 * j) for j, x in enumerate(part))
            be = (1 << (4 * len(part))) - 1
            out[b].append((BASE + (b << cap_shift) + 4 * i, data, be))
    return out


async def _engine(dut, mem: dict[int, bytearray], puts: list, rng: random.Random, p_read: float,
                  reads: list[int]):
    """Commands in, lines read in command order (a read in a cycle with probability p_read, its
    data exactly READ_LATENCY cycles later; reads[0] counts them), completions after a random
    latency."""
    queue: list[list] = []    # accepted puts: dst, local, remote, length, lines read, lines asked
    pending: list[int] = []   # cycles left before each read put's completion
    flight: list[list] = []   # reads asked: cycles left, their put
    while True:
        await FallingEdge(dut.clk)
        flight = [[t - 1, put] for t, put in flight]
        if flight and flight[0][0] == 0:   # the read asked READ_LATENCY cycles ago is answered now
            _, put = flight.pop(0)
            assert int(dut.r_readdatavalid.value) == 1, f"a read not answered {READ_LATENCY} cycles later"
            dst, _local, remote, length, got, _asked = put
            got.append(int(dut.r_readdata.value).to_bytes(64, "little"))
            if 64 * len(got) >= length:
                assert queue[0] is put, "a put's lines answered out of command order"
                queue.pop(0)
                base = remote - 0x1_0000_0000
                m = mem.setdefault(dst, bytearray())
                if len(m) < base + length:
                    m.extend(bytes(base + length - len(m)))
                m[base:base + length] = b"".join(got)[:length]
                pending.append(rng.randrange(1, 60))
        else:
            assert int(dut.r_readdatavalid.value) == 0, "data no read asked for"
        pending = [t - 1 for t in pending]
        fire = bool(pending) and pending[0] <= 0
        if fire:
            pending.pop(0)
        dut.done.value = int(fire)
        dut.done_code.value = 0
        ready = len(queue) + len(pending) < MAX_OPS and rng.random() < 0.7
        dut.cmd_ready.value = int(ready)
        unread = next((put for put in queue if 64 * put[5] < put[3]), None)
        reading = unread is not None and rng.random() < p_read
        dut.r_read.value = int(reading)
        if reading:
            dut.r_address.value = unread[1] + 64 * unread[5]
            unread[5] += 1
            flight.append([READ_LATENCY, unread])
            reads[0] += 1
        await ReadOnly()
        if ready and int(dut.cmd_valid.value):
            c = (int(dut.cmd_dst.value), int(dut.cmd_local.value), int(dut.cmd_remote.value),
                 int(dut.cmd_len.value))
            puts.append(c)
            if c[1] < BASE:   # card memory outside the window (the counts): read from DDR, not the stage
                pending.append(rng.randrange(1, 60))
            else:
                queue.append([*c, [], 0])


async def _write(dut, writes: list[tuple[int, int, int]]) -> int:
    """Writes held until taken; returns the cycles the writer waited."""
    waited = 0
    for addr, data, be in writes:
        while True:
            await FallingEdge(dut.clk)
            dut.w_write.value = 1
            dut.w_address.value = addr
            dut.w_writedata.value = data
            dut.w_byteenable.value = be
            await ReadOnly()
            if not int(dut.w_waitrequest.value):
                break
            waited += 1
    await FallingEdge(dut.clk)
    dut.w_write.value = 0
    return waited


async def _flush(dut) -> None:
    """The pass's writes are in: flush, and wait until the stage is idle."""
    dut.flush.value = 1
    await FallingEdge(dut.clk)
    dut.flush.value = 0
    for _ in range(200000):
        await RisingEdge(dut.clk)
        await ReadOnly()
        if int(dut.idle.value):
            return
    raise AssertionError(f"not idle after the flush: {int(dut.puts_done.value)} of {int(dut.puts.value)} puts done")


async def _run(dut, seed: int, p_read: float, keys_per_bin: int, dests: int = 0):
    bits, _ring_lines, chunk_lines = _params()
    bins = 1 << bits
    cap_shift = 16
    rng = random.Random(seed)
    table = await _setup(dut, bins, cap_shift, rng, dests)
    words = {b: [rng.getrandbits(32) for _ in range(rng.randrange(keys_per_bin))] for b in range(bins)}
    words[0] = words[0][:0]   # an empty bin
    words[bins - 1] = [rng.getrandbits(32) for _ in range(16 * chunk_lines * 3)]   # whole chunks only
    per_bin = _lines(bins, words, cap_shift)
    order = [b for b in range(bins) for _ in per_bin[b]]
    rng.shuffle(order)
    nxt = {b: 0 for b in range(bins)}
    writes = []
    for b in order:
        writes.append(per_bin[b][nxt[b]])
        nxt[b] += 1
    mem: dict[int, bytearray] = {}
    puts: list = []
    reads = [0]
    cocotb.start_soon(_engine(dut, mem, puts, rng, p_read, reads))
    waited = await _write(dut, writes)
    await _flush(dut)
    chunk = 64 * chunk_lines
    want_puts = sum(-(-4 * len(words[b]) // chunk) for b in range(bins))
    counted = [c for c in range(64) if dests >> c & 1]
    assert len(puts) == want_puts + len(counted) == int(dut.puts.value) == int(dut.puts_done.value), \
        f"{len(puts)} puts, {want_puts} + {len(counted)} expected"
    # the counts' puts last, after every bin's rest, one to each card of the mask
    assert puts[want_puts:] == [(c, *COUNTS) for c in counted], f"the counts' puts: {puts[want_puts:]}"
    puts = puts[:want_puts]
    assert int(dut.err_code.value) == 0 and int(dut.dropped.value) == 0
    # the cycle counters: the writer's waits and the engine's reads as counted here, the pass's
    # cycles frozen at idle and covering both
    cycles = int(dut.pass_cycles.value)
    assert int(dut.writer_waits.value) == waited and int(dut.engine_reads.value) == reads[0]
    assert cycles >= len(writes) + waited and int(dut.engine_reads.value) + int(dut.engine_gaps.value) <= cycles
    for _ in range(5):
        await RisingEdge(dut.clk)
    assert int(dut.pass_cycles.value) == cycles, "the pass's cycles went on after idle"
    for dst, local, remote, length in puts:
        off = local - BASE
        b, pos = off >> cap_shift, off & ((1 << cap_shift) - 1)
        assert dst == table[b][0], f"bin {b}'s put went to card {dst}"
        assert remote == table[b][1] + pos, "a put's remote offset differs from its local one"
        assert pos % chunk == 0 and 0 < length <= chunk, f"put at {pos:#x} of {length} bytes: not a chunk"
        assert length == chunk or pos + length == 4 * len(words[b]), "a short put that is not a bin's last"
    for b in range(bins):
        dst, remote = table[b]
        got = bytes(mem.get(dst, bytearray())[remote - 0x1_0000_0000:][:4 * len(words[b])])
        want = b"".join(x.to_bytes(4, "little") for x in words[b])
        assert got == want, f"bin {b}: its {len(words[b])} keys arrived wrong"
    return waited


@cocotb.test()
async def stage_fast_engine(dut):
    await _run(dut, seed=1, p_read=0.9, keys_per_bin=3000)


@cocotb.test()
async def stage_count_puts(dut):
    """After the flush, once every bin's rest is issued, the counts go to every card of the
    mask (this card's own among them), and idle waits until they have completed."""
    await _run(dut, seed=5, p_read=0.7, keys_per_bin=700, dests=(1 << 0) | (1 << 3) | (1 << 5) | (1 << 63))


@cocotb.test()
async def stage_slow_engine(dut):
    """An engine reading a line every 8 cycles or so: the rings fill and the writer waits."""
    _bits, ring_lines, _ = _params()
    waited = await _run(dut, seed=2, p_read=0.12, keys_per_bin=16 * ring_lines * 6)
    assert waited > 0, "a slow engine never made the writer wait: the rings did not fill"


@cocotb.test()
async def stage_drops_late_writes(dut):
    """A write below what the engine has read of its bin is dropped, not written over newer lines."""
    bits, _ring_lines, chunk_lines = _params()
    rng = random.Random(3)
    cap_shift = 16
    await _setup(dut, 1 << bits, cap_shift, rng)
    mem: dict[int, bytearray] = {}
    puts: list = []
    cocotb.start_soon(_engine(dut, mem, puts, rng, 1.0, [0]))
    words = [rng.getrandbits(32) for _ in range(16 * chunk_lines)]
    await _write(dut, _lines(1, {0: words}, cap_shift)[0])
    for _ in range(400):
        await RisingEdge(dut.clk)
    assert len(puts) == 1
    await _write(dut, [(BASE, 0xDEAD, 0xF)])   # line 0 of bin 0 again: already read
    for _ in range(8):                          # through the stage's input registers
        await RisingEdge(dut.clk)
    await ReadOnly()
    assert int(dut.dropped.value) == 1 and len(puts) == 1


async def _spill(dut, seed: int, p_read: float, n: int, paired: bool) -> int:
    """Two writers' lines in bin 1's region (n lines each, in order), then every line sent
    checked against its place; returns the lines dropped."""
    bits, ring_lines, _chunk_lines = _params()
    rng = random.Random(seed)
    cap_shift = 16
    table = await _setup(dut, 1 << bits, cap_shift, rng)
    mem: dict[int, bytearray] = {}
    puts: list = []
    engine = cocotb.start_soon(_engine(dut, mem, puts, rng, p_read, [0]))
    region = BASE + (1 << cap_shift)   # bin 1's
    order: list[tuple[int, int]] = []   # (writer, line)
    if paired:   # the second writer a ring behind, a line after each of the first's
        for line in range(n):
            order += [(0, line)] + ([(1, line - ring_lines)] if line >= ring_lines else [])
    else:        # bursts, one writer running a few rings ahead of the other at times
        nxt = [0, 0]
        while min(nxt) < n:
            src = rng.randrange(2) if max(nxt) < n else nxt.index(min(nxt))
            for _ in range(rng.randrange(1, 3 * ring_lines)):
                if nxt[src] == n:
                    break
                order.append((src, nxt[src]))
                nxt[src] += 1
    # the line's place in its low word: what a read at that place must show
    writes = [(region + 64 * line, line | (src << 32) | (rng.getrandbits(448) << 64), (1 << 64) - 1)
              for src, line in order]
    await _write(dut, writes)
    await _flush(dut)
    await FallingEdge(dut.clk)
    engine.cancel()
    dst, remote = table[1]
    got = mem[dst][remote - 0x1_0000_0000:][:64 * n]
    assert len(got) == 64 * n, f"{len(got) // 64} of the region's {n} lines sent"
    for line in range(n):
        tag = int.from_bytes(got[64 * line:64 * line + 4], "little")
        assert tag == line, f"seed {seed}: the line sent at place {line} was written at place {tag}"
    return int(dut.dropped.value)


@cocotb.test()
async def stage_spill_never_aliases(dut):
    """Two writers in one bin's region, as a bin that overflowed spills into the next: each
    writes the region's lines in order, in bursts that run one a few rings ahead of the other,
    while the engine reads at different speeds. Every line the engine sends at a place was
    written at that place (a late line is dropped, never written over the newer line that
    shares its slot), lines are dropped, and every pass ends."""
    _bits, ring_lines, _ = _params()
    dropped = 0
    for seed in range(4, 12):
        dropped += await _spill(dut, seed, (0.3, 0.6, 0.9)[seed % 3], 16 * ring_lines, paired=seed % 2 == 0)
    assert dropped > 0, "no late line: the writers never ran a ring apart"
