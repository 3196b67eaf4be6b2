"""cocotb test of a DMA engine's status block (counts, first-error latch, IRQ) against a model."""
from __future__ import annotations

import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset

INPUTS = ("done_pulse", "done_irq", "err_a_pulse", "err_a_code", "err_b_pulse", "err_b_code",
          "err_clear", "bytes_inc", "busy")
REGS = ("done_count", "err_code", "err_count", "err_seq", "bytes", "busy_cycles")


def step(m: dict, i: dict) -> None:
    """One clock of the spec: DONE_COUNT, BYTES, BUSY_CYCLES; ERROR's code and SEQ of the
    first error, COUNT of all (saturating at 255); an ERROR write clears all three."""
    if i["rst"]:
        m.update(dict.fromkeys(REGS, 0))
        return
    old = dict(m)
    m["done_count"] = (old["done_count"] + i["done_pulse"]) % (1 << 32)
    m["bytes"] = old["bytes"] + i["bytes_inc"]
    m["busy_cycles"] = old["busy_cycles"] + i["busy"]
    n = i["err_a_pulse"] + i["err_b_pulse"]
    if i["err_clear"]:
        m.update(err_code=0, err_count=0, err_seq=0)
    elif n:
        m["err_count"] = min(old["err_count"] + n, 255)
        if old["err_code"] == 0:
            # engine A's (a failed descriptor) wins a tie; its SEQ is the DONE_COUNT before it
            m["err_code"] = i["err_a_code"] if i["err_a_pulse"] else i["err_b_code"]
            m["err_seq"] = old["done_count"]


@cocotb.test()
async def dma_status_random(dut):
    """Random events in phases of few and many errors, clears, resets; every register each cycle."""
    rng = random.Random(5)
    await reset(dut, INPUTS)
    m = dict.fromkeys(REGS, 0)
    saturated = first_latched = 0
    # (done, error, clear, reset) rates per phase
    for p_done, p_err, p_clr, p_rst in ((0.3, 0.02, 0.01, 0.0), (0.5, 0.6, 0.0, 0.0),
                                        (0.4, 0.1, 0.05, 0.005), (0.9, 0.3, 0.002, 0.0)):
        for _ in range(1500):
            await FallingEdge(dut.clk)
            i = {"done_pulse": int(rng.random() < p_done), "done_irq": rng.randrange(2),
                 "err_a_pulse": int(rng.random() < p_err), "err_a_code": rng.randrange(256),
                 "err_b_pulse": int(rng.random() < p_err), "err_b_code": rng.randrange(256),
                 "err_clear": int(rng.random() < p_clr), "bytes_inc": rng.randrange(128),
                 "busy": rng.randrange(2), "rst": int(rng.random() < p_rst)}
            for k, v in i.items():
                getattr(dut, k).value = v
            await ReadOnly()
            for k in REGS:
                assert int(getattr(dut, k).value) == m[k], f"{k}: {int(getattr(dut, k).value)} != {m[k]}"
            irq = (i["done_pulse"] and i["done_irq"]) or i["err_a_pulse"] or i["err_b_pulse"]
            assert int(dut.irq_pulse.value) == int(bool(irq)), f"irq_pulse with inputs {i}"
            saturated += m["err_count"] == 255
            first_latched += m["err_code"] != 0 and m["err_seq"] != 0
            step(m, i)
    assert saturated > 100 and first_latched > 100, "the error count never saturated or latched"
