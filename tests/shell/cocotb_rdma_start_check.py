"""cocotb test of the RDMA receivers' start checks and block-stride divider against a model."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset

T_PUT, T_GETRESP, T_GETREQ = 1, 2, 4
M64, M32 = (1 << 64) - 1, (1 << 32) - 1


def words_of(f: dict) -> int:
    """Payload words 1..10, word 1 low: addr, len, block, stride as 64-bit pairs, then GETREQ's
    w7..w10 overlay the stride pair and beyond."""
    return f["addr"] | f["len"] << 64 | f["blk"] << 128 | f["stride"] << 192 | f["w9"] << 256 \
        | f["w10"] << 288


def expect(f: dict, mem: int) -> dict:
    a, ln, blk, st = f["addr"], f["len"], f["blk"], f["stride"]
    w7, w8, w9, w10 = st & M32, st >> 32, f["w9"], f["w10"]
    return {
        "a_addr": a, "a_len": ln, "a_blk": blk & M32, "a_stride": st & M32,
        "strided": int(f["typ"] in (T_PUT, T_GETRESP) and f["words"] >= 9),
        "g_strided": int(f["words"] >= 11),
        # the range [addr, addr + len) must be word-aligned, non-empty and inside memory
        "bad_plain": int(bool(a % 4 != 0 or ln % 4 != 0 or ln == 0 or a + ln > mem)),
        "bad_stride": int(bool(blk == 0 or blk % 4 or st % 4 or st < blk or blk > M32 or st > M32)),
        # GETREQ: block w7, count w8, strides w9 (here) and w10 (initiator)
        "g_bad": int(bool(w7 == 0 or w7 % 4 or w9 % 4 or w10 % 4 or w9 < w7 or w10 < w7 or w8 == 0
                     or ln != w7 * w8 or a % 4 or a > mem or (w8 - 1) * w9 + w7 > mem - a)),
    }


def fields(rng: random.Random, mem: int) -> dict:
    """Random start fields, biased to the edges: whole/partial blocks, the memory's end."""
    r = rng.random
    blk = rng.choice([4, 8, 4 * rng.randrange(1, 1 << 12), 4 * rng.randrange(1, 1 << 30)])
    if r() < 0.1:
        blk = rng.choice([0, blk + rng.randrange(1, 4), blk | 1 << rng.randrange(32, 64)])
    stride = blk + 4 * rng.choice([0, 0, rng.randrange(1 << 10), rng.randrange(1 << 28)])
    if r() < 0.1:
        stride = rng.choice([blk - 4, stride + rng.randrange(1, 4), stride | 1 << 40]) & M64
    fit = max(2, mem // max(blk, 4))      # block counts whose whole length fits in memory
    q = rng.choice([1, 2, rng.randrange(1, 100), rng.randrange(1, fit), rng.randrange(1, fit),
                    rng.randrange(1, 1 << 20), 1 << 32, (1 << 32) - 1])
    ln = (blk * q) & M64 if blk else 4 * rng.randrange(1, 100)
    if r() < 0.15 and blk >= 8:
        ln += 4 * rng.randrange(1, blk // 4)      # a partial last block
    elif r() < 0.15:
        ln = rng.choice([ln + 4, ln + 2, 0, ln - 4 if ln > 4 else 4, rng.getrandbits(64)]) & M64
    span = (q - 1) * (stride & M32) + (blk & M32)
    extent = max(ln, span)
    v = r()
    if v < 0.4 and extent <= mem:
        addr = mem - extent + rng.choice([-8, -4, 0, 0, 4, 8])
    elif v < 0.8:
        addr = 4 * rng.randrange(mem // 4)
    else:
        addr = rng.choice([mem, mem + 4, rng.getrandbits(64)])
    if r() < 0.05:
        addr += rng.randrange(1, 4)
    f = {"addr": addr & M64, "len": ln, "blk": blk & M64, "stride": stride & M64,
         "typ": rng.choice([T_PUT, T_GETRESP, T_GETREQ, 3, 5]),
         "words": rng.choice([5, 7, 9, 9, 11, 11]), "w9": rng.getrandbits(32),
         "w10": rng.getrandbits(32)}
    if f["typ"] == T_GETREQ and r() < 0.8:
        # a block-stride GETREQ: block, count and strides that mostly pass
        w7 = blk & M32 if blk & M32 else 4
        w8 = rng.choice([1, 2, rng.randrange(1, 1000), rng.randrange(1, 1 << 32), 0])
        w9 = w7 + 4 * rng.choice([0, rng.randrange(1 << 12)])
        f["stride"] = w7 | w8 << 32
        f["w9"], f["w10"] = w9 & M32, (w7 + 4 * rng.randrange(64)) & M32
        if r() < 0.2:
            f[rng.choice(["w9", "w10"])] = rng.choice([w7 - 4, w9 + 2]) & M32
        f["len"] = (w7 * w8 + (rng.choice([0, 4]) if r() < 0.2 else 0)) & M64
        g_extent = (w8 - 1) * w9 + w7 if w8 else 0
        if r() < 0.5 and g_extent <= mem:
            f["addr"] = mem - g_extent + rng.choice([-4, 0, 0, 4])
    return f


@cocotb.test()
async def start_check_random(dut):
    """Random starts: every check each time; the division of the block-stride ones, with
    random gaps between its steps, done after exactly 64 steps with its verdict and span."""
    mem = int(os.environ["MEM_BYTES"])
    rng = random.Random(mem % 1000)
    await reset(dut, ["w", "typ", "words", "div_start", "div_step"])
    seen = {k: 0 for k in ("bad_plain", "bad_stride", "g_bad", "div_bad", "span_bad", "ok")}
    for n in range(1500):
        f = fields(rng, mem)
        await FallingEdge(dut.clk)
        dut.div_step.value = 0
        dut.w.value, dut.typ.value, dut.words.value = words_of(f), f["typ"], f["words"]
        await ReadOnly()
        e = expect(f, mem)
        for k, v in e.items():
            assert int(getattr(dut, k).value) == v, f"start {n} {f}: {k} {int(getattr(dut, k).value)} != {v}"
        for k in ("bad_plain", "bad_stride", "g_bad"):
            seen[k] += e[k]
        if not (e["strided"] and not e["bad_stride"] and not e["bad_plain"]):
            continue
        await FallingEdge(dut.clk)
        dut.div_start.value = 1
        await FallingEdge(dut.clk)
        dut.div_start.value = 0
        steps = 0
        while True:
            await FallingEdge(dut.clk)
            step = int(rng.random() < 0.7)
            dut.div_step.value = step
            await ReadOnly()
            assert int(dut.div_done.value) == (steps >= 64), f"start {n}: div_done after {steps} steps"
            if steps >= 64:
                break
            steps += step
        q, rem = divmod(f["len"], f["blk"])
        bad = int(rem != 0 or q == 0 or q > M32)
        assert int(dut.div_bad.value) == bad, f"start {n} {f}: div_bad != {bad}"
        seen["div_bad"] += bad
        if not bad:
            sb = int((q - 1) * f["stride"] + f["blk"] > mem - f["addr"])
            assert int(dut.span_bad.value) == sb, f"start {n} {f}: span_bad != {sb}"
            seen["span_bad"] += sb
            seen["ok"] += 1 - sb
    assert min(seen.values()) >= 10, f"too few cases of a kind: {seen}"
