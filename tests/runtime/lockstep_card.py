"""A deterministic driver of a card library (the spg_afu_* ABI of afu_pins.h) for tests.

The runtime's card clocks itself from its own thread and takes host MMIO at the
cycle it arrives, so two runs of one program may differ by a few cycles (a DDR
refresh falls elsewhere). Comparing two core models cycle for cycle needs the same
stimulus at the same cycles: this driver clocks the AFU itself, issues MMIO at fixed
points, and answers its memory masters from a seeded random memory (waitrequest,
read latency and gaps between read beats drawn per cycle).
"""
from __future__ import annotations

import ctypes
import random
from pathlib import Path

import numpy as np

__all__ = ["LockstepCard"]


class _Rd(ctypes.Structure):
    _fields_ = [("address", ctypes.c_uint64), ("read", ctypes.c_uint8),
                ("burstcount", ctypes.c_uint8), ("waitrequest", ctypes.c_uint8),
                ("readdatavalid", ctypes.c_uint8), ("readdata", ctypes.c_uint64 * 8)]


class _Wr(ctypes.Structure):
    _fields_ = [("address", ctypes.c_uint64), ("write", ctypes.c_uint8),
                ("burstcount", ctypes.c_uint8), ("waitrequest", ctypes.c_uint8),
                ("byteenable", ctypes.c_uint64), ("writedata", ctypes.c_uint64 * 8)]


class _Pins(ctypes.Structure):
    _fields_ = [("rst", ctypes.c_uint8), ("mmio_wr_valid", ctypes.c_uint8),
                ("mmio_wr_addr", ctypes.c_uint32), ("mmio_wr_data", ctypes.c_uint64),
                ("mmio_rd_valid", ctypes.c_uint8), ("mmio_rd_addr", ctypes.c_uint32),
                ("mmio_rd_resp_valid", ctypes.c_uint8), ("mmio_rd_resp_data", ctypes.c_uint64),
                ("tx_rd", _Rd), ("rx_wr", _Wr), ("dsc_rd", _Rd), ("irq", ctypes.c_uint8)]


MEM_BYTES = 8 << 20  # the part of memory A this driver models
TX, RX, CORE = 0x100, 0x200, 0x400
GO, EOP = 1 << 31, 1 << 1


class LockstepCard:
    """One AFU clocked by the caller. ``busy``: probability of waitrequest per cycle."""

    def __init__(self, lib: Path, seed: int, busy: float = 0.3, gap: float = 0.2):
        self._dl = ctypes.CDLL(str(lib))
        self._dl.spg_afu_new.restype = ctypes.c_void_p
        self._dl.spg_afu_eval.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Pins), ctypes.c_int]
        self._dl.spg_afu_free.argtypes = [ctypes.c_void_p]
        self._afu = self._dl.spg_afu_new()
        self.p = _Pins()
        self._pp = ctypes.byref(self.p)
        self.mem = np.zeros(MEM_BYTES, dtype=np.uint8)
        self.rng = random.Random(seed)
        self.busy, self.gap = busy, gap
        self.cycle = 0
        self._reads: list[list[int]] = []  # [ready cycle, address, beats left]
        self._wburst = [0, 0]               # address, beats left
        self.p.rst = 1
        for _ in range(8):
            self.step()
        self.p.rst = 0

    def close(self) -> None:
        if self._afu:
            self._dl.spg_afu_free(self._afu)
            self._afu = None

    def _eval(self, clk: int) -> None:
        self._dl.spg_afu_eval(self._afu, self._pp, clk)

    def step(self) -> None:
        p, rng, c = self.p, self.rng, self.cycle
        rd = p.tx_rd
        rd.readdatavalid = 0
        if self._reads and self._reads[0][0] <= c and rng.random() >= self.gap:
            r = self._reads[0]
            at = r[1]
            rd.readdatavalid = 1
            ctypes.memmove(rd.readdata, self.mem[at:at + 64].ctypes.data, 64)
            r[1] += 64
            r[2] -= 1
            if r[2] == 0:
                self._reads.pop(0)
        self._eval(0)
        rd.waitrequest = int(rng.random() < self.busy)
        p.rx_wr.waitrequest = int(rng.random() < self.busy)
        p.dsc_rd.waitrequest = 0
        self._eval(0)
        if rd.read and not rd.waitrequest:
            self._reads.append([c + rng.randint(2, 30), int(rd.address), rd.burstcount or 1])
        w = p.rx_wr
        if w.write and not w.waitrequest:
            if self._wburst[1] == 0:
                self._wburst = [int(w.address), w.burstcount or 1]
            at = self._wburst[0]
            data = np.frombuffer(bytes(w.writedata), dtype=np.uint8)
            be = np.unpackbits(np.array([w.byteenable], dtype="<u8").view(np.uint8),
                               bitorder="little").astype(bool)
            self.mem[at:at + 64][be] = data[be]
            self._wburst[0] += 64
            self._wburst[1] -= 1
        self._eval(1)
        p.mmio_wr_valid = p.mmio_rd_valid = 0
        self.cycle += 1

    def write(self, addr: int, value: int) -> None:
        self.p.mmio_wr_valid, self.p.mmio_wr_addr, self.p.mmio_wr_data = 1, addr, value
        self.step()

    def read(self, addr: int) -> int:
        self.p.mmio_rd_valid, self.p.mmio_rd_addr = 1, addr
        for _ in range(64):
            self.step()
            if self.p.mmio_rd_resp_valid:
                return int(self.p.mmio_rd_resp_data)
        raise AssertionError(f"no MMIO read response from 0x{addr:x}")

    def run(self, src: int, dst: int, in_bytes: int, out_bytes: int, records: int,
            pieces: int, arm: bool, limit: int = 400_000) -> dict:
        """A run of ``records`` through the cores, the TX side split into ``pieces``
        descriptors; returns the counters, engine figures and the finishing cycle."""
        rx_done = self.read(RX + 0x30) >> 32
        self.write(CORE + 0x10, records)
        self.write(CORE, 4 if arm else 1)
        cuts = sorted(self.rng.sample(range(1, records), pieces - 1)) if pieces > 1 else []
        in_rec = in_bytes // records
        for i, (a, b) in enumerate(zip([0] + cuts, cuts + [records])):
            for off, v in ((0x00, src + a * in_rec), (0x10, (b - a) * in_rec), (0x18, 0)):
                self.write(TX + off, v)
            self.write(TX + 0x28, GO | (EOP if b == records else 0))
        for off, v in ((0x08, dst), (0x10, out_bytes), (0x18, 0)):
            self.write(RX + off, v)
        self.write(RX + 0x28, GO | EOP)
        start = self.cycle
        while not (self.read(CORE + 0x08) & 2 and self.read(RX + 0x30) >> 32 > rx_done):
            for _ in range(50):
                self.step()
            if self.cycle - start > limit:
                raise AssertionError("run did not finish")
        names = ["in_total", "in_moved", "out_total", "out_moved", "prime"]
        out = {n: self.read(CORE + 0x18 + 8 * i) for i, n in enumerate(names)}
        for eng, base in (("tx", TX), ("rx", RX)):
            out[f"{eng}_bytes"] = self.read(base + 0x48)
            out[f"{eng}_busy_cycles"] = self.read(base + 0x50)
            out[f"{eng}_error"] = self.read(base + 0x38)
        out["cycles"] = self.read(0x38)
        return out
