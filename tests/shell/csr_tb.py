"""Shared driver of the CSR blocks' cocotb tests: random MMIO traffic against a Python model of
the block's registers as shell/csr_map.json describes them, each read checked the cycle after."""
from __future__ import annotations

import random

from cocotb.triggers import FallingEdge, ReadOnly
from spgen.shellgen import load_csr_map

__all__ = ["CSR", "MMIO", "addr", "field_lsb", "field_mask", "mmio_random", "reset_value"]

CSR = load_csr_map()
MMIO = ("mmio_wr_valid", "mmio_wr_addr", "mmio_wr_data", "mmio_rd_valid", "mmio_rd_addr")


def addr(name: str) -> int:
    return CSR.reg(name).address


def field_lsb(reg: str, field: str) -> int:
    return next(f.lsb for f in CSR.reg(reg).fields if f.name == field)


def field_mask(reg: str) -> int:
    """The bits of `reg` that its fields name."""
    return sum(f.mask for f in CSR.reg(reg).fields)


def reset_value(name: str) -> int:
    """The map's reset value of a register whose reset is a number."""
    return int(CSR.reg(name).reset, 16)


async def mmio_random(dut, model, rng: random.Random, cycles: int, addresses: list[int],
                      stimulus, p_wr: float = 0.3, p_rd: float = 0.5) -> int:
    """Per cycle: a write of random data (p_wr) and a read (p_rd) at addresses from
    `addresses`, the block's other inputs from `stimulus(rng)`. `model.read(a, i)` is the value
    a read at `a` answers with next cycle, `model.outputs(i)` the ports to check this cycle,
    `model.step(i)` the clock edge. The first reads go to every address in turn with no write
    between: the registers' reset values. Returns the reads checked."""
    resp = None
    reads = 0
    for cycle in range(cycles):
        await FallingEdge(dut.clk)
        i = {k: 0 for k in MMIO}
        i.update(stimulus(rng))
        if cycle < len(addresses):
            i.update(mmio_rd_valid=1, mmio_rd_addr=addresses[cycle])
        else:
            if rng.random() < p_wr:
                i.update(mmio_wr_valid=1, mmio_wr_addr=rng.choice(addresses), mmio_wr_data=rng.getrandbits(64))
            if rng.random() < p_rd:
                i.update(mmio_rd_valid=1, mmio_rd_addr=rng.choice(addresses))
        for k, v in i.items():
            getattr(dut, k).value = v
        await ReadOnly()
        assert int(dut.mmio_rd_resp_valid.value) == (resp is not None), f"cycle {cycle}: response valid"
        if resp is not None:
            got = int(dut.mmio_rd_resp_data.value)
            assert got == resp[1], f"cycle {cycle}: read of {resp[0]:#x}: {got:#x} != {resp[1]:#x}"
            reads += 1
        for port, want in model.outputs(i).items():
            got = int(getattr(dut, port).value)
            assert got == want, f"cycle {cycle}: {port} {got:#x} != {want:#x}"
        resp = (i["mmio_rd_addr"], model.read(i["mmio_rd_addr"], i)) if i["mmio_rd_valid"] else None
        model.step(i)
    return reads
