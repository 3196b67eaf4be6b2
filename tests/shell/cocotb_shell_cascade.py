"""cocotb test of afu_top with a generated cascade of 2 rec10 cores (10-word records)."""
from __future__ import annotations

import struct
from pathlib import Path

import cocotb
from shell_card_model import A_BASE, B_BASE, EOP, IRQ, SOP, Card, reg


def _load():
    """Input and expected output records, written by the pytest side into the sim's folder."""
    src = Path("cascade_in.bin").read_bytes()
    exp = Path("cascade_out.bin").read_bytes()
    return src, exp, len(src) // 40


def _f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


async def _card(dut, seed, **memory):
    """A started card (``memory``: the timing of its host-memory model) and the records."""
    card = Card(dut, seed=seed, **memory)
    await card.start()
    return (card, *_load())


async def run_once(card, src, exp, n, split, arm=False):
    rec = 40
    sa, da = A_BASE + 0x1000, B_BASE + 0x2004
    card.write(sa, src)
    card.write(da - 64, bytes(len(exp) + 128))
    await card.mmio_write(reg("CORE_ELEMENTS"), n)
    await card.mmio_write(reg("CORE_CTRL"), 4 if arm else 1)
    if arm:
        st = await card.mmio_read(reg("CORE_STATUS"))
        assert st & 0b1000 and not st & 0b1, f"armed, not running: CORE_STATUS {st:#x}"
    n_rx = await card.done_count("rx")
    await card.desc("rx", dst=da, length=n * rec, ctrl=EOP | IRQ)
    if split:
        k = n // 3
        await card.desc("tx", src=sa, length=k * rec, ctrl=SOP)
        await card.desc("tx", src=sa + k * rec, length=(n - k) * rec, ctrl=EOP)
    else:
        await card.desc("tx", src=sa, length=n * rec, ctrl=SOP | EOP)
    await card.wait_done("rx", n_rx + 1)
    got = card.read(da, len(exp))
    assert got == exp, f"cascade output differs at byte {next(i for i in range(len(exp)) if got[i] != exp[i])}"
    assert card.read(da - 64, 64) == bytes(64) and card.read(da + len(exp), 64) == bytes(64)
    st = await card.mmio_read(reg("CORE_STATUS"))
    assert st & 0b10 and not st & 0b1 and not st & 0x38, f"CORE_STATUS {st:#x}"
    in_moved = await card.mmio_read(reg("CORE_IN_MOVED_CYCLES"))
    out_moved = await card.mmio_read(reg("CORE_OUT_MOVED_CYCLES"))
    out_total = await card.mmio_read(reg("CORE_OUT_TOTAL_CYCLES"))
    in_total = await card.mmio_read(reg("CORE_IN_TOTAL_CYCLES"))
    assert in_moved == n and out_moved == n, (in_moved, out_moved)
    assert out_total >= n and in_total >= n and out_total > in_total
    prime = await card.mmio_read(reg("CORE_PRIME_CYCLES"))
    assert (prime > 0) == arm, prime
    return out_total, in_total - in_moved, prime


@cocotb.test()
async def cascade_rec10(dut):
    card, src, exp, n = await _card(dut, 21)
    info = await card.mmio_read(reg("SHELL_INFO"))
    assert (info >> 16 & 0xFF, info >> 24 & 0xFF, info >> 32 & 0xFF, info >> 40 & 0xFF) == (2, 10, 10, 1)
    assert await card.mmio_read(reg("CORE_REG")) == _f32(0.5)
    await card.mmio_write(reg("CORE_REG"), _f32(0.75))
    await run_once(card, src, exp, n, split=False)
    await run_once(card, src, exp, n, split=True)
    # a length that is not a whole number of 40-byte records is refused
    k = await card.done_count("tx")
    await card.desc("tx", src=A_BASE + 0x1000, length=44, ctrl=SOP | EOP)
    await card.wait_done("tx", k + 1, timeout=5000)
    assert await card.error("tx") == 4
    k = await card.done_count("rx")
    await card.desc("rx", dst=B_BASE, length=36, ctrl=EOP)
    await card.wait_done("rx", k + 1, timeout=5000)
    assert await card.error("rx") == 4
    assert card.violations == []


@cocotb.test()
async def cascade_no_backpressure_stall_rate(dut):
    """Memory always ready: the cores' stream barely stalls (moved ~ total)."""
    card, src, exp, n = await _card(dut, 22, p_wait=0.0, p_gap=0.0, latency=(2, 2))
    await card.mmio_write(reg("CORE_REG"), _f32(0.75))
    out_total, _, _ = await run_once(card, src, exp, n, split=False)
    cocotb.log.info(f"{n} records, out total {out_total} cycles")
    assert out_total < n + 200, out_total


@cocotb.test()
async def cascade_armed_run_has_no_startup_stall(dut):
    """ARM: the TX engine reads ahead before the run starts, so the input never waits."""
    card, src, exp, n = await _card(dut, 23, p_wait=0.0, p_gap=0.0, latency=(40, 40))
    await card.mmio_write(reg("CORE_REG"), _f32(0.75))
    _, started_stalls, _ = await run_once(card, src, exp, n, split=False)
    _, armed_stalls, prime = await run_once(card, src, exp, n, split=False, arm=True)
    cocotb.log.info(f"input stalls: START {started_stalls}, ARM {armed_stalls} (primed in {prime})")
    assert started_stalls >= 40, started_stalls      # the memory latency, before the first record
    assert armed_stalls == 0, armed_stalls
    assert prime >= 40, prime
    # split descriptors: the run starts after the first one's read-ahead, still bit-exact
    await run_once(card, src, exp, n, split=True, arm=True)
    # an arm without descriptors waits; STOP cancels it
    await card.mmio_write(reg("CORE_CTRL"), 4)
    await card.cycles(50)
    assert await card.mmio_read(reg("CORE_STATUS")) & 0b1001 == 0b1000
    await card.mmio_write(reg("CORE_CTRL"), 2)
    assert await card.mmio_read(reg("CORE_STATUS")) & 0b1001 == 0
    assert card.violations == []
