"""Register-to-register logic depth and an estimated delay of a mapped netlist (no placement)."""
from __future__ import annotations

import re

from .._card import CLOCK_MHZ

__all__ = ["CLOCK_NS", "MODEL", "worst_path"]

CLOCK_NS = 1e3 / CLOCK_MHZ  # the shell's and cores' clock period (5 ns at 200 MHz)
OVER_LISTED = 12            # registers past the clock listed per unit, slowest first
# Delays in ns of the model (docs/fit.md). No placement and no routing: every hop costs
# one average route, whatever its length or fan-out.
MODEL = {
    "lut": 0.433,        # an ALM's LUT, any size (Arria 10 -2, typical input)
    "route": 0.410,      # one local/row route into a LUT, register, block or port
    "carry": 0.026,      # one bit of the ALM carry chain
    "ff_tco": 0.20,      # register clock-to-out
    "ff_tsu": 0.10,      # register setup
    "m20k_tco": 1.20,    # M20K read, unregistered output (the mapper's altsyncram)
    "mul": 3.93,         # MISTRAL_MUL* A/B -> Y, Yosys' own (Cyclone V) figure
}
_LUTS = {"MISTRAL_ALUT2", "MISTRAL_ALUT3", "MISTRAL_ALUT4", "MISTRAL_ALUT5", "MISTRAL_ALUT6",
         "MISTRAL_ALUT_LUT1"}
_COMB = _LUTS | {"MISTRAL_NOT", "MISTRAL_ALUT_ARITH", "MISTRAL_MUL27X27", "MISTRAL_MUL18X18",
                 "MISTRAL_MUL9X9", "MISTRAL_MLAB"}
_FF_IN = {"DATAIN", "ENA", "SCLR", "SLOAD", "SDATA"}


def _hop(ctype: str, port: str, out: str) -> tuple[float, int, int] | None:
    """(delay, LUT levels, carry bits) from input `port` to output `out`, or None."""
    lut = MODEL["lut"] + MODEL["route"]
    if ctype in _LUTS:
        return lut, 1, 0
    if ctype == "MISTRAL_NOT":  # folded into the next LUT by any real mapper
        return 0.0, 0, 0
    if ctype == "MISTRAL_ALUT_ARITH":
        return (MODEL["carry"], 0, 1) if port == "CI" else (lut, 1, 0)
    if ctype == "MISTRAL_MLAB":  # asynchronous read of a LUT RAM
        return (lut, 1, 0) if port.startswith("B1ADDR") and out == "B1DATA" else None
    return MODEL["mul"] + MODEL["route"], 0, 0


def worst_path(mod: dict, boxes: set[str]) -> dict:
    """The slowest register-to-register path of a Yosys JSON module, and under "over" the
    registers (bits of one register together) whose slowest path is past the clock.

    Start points: register and block outputs, black boxes' outputs and the module's inputs
    (units are registered at their ports); end points: their inputs and the outputs."""
    cells = mod["cells"]
    driver: dict[int, tuple[str, str]] = {}
    for name, c in cells.items():
        for port, bits in c["connections"].items():
            if c.get("port_directions", {}).get(port) == "output":
                for b in bits:
                    if isinstance(b, int):
                        driver[b] = (name, port)
    memo: dict[int, tuple[float, int, int, int | None, str]] = {}

    def start(bit: int) -> tuple[float, int, int, int | None, str]:
        if bit not in driver:
            return MODEL["ff_tco"], 0, 0, None, "input port"
        name, _ = driver[bit]
        tco = MODEL["m20k_tco"] if cells[name]["type"] == "altsyncram" else MODEL["ff_tco"]
        return tco, 0, 0, None, name

    def inputs(name: str, out: str) -> list[tuple[int, tuple[float, int, int]]]:
        c = cells[name]
        res = []
        for port, bits in c["connections"].items():
            if c["port_directions"].get(port) != "input":
                continue
            hop = _hop(c["type"], port, out)
            if hop is not None:
                res += [(b, hop) for b in bits if isinstance(b, int)]
        return res

    def arrival(bit: int) -> tuple[float, int, int, int | None, str]:
        stack, active = [bit], set()
        while stack:
            b = stack[-1]
            if b in memo:
                stack.pop()
                continue
            d = driver.get(b)
            if d is None or cells[d[0]]["type"] not in _COMB:
                memo[b] = start(b)
                stack.pop()
                continue
            ins = inputs(*d)
            todo = [i for i, _ in ins if i not in memo and i not in active]
            if todo and b not in active:
                active.add(b)
                stack.extend(todo)
                continue
            best = (MODEL["ff_tco"], 0, 0, None, d[0])  # a loop: cut here
            for i, (dt, lv, cy) in ins:
                if i in memo:
                    t, l0, c0, _, s = memo[i]
                    if t + dt > best[0] or best[3] is None:
                        best = (t + dt, l0 + lv, c0 + cy, i, s)
            memo[b] = best
            active.discard(b)
            stack.pop()
        return memo[bit]

    ends: list[tuple[int, str, float]] = []
    for name, c in cells.items():
        t = c["type"]
        if t in _COMB and t != "MISTRAL_MLAB":
            continue
        for port, bits in c["connections"].items():
            if c["port_directions"].get(port) != "input" or (t == "MISTRAL_FF" and port not in _FF_IN):
                continue
            if t == "MISTRAL_MLAB" and port.startswith("B1ADDR"):
                continue
            ends += [(b, name, MODEL["ff_tsu"]) for b in bits if isinstance(b, int)]
    for pname, p in mod["ports"].items():
        if p["direction"] == "output":
            ends += [(b, f"output {pname}", 0.0) for b in p["bits"] if isinstance(b, int)]
    worst = None
    by_reg: dict[str, tuple[float, int, str]] = {}   # per end register: its slowest path
    for bit, end, tsu in ends:
        t, lv, cy, _, s = arrival(bit)
        total = t + MODEL["route"] + tsu
        if worst is None or total > worst[0]:
            worst = (total, lv, cy, bit, s, end)
        reg = _register(end)
        if reg not in by_reg or total > by_reg[reg][0]:
            by_reg[reg] = (total, lv, _register(s))
    if worst is None:
        return {"delay_ns": 0.0, "lut_levels": 0, "carry_bits": 0, "from": None, "to": None,
                "through": [], "meets": True, "over": []}
    over = sorted(((t, lv, f, r) for r, (t, lv, f) in by_reg.items() if t > CLOCK_NS),
                  reverse=True)
    total, lv, cy, bit, s, end = worst
    through: list[str] = []
    b: int | None = bit
    while b is not None and b in driver and cells[driver[b][0]]["type"] in _COMB:
        through.append(driver[b][0])
        b = memo[b][3]
    through.reverse()
    if len(through) > 6:
        through = through[:3] + ["..."] + through[-3:]
    return {"delay_ns": round(total, 3), "lut_levels": lv, "carry_bits": cy, "from": s,
            "to": end, "through": through, "meets": total <= CLOCK_NS,
            "over": [{"to": r, "delay_ns": round(t, 3), "lut_levels": lv, "from": f}
                     for t, lv, f, r in over[:OVER_LISTED]]}


def _register(cell: str) -> str:
    """A mapped register's name without the mapper's per-bit suffix: `x_reg_MISTRAL_FF_Q_3`
    -> `x_reg`; other names as they are."""
    return re.sub(r"_MISTRAL_FF(_Q)?(_\d+)?$", "", cell)
