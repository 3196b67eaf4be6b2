"""cocotb test of the run control and counters (START, ARM, STOP, ELEMENTS) against a model."""
from __future__ import annotations

import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset

INPUTS = ("start", "stop", "arm", "elements", "tx_push", "tx_primed", "in_fire", "in_last",
          "out_fire", "out_last")
REGS = ("armed", "running", "done", "in_done", "in_total", "in_moved", "in_first", "out_total",
        "out_moved", "prime_cycles")


def step(m: dict, i: dict) -> None:
    """One clock of the spec. A run counts cycles and records at both ends until its final
    input record (the ELEMENTS-th, or the one flagged last when ELEMENTS is 0) and its final
    output record (likewise, or STOP); ARM holds the input until a descriptor was pushed
    and, a cycle later or after, the TX engine is primed, then begins the run itself.
    in_first counts the run's input cycles before its first record entered."""
    o = dict(m)
    e = i["elements"]
    release = o["armed"] and o["pushed"] and i["tx_primed"]
    begin = i["start"] or release
    if i["rst"] or i["stop"] or i["start"]:
        m.update(armed=0, pushed=0)
    elif i["arm"]:
        m.update(armed=1, pushed=0)
    elif o["armed"]:
        m["pushed"] = o["pushed"] or i["tx_push"]
        m["armed"] = int(not release)
    if i["rst"] or i["start"] or i["arm"]:
        m["prime_cycles"] = 0
    elif o["armed"]:
        m["prime_cycles"] = o["prime_cycles"] + 1
    if i["rst"] or begin or i["arm"]:
        m.update(running=int(not i["rst"] and begin), done=0, in_done=0, in_total=0, in_moved=0,
                 in_first=0, seen=0, out_total=0, out_moved=0)
    elif o["running"]:
        in_final = i["in_fire"] and (o["in_moved"] == e - 1 if e else i["in_last"])
        out_final = i["out_fire"] and (o["out_moved"] == e - 1 if e else i["out_last"])
        if not o["in_done"]:
            m["in_total"] = o["in_total"] + 1
            m["in_moved"] = o["in_moved"] + i["in_fire"]
            m["in_first"] = o["in_first"] + int(not o["seen"] and not i["in_fire"])
            m["seen"] = int(o["seen"] or i["in_fire"])
            m["in_done"] = int(bool(in_final))
        m["out_total"] = o["out_total"] + 1
        m["out_moved"] = o["out_moved"] + i["out_fire"]
        if out_final or i["stop"]:
            m.update(running=0, done=1)


@cocotb.test()
async def run_counters_random(dut):
    """Random runs (START or ARM, ELEMENTS 0..40, STOP now and then); every register each cycle."""
    rng = random.Random(9)
    await reset(dut, INPUTS)
    m = dict.fromkeys((*REGS, "pushed", "seen"), 0)
    elements, settle = 0, 3
    ends = {"count": 0, "last": 0, "stop": 0, "armed": 0}
    for cycle in range(20000):
        await FallingEdge(dut.clk)
        quiet = not m["running"] and not m["armed"]
        # ELEMENTS is written while no run is on, then left alone for a few cycles
        if quiet and settle == 0 and rng.random() < 0.05:
            elements = rng.choice([0, 0, 1, 2, 3, rng.randrange(1, 41)])
            settle = 3
        go = settle == 0 and rng.random() < (0.03 if quiet else 0.002)
        i = {"start": int(go and rng.random() < 0.5), "stop": int(rng.random() < 0.003),
             "elements": elements, "tx_push": int(rng.random() < 0.05),
             "tx_primed": int(rng.random() < 0.4), "in_last": int(rng.random() < 0.05),
             "out_fire": int(rng.random() < 0.5), "out_last": int(rng.random() < 0.04),
             "rst": int(rng.random() < 0.0005)}
        i["arm"] = int(go and not i["start"])
        i["in_fire"] = int(rng.random() < 0.6 and not m["armed"])
        settle = max(settle - 1, 0)
        for k, v in i.items():
            getattr(dut, k).value = v
        await ReadOnly()
        for k in REGS:
            assert int(getattr(dut, k).value) == m[k], \
                f"cycle {cycle}: {k} {int(getattr(dut, k).value)} != {m[k]} (ELEMENTS {elements})"
        assert int(dut.in_open.value) == 1 - m["armed"], f"cycle {cycle}: in_open"
        was = dict(m)
        step(m, i)
        if was["running"] and not m["running"] and not i["rst"]:
            ends["stop" if i["stop"] else "count" if elements else "last"] += 1
        if was["armed"] and m["running"]:
            ends["armed"] += 1
    assert min(ends.values()) >= 10, f"too few runs of a kind: {ends}"
