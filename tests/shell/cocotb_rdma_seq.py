"""cocotb tests of the card's sequencer (rdma_seq) against shell/csr_map.json's SEQ_*: a program
of WRITE, WAIT and CHECK runs on the card's MMIO bus beside random host traffic. The bus is a
Python register file that answers every read one cycle later, with a "device" whose status
register sets its DONE bit some cycles after a GO (as a pass or a DMA does). Checked every cycle:
the bus carries the host's accesses as issued and the program's in program order with their
data; every host read gets exactly one answer, the cycle after, with the value it read; the
program's reads never reach the host. Then the ways a run stops: a WAIT's error mask, a CHECK
that does not hold, an unknown opcode, ABORT, and program writes ignored while it runs."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from csr_tb import addr, field_lsb

DEPTH_BITS = int(os.environ.get("DEPTH_BITS", "10"))
OP = {"END": 0, "WRITE": 1, "WAIT": 2, "CHECK": 3}
GO, STATUS, ERRS = 0x2830, 0x2838, 4   # the device: its GO register, its status, an error bit
SCRATCH = [0x2800 + 8 * i for i in range(6)] + [0x1010, 0x1018, 0x0030]  # registers the program writes
HOST_ONLY = [0x0120 + 8 * i for i in range(4)]                             # registers only the host writes


def ctrl(op: str, reg: int = 0, bit: int = 0, pol: int = 0) -> int:
    return (OP[op] << field_lsb("SEQ_PROG_CTRL", "OP") | bit << field_lsb("SEQ_PROG_CTRL", "BIT")
            | pol << field_lsb("SEQ_PROG_CTRL", "POL") | (reg >> 3) << field_lsb("SEQ_PROG_CTRL", "ADDR"))


class Card:
    """The bus's register file and device, the host's accesses, and the checks of each cycle."""

    def __init__(self, dut, rng: random.Random):
        self.dut, self.rng = dut, rng
        self.regs: dict[int, int] = {}
        self.bus_writes: list[tuple[int, int]] = []   # (address, data) in bus order
        self.pending = None       # a bus read of the last cycle: (address, value)
        self.host_read = None     # the host's read of the last cycle: its expected value or None (own window)
        self.own: dict[int, int] = {}   # what the sequencer's window answers, as the test reads it
        self.done_at = None       # the device's DONE: the cycle it sets
        self.cycle = 0
        self.host_p = 0.0         # chance of a host access a cycle
        self.host_answers = 0

    def status(self) -> int:
        v = self.regs.get(STATUS, 0)
        return v | 2 if self.done_at is not None and self.cycle >= self.done_at else v

    def read_bus(self, a: int) -> int:
        return self.status() if a == STATUS else self.regs.get(a, 0)

    async def step(self, host: tuple | None = None) -> int | None:
        """One cycle; host: ("w", a, d) or ("r", a) from the test itself, or None for random
        traffic at host_p. Returns the answer of the host's read of the last cycle, if any."""
        d = self.dut
        await FallingEdge(d.clk)
        d.b_rd_resp_valid.value = int(self.pending is not None)
        d.b_rd_resp_data.value = self.pending[1] if self.pending else self.rng.getrandbits(64)
        d.mmio_wr_valid.value = d.mmio_rd_valid.value = 0
        if host is None and self.rng.random() < self.host_p:
            host = (self.rng.choice("wr"), self.rng.choice(HOST_ONLY + SCRATCH + [STATUS]))
            if host[0] == "w":
                host = ("w", self.rng.choice(HOST_ONLY), self.rng.getrandbits(64))
        if host and host[0] == "w":
            d.mmio_wr_valid.value, d.mmio_wr_addr.value, d.mmio_wr_data.value = 1, host[1], host[2]
        elif host:
            d.mmio_rd_valid.value, d.mmio_rd_addr.value = 1, host[1]
        await ReadOnly()
        answer = None
        if self.host_read is not None:   # the host's read of the last cycle: answered now, once
            assert int(d.mmio_rd_resp_valid.value) == 1, "a host read went unanswered"
            answer = int(d.mmio_rd_resp_data.value)
            if self.host_read[0] == "bus":
                assert answer == self.host_read[1], f"host read {answer:#x}, the bus held {self.host_read[1]:#x}"
            self.host_answers += 1
        else:
            assert int(d.mmio_rd_resp_valid.value) == 0, "an answer reached the host that it did not ask for"
        own = 0x1B00 <= (host[1] if host else 0) < 0x1C00
        if host and host[0] == "w" and not own:
            assert int(d.b_wr_valid.value) and int(d.b_wr_addr.value) == host[1], "the host's write lost its cycle"
            assert int(d.b_wr_data.value) == host[2]
        if host and host[0] == "r" and not own:
            assert int(d.b_rd_valid.value) and int(d.b_rd_addr.value) == host[1], "the host's read lost its cycle"
        if host and own:   # the window stays off the bus, which the program may use meanwhile
            for v, a in (("b_wr_valid", "b_wr_addr"), ("b_rd_valid", "b_rd_addr")):
                assert not int(getattr(d, v).value) or not 0x1B00 <= int(getattr(d, a).value) < 0x1C00, \
                    "the window reached the bus"
        self.host_read = None
        if host and host[0] == "r":
            self.host_read = ("own",) if own else ("bus", self.read_bus(host[1]))
        self.pending = None
        if int(d.b_wr_valid.value):
            a, v = int(d.b_wr_addr.value), int(d.b_wr_data.value)
            self.bus_writes.append((a, v))
            self.regs[a] = v
            if a == GO:   # the device runs v & 0xFF cycles, then shows DONE and the count v >> 8
                self.regs[STATUS] = (v >> 8) << 32
                self.done_at = self.cycle + (v & 0xFF)
        if int(d.b_rd_valid.value):
            self.pending = (int(d.b_rd_addr.value), self.read_bus(int(d.b_rd_addr.value)))
        await RisingEdge(d.clk)
        self.cycle += 1
        return answer

    async def write(self, name: str, v: int) -> None:
        await self.step(("w", addr(name), v))

    async def read(self, name: str) -> int:
        await self.step(("r", addr(name)))
        return await self.step(())   # its answer, a cycle later

    async def load(self, program: list[tuple[int, int]]) -> None:
        await self.write("SEQ_PROG_ADDR", 0)
        for c, data in program:
            await self.write("SEQ_PROG_DATA", data)
            await self.write("SEQ_PROG_CTRL", c)

    async def run(self, limit: int = 20000) -> int:
        """START, then random host traffic until the program stops; its STATUS."""
        await self.write("SEQ_CTRL", 1)
        for _ in range(limit):
            await self.step()
            if self.rng.random() < 0.05:
                st = await self.read("SEQ_STATUS")
                if not st & 1:
                    return st
        raise AssertionError("the program did not stop")


async def setup(dut, seed: int) -> Card:
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    for s in ("mmio_wr_valid", "mmio_rd_valid", "b_rd_resp_valid"):
        getattr(dut, s).value = 0
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    card = Card(dut, random.Random(seed))
    assert await card.read("SEQ_STATUS") == 1 << 63, "after reset: PRESENT alone"
    assert await card.read("SEQ_INFO") == DEPTH_BITS
    return card


def pc_of(st: int) -> int:
    return st >> field_lsb("SEQ_STATUS", "PC") & 0xFFFF


@cocotb.test()
async def programs_beside_host_traffic(dut):
    """Random programs run to END beside random host traffic: their writes on the bus in order."""
    card = await setup(dut, 1)
    rng = card.rng
    for trial in range(6):
        card.host_p = [0.0, 0.3, 0.7, 0.95, 0.5, 0.2][trial]
        program, expect = [], []
        size = rng.randint(1, min(120, (1 << DEPTH_BITS) - 4))
        while len(program) < size:
            kind = rng.random()
            if kind < 0.6:
                a, v = rng.choice(SCRATCH), rng.getrandbits(64)
                program.append((ctrl("WRITE", a), v))
                expect.append((a, v))
            elif kind < 0.85:   # a pass: GO, wait for DONE (bit 1) with the error bit as the mask, check its count
                n, cyc = rng.getrandbits(24), rng.randint(0, 40)
                program += [(ctrl("WRITE", GO), n << 8 | cyc), (ctrl("WAIT", STATUS, 1, 1), ERRS),
                            (ctrl("CHECK", STATUS, 32), 0xFFFFFFFF << 32 | n)]
                expect.append((GO, n << 8 | cyc))
            else:   # a WAIT that holds at once
                program.append((ctrl("WAIT", STATUS, 0, 0), 0))
        program.append((ctrl("END"), 0))
        await card.load(program)
        card.bus_writes.clear()
        st = await card.run()
        assert st & 0xF == 2, f"trial {trial}: status {st:#x}, not DONE"
        assert pc_of(st) == len(program) - 1, "stopped at END"
        mine = [w for w in card.bus_writes if w[0] in SCRATCH or w[0] == GO]
        assert mine == expect, f"trial {trial}: the program's writes differ"
        cycles = await card.read("SEQ_CYCLES")
        assert len(program) <= cycles < 20000
    assert card.host_answers > 100


@cocotb.test()
async def runs_stop_where_they_fail(dut):
    """A WAIT's error bit, a CHECK that fails, an unknown opcode and ABORT each stop the run
    where it was, with FAIL_VALUE; writes to the program while it runs are ignored."""
    card = await setup(dut, 2)
    card.host_p = 0.3
    tail = [(ctrl("WRITE", SCRATCH[0]), 0x5A), (ctrl("END"), 0)]
    # the device shows its error bit with DONE: the WAIT stops the run
    await card.load([(ctrl("WRITE", GO), 7 << 8 | 5), (ctrl("WRITE", STATUS), ERRS), (ctrl("WAIT", STATUS, 1, 1), ERRS)] + tail)
    card.bus_writes.clear()
    st = await card.run()
    assert st & 0xF == 4 and pc_of(st) == 2, f"status {st:#x}"
    assert await card.read("SEQ_FAIL_VALUE") & ERRS
    assert (SCRATCH[0], 0x5A) not in card.bus_writes, "a write after the failed WAIT ran"
    # a count that does not match
    await card.load([(ctrl("WRITE", GO), 9 << 8 | 3), (ctrl("WAIT", STATUS, 1, 1), 0),
                     (ctrl("CHECK", STATUS, 32), 0xFFFFFFFF << 32 | 8)] + tail)
    st = await card.run()
    assert st & 0xF == 4 and pc_of(st) == 2
    assert await card.read("SEQ_FAIL_VALUE") == 9 << 32 | 2
    # an unknown opcode
    await card.load([(ctrl("WRITE", SCRATCH[1]), 1), (0xF, 0)] + tail)
    st = await card.run()
    assert st & 0xF == 4 and pc_of(st) == 1 and await card.read("SEQ_FAIL_VALUE") == 0xF
    # a WAIT for a bit that never sets, aborted; the program's words written meanwhile are ignored
    await card.load([(ctrl("WAIT", STATUS, 40, 1), 0)] + tail)
    await card.write("SEQ_CTRL", 1)
    for _ in range(50):
        await card.step()
    await card.write("SEQ_PROG_ADDR", 0)
    await card.write("SEQ_PROG_CTRL", ctrl("END"))
    st = await card.read("SEQ_STATUS")
    assert st & 1 and pc_of(st) == 0, "the WAIT polls on"
    assert await card.read("SEQ_PROG_ADDR") == 3, "PROG_ADDR moved while the program ran"
    await card.write("SEQ_CTRL", 2)
    st = await card.read("SEQ_STATUS")
    assert st & 0xF == 8, f"status {st:#x}: ABORTED"
    # the program is intact: START runs it again, and the bit set lets it end
    card.regs[STATUS] = 1 << 40
    card.bus_writes.clear()
    st = await card.run()
    assert st & 0xF == 2 and [w for w in card.bus_writes if w[0] in SCRATCH] == [(SCRATCH[0], 0x5A)]
