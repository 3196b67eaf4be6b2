"""Shared pieces of the RDMA engine's memory-side cocotb tests: an Avalon-MM write slave and read
slave over a byte memory, and the engine's word writes with their flush."""
from __future__ import annotations

import random
from collections import deque

from cocotb.triggers import FallingEdge, ReadOnly

__all__ = ["flush", "line_of", "read_memory", "write_memory", "write_word"]


def line_of(mem: dict, line: int, fill) -> int:
    """The 64 bytes of `line` as a 512-bit beat; bytes never written are `fill(address)`."""
    return sum(mem.get(a, fill(a)) << (8 * (a - 64 * line)) for a in range(64 * line, 64 * line + 64))


async def write_memory(dut, rng: random.Random, mem: dict, stats: dict, burst: int, prefix: str = "avm_",
                       aligned: bool = False):
    """The write side: random waitrequest; each burst's beats at consecutive lines, write held
    through the burst, at most `burst` beats (`aligned`: none crossing a `burst`-beat
    boundary); enabled bytes written."""
    port = {p: getattr(dut, prefix + p) for p in ("waitrequest", "write", "address", "burstcount", "writedata",
                                                  "byteenable")}
    left = line = 0
    while True:
        await FallingEdge(dut.clk)
        port["waitrequest"].value = int(rng.random() < 0.3)
        await ReadOnly()
        if left:
            assert int(port["write"].value), "write dropped inside a burst"
        if not int(port["write"].value) or int(port["waitrequest"].value):
            continue
        if not left:
            addr, left = int(port["address"].value), int(port["burstcount"].value)
            assert addr % 64 == 0 and 1 <= left <= burst, f"burst of {left} at {addr:#x}"
            line = addr // 64
            assert not aligned or line % burst + left <= burst, f"burst of {left} at {addr:#x} crosses"
            stats["bursts"] += 1
            stats["longest"] = max(stats["longest"], left)
        data, be = int(port["writedata"].value), int(port["byteenable"].value)
        for b in range(64):
            if be >> b & 1:
                mem[line * 64 + b] = data >> (8 * b) & 0xFF
        line, left = line + 1, left - 1


async def read_memory(dut, rng: random.Random, mem: dict, fill, stats: dict, p_wait: float = 0.3,
                      prefix: str = "avm_rd_", burst: int = 1):
    """The read side: random waitrequest; reads of whole lines (64-byte aligned), bursts of at
    most `burst` beats none crossing a `burst`-beat boundary, answered in order after a random
    delay (and random gaps between beats) with each line as `mem` holds it then;
    `stats["most_pending"]`: the most beats requested and not yet answered."""
    port = {p: getattr(dut, prefix + p) for p in ("waitrequest", "read", "address", "burstcount", "readdata",
                                                  "readdatavalid")}
    pending: deque = deque()
    cycle = 0
    while True:
        await FallingEdge(dut.clk)
        cycle += 1
        port["waitrequest"].value = int(rng.random() < p_wait)
        due = bool(pending) and pending[0][0] <= cycle
        stats["answered"] = stats.get("answered", 0) + due
        port["readdatavalid"].value = int(due)
        port["readdata"].value = line_of(mem, pending.popleft()[1], fill) if due else rng.getrandbits(512)
        await ReadOnly()
        if int(port["read"].value) and not int(port["waitrequest"].value):
            addr, n = int(port["address"].value), int(port["burstcount"].value)
            assert addr % 64 == 0 and 1 <= n <= burst and addr // 64 % burst + n <= burst, \
                f"read of {n} beats at {addr:#x}"
            when = cycle + rng.randrange(1, 12)
            for k in range(n):
                when = max(when, pending[-1][0] + 1 + (rng.random() < 0.2) if pending else 0)
                pending.append((when, addr // 64 + k))
            stats["reads"] += 1
            stats["most_pending"] = max(stats.get("most_pending", 0), len(pending))


async def write_word(dut, rng: random.Random, addr: int, value: int, p_valid: float = 0.8) -> None:
    """One engine word written, held until the adapter takes it."""
    while True:
        await FallingEdge(dut.clk)
        v = rng.random() < p_valid
        dut.wr_write.value, dut.wr_address.value, dut.wr_writedata.value = int(v), addr, value
        await ReadOnly()
        if v and not int(dut.wr_waitrequest.value):
            return


async def flush(dut, flush_port: str, pending_port: str, what: str) -> None:
    """Flush until nothing is pending (then every word written before is in memory)."""
    await FallingEdge(dut.clk)
    dut.wr_write.value = 0
    getattr(dut, flush_port).value = 1
    for _ in range(10000):
        await ReadOnly()
        if not int(getattr(dut, pending_port).value):
            break
        await FallingEdge(dut.clk)
    else:
        raise AssertionError(f"{what}: pending stuck")
    await FallingEdge(dut.clk)
    getattr(dut, flush_port).value = 0
