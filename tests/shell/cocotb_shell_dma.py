"""cocotb tests of afu_top in loop-back: CSRs, TX/RX SGDMA with random lengths, addresses,
2-D strides and chains against a memory model with random back-pressure, and errors."""
from __future__ import annotations

import random

import cocotb
from shell_card_model import (
    A_BASE,
    B_BASE,
    CHAIN,
    CSR,
    EOP,
    H_BASE,
    IRQ,
    REGION_BYTES,
    SOP,
    Card,
    desc_bytes,
    reg,
)

REG_DEFAULTS = [0x11111111, 0x22222222, 0x33333333, 0x44444444]
BASES = (A_BASE, B_BASE, H_BASE)


def rand_addr(rng, base, length, margin=256):
    return base + margin + 4 * rng.randrange((REGION_BYTES - length - 2 * margin) // 4)


def check_copy(card, before, src_blocks, dst_blocks):
    """Destination blocks hold the source bytes; every other byte of every region is unchanged."""
    data = b"".join(before_read(before, a, n) for a, n in src_blocks)
    expect = {b: bytearray(buf) for b, buf in before.items()}
    pos = 0
    for a, n in dst_blocks:
        base = max(b for b in BASES if b <= a)
        expect[base][a - base:a - base + n] = data[pos:pos + n]
        pos += n
    for b in BASES:
        if card.mem[b] != expect[b]:
            diff = next(i for i in range(REGION_BYTES) if card.mem[b][i] != expect[b][i])
            raise AssertionError(f"memory {b:#x} differs at +{diff:#x}")


def before_read(before, a, n):
    base = max(b for b in BASES if b <= a)
    return bytes(before[base][a - base:a - base + n])


def snapshot(card):
    return {b: bytes(buf) for b, buf in card.mem.items()}


async def started(dut, seed, **timing):
    """A card out of reset with its memories filled at random (`seed`: the card's random
    source; `timing`: Card's memory timing)."""
    card = Card(dut, seed=seed, **timing)
    await card.start()
    card.randomize()
    return card


async def assert_clean(card):
    """Neither engine reports an error, and no bus protocol rule was broken."""
    assert await card.error("tx") == 0 and await card.error("rx") == 0
    assert card.violations == []


async def transfer(card, src, dst, length, tx_geom=None, rx_geom=None, irq=True):
    """One TX + RX descriptor pair; geometries are (block_len, stride, count)."""
    tl, ts, tc = tx_geom or (length, 0, 0)
    rl, rs, rc = rx_geom or (length, 0, 0)
    n_rx = await card.done_count("rx")
    await card.desc("rx", dst=dst, length=rl, stride=rs, count=rc, ctrl=EOP | (IRQ if irq else 0))
    await card.desc("tx", src=src, length=tl, stride=ts, count=tc, ctrl=SOP | EOP)
    await card.wait_done("rx", n_rx + 1)


@cocotb.test()
async def csr_read_write(dut):
    card = Card(dut, seed=3)
    await card.start()
    assert await card.mmio_read(reg("DFH")) == 0x1000010000000000
    assert await card.mmio_read(reg("AFU_ID_L")) == CSR.afu_id_l
    assert await card.mmio_read(reg("AFU_ID_H")) == CSR.afu_id_h
    assert await card.mmio_read(reg("DFH_RSVD0")) == 0
    info = await card.mmio_read(reg("SHELL_INFO"))
    assert info & 0xFFFF == CSR.version[0] << 8 | CSR.version[1]
    assert (info >> 16 & 0xFF, info >> 24 & 0xFF, info >> 32 & 0xFF, info >> 40 & 0xFF,
            info >> 48 & 0xFF) == (0, 1, 1, 4, 16)
    rng = random.Random(1)
    for _ in range(5):
        v = rng.getrandbits(64)
        await card.mmio_write(reg("SCRATCH"), v)
        assert await card.mmio_read(reg("SCRATCH")) == v
    for i, d in enumerate(REG_DEFAULTS):
        assert await card.mmio_read(reg("CORE_REG") + 8 * i) == d
    await card.mmio_write(reg("CORE_REG") + 8 * 2, 0xDEADBEEF)
    await card.mmio_write(reg("CORE_REG") + 8 * 7, 0x1234)        # beyond N_REGS: ignored
    assert await card.mmio_read(reg("CORE_REG") + 8 * 2) == 0xDEADBEEF
    assert await card.mmio_read(reg("CORE_REG") + 8 * 7) == 0
    for e in ("TX", "RX"):
        vals = {n: rng.getrandbits(64) for n in ("DESC_SRC", "DESC_DST", "DESC_STRIDE", "DESC_NEXT")}
        for n, v in vals.items():
            await card.mmio_write(reg(f"{e}_{n}"), v)
        for n, v in vals.items():
            assert await card.mmio_read(reg(f"{e}_{n}")) == v
        await card.mmio_write(reg(f"{e}_DESC_LEN"), 0xFFFF_FFFF_1234_5678)
        assert await card.mmio_read(reg(f"{e}_DESC_LEN")) == 0x1234_5678
        st = await card.mmio_read(reg(f"{e}_STATUS"))
        assert st & 1 == 0 and st >> 2 & 1 == 1 and st >> 32 == 0   # idle, FIFO empty, nothing done
    await card.mmio_write(reg("IRQ_ENABLE"), 1)
    assert await card.mmio_read(reg("IRQ_ENABLE")) == 1
    assert await card.mmio_read(0x3FFF8) == 0                    # unmapped
    c0 = await card.mmio_read(reg("CYCLES"))
    c1 = await card.mmio_read(reg("CYCLES"))
    assert c1 > c0
    # soft reset keeps Reg values and scratch, clears engines
    await card.mmio_write(reg("SHELL_CTRL"), 1)
    assert await card.mmio_read(reg("CORE_REG") + 8 * 2) == 0xDEADBEEF
    assert card.violations == []


@cocotb.test()
async def random_transfers(dut):
    """Random sizes (4 B .. 8 KiB and powers of two) and 4-byte aligned addresses, all six routes."""
    card = await started(dut, 5)
    rng = random.Random(5)
    sizes = [4, 8, 60, 64, 68, 128, 4096] + [4 * rng.randint(1, 2048) for _ in range(14)]
    for i, length in enumerate(sizes):
        sb, db = BASES[i % 3], BASES[(i // 3 + i) % 3]
        src, dst = rand_addr(rng, sb, length), rand_addr(rng, db, length)
        if sb == db and abs(src - dst) < length + 64:
            dst = sb + (src - sb + length + 4096) % (REGION_BYTES - length - 512) + 256
            dst -= dst % 4
        before = snapshot(card)
        card.irq_seen = [0, 0]
        await transfer(card, src, dst, length)
        check_copy(card, before, [(src, length)], [(dst, length)])
        assert card.irq_seen[1] == 1, "no RX interrupt"
        assert await card.mmio_read(reg("IRQ_STATUS")) & 2
        await card.mmio_write(reg("IRQ_STATUS"), 3)
        assert await card.mmio_read(reg("IRQ_STATUS")) == 0
    assert await card.mmio_read(reg("TX_BYTES")) == sum(sizes)
    assert await card.mmio_read(reg("RX_BYTES")) == sum(sizes)
    await assert_clean(card)


@cocotb.test()
async def block_stride_2d(dut):
    """2-D gathers (TX), scatters (RX) and both, random geometry."""
    card = await started(dut, 7)
    rng = random.Random(7)
    for i in range(12):
        words = rng.randint(1, 40)
        tc = rng.randint(1, 12)
        total = 4 * words * tc
        # RX splits the same total into a different block count
        rc = rng.choice([c for c in range(1, 13) if (total // 4) % c == 0])
        tl, rl = 4 * words, total // rc
        ts = tl + 4 * rng.randint(0, 50) if i % 3 != 1 else 0
        rs = rl + 4 * rng.randint(0, 50) if i % 3 != 0 else 0
        tspan = ts * (tc - 1) + tl if ts else total
        rspan = rs * (rc - 1) + rl if rs else total
        src = rand_addr(rng, BASES[i % 3], tspan)
        dst = rand_addr(rng, BASES[(i + 1) % 3], rspan)
        before = snapshot(card)
        tgeom = (tl, ts, tc) if ts else None
        rgeom = (rl, rs, rc) if rs else None
        await transfer(card, src, dst, total, tgeom, rgeom)
        sblocks = [(src + k * ts, tl) for k in range(tc)] if ts else [(src, total)]
        dblocks = [(dst + k * rs, rl) for k in range(rc)] if rs else [(dst, total)]
        check_copy(card, before, sblocks, dblocks)
    await assert_clean(card)


@cocotb.test()
async def chained_tables(dut):
    """Descriptor tables in memory (any region), chained; a pure jump; random lengths."""
    card = await started(dut, 9)
    rng = random.Random(9)
    for rnd in range(3):
        n = rng.randint(2, 6)
        lens = [4 * rng.randint(1, 300) for _ in range(n)]
        total = sum(lens)
        src_blocks = [(rand_addr(rng, BASES[(k + rnd) % 3], L, 512), L) for k, L in enumerate(lens)]
        # TX: a table of n gathers, RX: one jump then one contiguous descriptor
        tx_tab = rng.choice(BASES) + 0x80000 + 0x1000 * rnd
        rx_tab = rng.choice(BASES) + 0x90000 + 0x1000 * rnd
        dst = rand_addr(rng, BASES[rnd % 3], total) & ~0x3
        # keep sources, tables and destination apart
        dst = (dst & ~0xFFFFF) + 0xA0000 + 4 * rng.randrange(1000)
        for k, (a, L) in enumerate(src_blocks):
            last = k == n - 1
            card.write(tx_tab + 64 * k, desc_bytes(src=a, length=L, nxt=tx_tab + 64 * (k + 1),
                                                   ctrl=(EOP if last else CHAIN) | (IRQ if last else 0)))
        card.write(rx_tab, desc_bytes(nxt=rx_tab + 128, ctrl=CHAIN))          # jump
        card.write(rx_tab + 128, desc_bytes(dst=dst, length=total, ctrl=EOP | IRQ))
        before = snapshot(card)
        n_tx, n_rx = await card.done_count("tx"), await card.done_count("rx")
        await card.desc("rx", nxt=rx_tab, ctrl=CHAIN)                        # MMIO jump into table
        await card.desc("tx", nxt=tx_tab, ctrl=CHAIN | SOP)
        await card.wait_done("rx", n_rx + 3)
        await card.wait_done("tx", n_tx + 1 + n)
        check_copy(card, before, src_blocks, [(dst, total)])
    await assert_clean(card)


@cocotb.test()
async def errors_reported(dut):
    """Bad lengths, alignment, ranges, overflow and last mismatch give codes, never a hang."""
    card = await started(dut, 11)
    cases = [
        ({"src": 0x1000, "length": 0}, 1),
        ({"src": 0x1000, "length": 6}, 1),
        ({"src": 0x1002, "length": 64}, 2),
        ({"src": 0x1000, "length": 64, "stride": 66, "count": 2}, 2),
        ({"src": 0x1000, "length": 64, "nxt": 0x2010, "ctrl": CHAIN}, 2),
        ({"src": 0xFFFF_FFC0, "length": 128}, 3),                   # A into B
        ({"src": 0x2_0000_0000, "length": 64}, 3),                  # no memory there
        ({"src": 0x1000, "length": 64, "stride": 0x8000_0000, "count": 4}, 3),  # 2-D extent leaves A
        ({"src": 0xFFFF_FFFF_FFFF_FFC0, "length": 128}, 3),        # host window wraps
    ]
    for k, (d, code) in enumerate(cases):
        n = await card.done_count("tx")
        card.irq_seen = [0, 0]
        await card.desc("tx", **d)
        await card.wait_done("tx", n + 1, timeout=5000)
        err = await card.mmio_read(reg("TX_ERROR"))
        assert err & 0xFF == code, f"case {k}: error {err & 0xFF} != {code}"
        assert err >> 32 == n, "error sequence number"
        assert card.irq_seen[0] == 1
        await card.mmio_write(reg("TX_ERROR"), 0)
        assert await card.mmio_read(reg("TX_ERROR")) == 0
    # RX reports its own range errors the same way
    n = await card.done_count("rx")
    await card.desc("rx", dst=0x3_0000_0000, length=64)
    await card.wait_done("rx", n + 1, timeout=5000)
    assert await card.error("rx") == 3
    await card.mmio_write(reg("RX_ERROR"), 0)
    # overflow: one big TX stalls (no RX descriptor); one more waits checked, 16 fill the FIFO
    await card.desc("tx", src=0x1000, length=0x10000)
    for _ in range(18):
        await card.desc("tx", src=0x1000, length=64)
    assert await card.error("tx") == 5
    st = await card.mmio_read(reg("TX_STATUS"))
    assert st & 2, "FIFO_FULL"
    await card.mmio_write(reg("TX_CONTROL"), 1)
    await card.mmio_write(reg("RX_CONTROL"), 1)
    await card.idle("tx")
    assert await card.mmio_read(reg("TX_STATUS")) >> 32 == 0
    assert await card.error("tx") == 0
    # last mismatch: RX EOP descriptor of 128 B fed by two 64 B TX packets
    n = await card.done_count("rx")
    await card.desc("rx", dst=0x4000, length=128, ctrl=EOP)
    await card.desc("tx", src=0x8000, length=64, ctrl=SOP | EOP)
    await card.desc("tx", src=0x9000, length=64, ctrl=SOP | EOP)
    await card.wait_done("rx", n + 1)
    assert await card.error("rx") == 6
    assert card.read(0x4000, 64) == card.read(0x8000, 64)
    assert card.read(0x4040, 64) == card.read(0x9000, 64)
    await card.mmio_write(reg("RX_ERROR"), 0)
    # and the engines still work
    before = snapshot(card)
    await transfer(card, H_BASE + 0x100, B_BASE + 0x204, 1000)
    check_copy(card, before, [(H_BASE + 0x100, 1000)], [(B_BASE + 0x204, 1000)])
    assert card.violations == []


@cocotb.test()
async def soft_reset_mid_transfer(dut):
    """SOFT_RESET with reads in flight: they drain, nothing is corrupted, the next transfer works."""
    card = await started(dut, 13, latency=(40, 80))
    await card.desc("rx", dst=B_BASE + 0x10000, length=0x8000, ctrl=EOP)
    await card.desc("tx", src=A_BASE + 0x10000, length=0x8000, ctrl=SOP | EOP)
    await card.cycles(150)
    await card.mmio_write(reg("SHELL_CTRL"), 1)
    await card.idle("tx")
    await card.idle("rx")
    await card.cycles(200)   # answers still arriving must be dropped
    before = snapshot(card)
    await transfer(card, A_BASE + 0x40000, H_BASE + 0x40000, 0x2000)
    check_copy(card, before, [(A_BASE + 0x40000, 0x2000)], [(H_BASE + 0x40000, 0x2000)])
    await assert_clean(card)


@cocotb.test()
async def full_rate_when_memory_keeps_up(dut):
    """With a memory that never stalls, a large transfer moves ~one 64-byte beat per cycle."""
    card = await started(dut, 15, p_wait=0.0, p_gap=0.0, latency=(30, 30))
    rates = []
    for src, dst, length in ((A_BASE + 0x1000, B_BASE + 0x1000, 0x20000),
                             (H_BASE + 0x104, A_BASE + 0x80008, 0x10000)):   # unaligned both sides
        await card.mmio_write(reg("TX_CONTROL"), 1)
        await card.mmio_write(reg("RX_CONTROL"), 1)
        before = snapshot(card)
        await transfer(card, src, dst, length)
        check_copy(card, before, [(src, length)], [(dst, length)])
        busy = await card.mmio_read(reg("RX_BUSY_CYCLES"))
        rates.append(length / 64 / busy)
    cocotb.log.info(f"beats per RX busy cycle: {rates}")
    assert min(rates) > 0.9, rates
