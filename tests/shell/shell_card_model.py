"""Python stand-in for the simulated card in cocotb tests: MMIO, three Avalon-MM slaves over
sparse memories A, B and host, with random waitrequest, latency and response gaps."""
from __future__ import annotations

import collections
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import Event, FallingEdge, ReadOnly, RisingEdge
from spgen.shellgen import load_csr_map

CSR = load_csr_map()
A_BASE, B_BASE, H_BASE = 0, 1 << 32, 1 << 63
REGION_BYTES = 1 << 20


def reg(name: str) -> int:
    return CSR.reg(name).address


class ReadSlave:
    """Avalon-MM burst read slave: random waitrequest, in-order answers after a random latency."""

    def __init__(self, card: Card, prefix: str):
        self.card, self.p = card, prefix
        self.pending: collections.deque = collections.deque()   # [ready_cycle, addr, beats_left]
        self.wait = 0
        self.beats = 0

    def drive(self):
        d, rng, c = self.card.dut, self.card.rng, self.card
        self.wait = int(rng.random() < c.p_wait)
        getattr(d, f"{self.p}_waitrequest").value = self.wait
        self.valid = 0
        if self.pending and self.pending[0][0] <= c.cycle and rng.random() >= c.p_gap:
            head = self.pending[0]
            getattr(d, f"{self.p}_readdata").value = int.from_bytes(c.read(head[1], 64), "little")
            self.valid = 1
            head[1] += 64
            head[2] -= 1
            if head[2] == 0:
                self.pending.popleft()
        getattr(d, f"{self.p}_readdatavalid").value = self.valid
        self.beats += self.valid

    def sample(self):
        d, c = self.card.dut, self.card
        if int(getattr(d, f"{self.p}_read").value) and not self.wait:
            addr = int(getattr(d, f"{self.p}_address").value)
            n = int(getattr(d, f"{self.p}_burstcount").value)
            c.check_range(addr, 64 * n, f"{self.p} read")
            assert addr % 64 == 0 and 1 <= n <= 128, f"{self.p}: bad burst {addr:#x} x{n}"
            c.reads.append((self.p, addr, n))
            lat = c.rng.randint(*c.latency)
            self.pending.append([c.cycle + lat, addr, n])


class Card:
    def __init__(self, dut, seed: int = 1, p_wait: float = 0.3, p_gap: float = 0.2,
                 latency: tuple[int, int] = (2, 30)):
        self.dut, self.rng = dut, random.Random(seed)
        self.p_wait, self.p_gap, self.latency = p_wait, p_gap, latency
        self.mem = {A_BASE: bytearray(REGION_BYTES), B_BASE: bytearray(REGION_BYTES),
                    H_BASE: bytearray(REGION_BYTES)}
        self.cycle = 0
        self.ops: collections.deque = collections.deque()
        self.op = None
        self.violations: list[str] = []
        self.reads: list = []
        self.writes: list = []
        self.tx = ReadSlave(self, "tx_rd")
        self.dsc = ReadSlave(self, "dsc_rd")
        self.wr_left = 0
        self.wr_addr = 0
        self.wr_idx = 0
        self.irq_seen = [0, 0]

    # memory
    def _locate(self, addr: int, n: int):
        for base, buf in self.mem.items():
            if base <= addr and addr + n <= base + len(buf):
                return buf, addr - base
        return None, 0

    def check_range(self, addr: int, n: int, what: str):
        if self._locate(addr, n)[0] is None:
            self.violations.append(f"{what} outside test memory: {addr:#x}+{n}")

    def read(self, addr: int, n: int) -> bytes:
        buf, off = self._locate(addr, n)
        return bytes(n) if buf is None else bytes(buf[off:off + n])

    def write(self, addr: int, data: bytes):
        buf, off = self._locate(addr, len(data))
        assert buf is not None, f"write outside test memory {addr:#x}"
        buf[off:off + len(data)] = data

    def randomize(self):
        for buf in self.mem.values():
            buf[:] = self.rng.randbytes(len(buf))

    # clock, reset, the per-cycle loop
    async def start(self):
        d = self.dut
        cocotb.start_soon(Clock(d.clk, 5, unit="ns").start())
        for s in ("mmio_wr_valid", "mmio_rd_valid", "tx_rd_readdatavalid", "dsc_rd_readdatavalid"):
            getattr(d, s).value = 0
        d.mmio_wr_addr.value = 0
        d.mmio_wr_data.value = 0
        d.mmio_rd_addr.value = 0
        d.rst.value = 1
        for _ in range(4):
            await RisingEdge(d.clk)
        d.rst.value = 0
        cocotb.start_soon(self._loop())

    async def _loop(self):
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            self.cycle += 1
            d.mmio_wr_valid.value = 0
            d.mmio_rd_valid.value = 0
            if self.op is None and self.ops:
                self.op = self.ops.popleft()
                kind, addr, val, ev = self.op
                if kind == "w":
                    d.mmio_wr_valid.value = 1
                    d.mmio_wr_addr.value = addr
                    d.mmio_wr_data.value = val
                else:
                    d.mmio_rd_valid.value = 1
                    d.mmio_rd_addr.value = addr
            self.tx.drive()
            self.dsc.drive()
            self.wr_wait = int(self.rng.random() < self.p_wait)
            d.rx_wr_waitrequest.value = self.wr_wait
            await ReadOnly()
            self.tx.sample()
            self.dsc.sample()
            self._sample_write()
            irq = int(d.irq.value)
            self.irq_seen = [self.irq_seen[0] | (irq & 1), self.irq_seen[1] | (irq >> 1)]
            if self.op is not None:
                kind, addr, val, ev = self.op
                if kind == "w":
                    ev.set()
                    self.op = None
                elif int(d.mmio_rd_resp_valid.value):
                    val[0] = int(d.mmio_rd_resp_data.value)
                    ev.set()
                    self.op = None

    def _sample_write(self):
        d = self.dut
        if not int(d.rx_wr_write.value) or self.wr_wait:
            return
        addr = int(d.rx_wr_address.value)
        n = int(d.rx_wr_burstcount.value)
        if self.wr_left == 0:
            assert addr % 64 == 0 and 1 <= n <= 128, f"bad write burst {addr:#x} x{n}"
            self.check_range(addr, 64 * n, "rx_wr write")
            self.wr_addr, self.wr_left, self.wr_idx = addr, n, 0
            self.writes.append((addr, n))
        be = int(d.rx_wr_byteenable.value)
        data = int(d.rx_wr_writedata.value).to_bytes(64, "little")
        a = self.wr_addr + 64 * self.wr_idx
        buf, off = self._locate(a, 64)
        if buf is not None:
            for i in range(64):
                if be >> i & 1:
                    buf[off + i] = data[i]
        self.wr_idx += 1
        self.wr_left -= 1

    # MMIO
    async def mmio_write(self, addr: int, val: int):
        ev = Event()
        self.ops.append(("w", addr, val & ((1 << 64) - 1), ev))
        await ev.wait()

    async def mmio_read(self, addr: int) -> int:
        ev, val = Event(), [0]
        self.ops.append(("r", addr, val, ev))
        await ev.wait()
        return val[0]

    async def cycles(self, n: int):
        for _ in range(n):
            await RisingEdge(self.dut.clk)

    # DMA helpers
    async def desc(self, engine: str, *, src: int = 0, dst: int = 0, length: int = 0,
                   stride: int = 0, count: int = 0, nxt: int = 0, ctrl: int = 0):
        e = engine.upper() + "_"
        await self.mmio_write(reg(e + "DESC_SRC"), src)
        await self.mmio_write(reg(e + "DESC_DST"), dst)
        await self.mmio_write(reg(e + "DESC_LEN"), length)
        await self.mmio_write(reg(e + "DESC_STRIDE"), stride | count << 32)
        await self.mmio_write(reg(e + "DESC_NEXT"), nxt)
        await self.mmio_write(reg(e + "DESC_CTRL"), ctrl | 1 << 31)

    async def done_count(self, engine: str) -> int:
        return await self.mmio_read(reg(engine.upper() + "_STATUS")) >> 32

    async def wait_done(self, engine: str, target: int, timeout: int = 200000) -> int:
        start = self.cycle
        while True:
            n = await self.done_count(engine)
            if n >= target:
                return n
            assert self.cycle - start < timeout, f"{engine}: timeout waiting for {target} done (at {n})"
            await self.cycles(20)

    async def error(self, engine: str) -> int:
        return (await self.mmio_read(reg(engine.upper() + "_ERROR"))) & 0xFF

    async def idle(self, engine: str, timeout: int = 100000):
        start = self.cycle
        while (await self.mmio_read(reg(engine.upper() + "_STATUS"))) & 1:
            assert self.cycle - start < timeout, f"{engine}: still busy"
            await self.cycles(10)


SOP, EOP, IRQ, CHAIN = 1, 2, 4, 8


def desc_bytes(*, src=0, dst=0, length=0, stride=0, count=0, nxt=0, ctrl=0) -> bytes:
    """One 64-byte in-memory descriptor (afushell_desc_t)."""
    return (src.to_bytes(8, "little") + dst.to_bytes(8, "little") + length.to_bytes(4, "little")
            + bytes(4) + stride.to_bytes(4, "little") + count.to_bytes(4, "little")
            + nxt.to_bytes(8, "little") + ctrl.to_bytes(4, "little") + bytes(20))
