"""cocotb test of the host CSR block (shell_csr) against shell/csr_map.json: reset values, the
header and SHELL_INFO from the parameters, both engines' staging registers and their pushes,
strobes, W1C interrupts, the core's counters and the Reg values (slots past N_REGS read 0)."""
from __future__ import annotations

import os
import random

import cocotb
from csr_tb import CSR, MMIO, addr, field_lsb, mmio_random, reset_value
from words_tb import reset

M32, M64 = (1 << 32) - 1, (1 << 64) - 1
ENG = ("TX_", "RX_")
# the engines' status inputs by register, and the core's counters
ENG_IN = {"STATUS": "status", "ERROR": "error", "BYTES": "bytes", "BUSY_CYCLES": "busy_cycles"}
CORE_IN = {"STATUS": "core_status", "IN_TOTAL_CYCLES": "in_total", "IN_MOVED_CYCLES": "in_moved",
           "OUT_TOTAL_CYCLES": "out_total", "OUT_MOVED_CYCLES": "out_moved", "PRIME_CYCLES": "prime_cycles",
           "IN_FIRST_CYCLES": "in_first"}
STAGING = {"DESC_SRC": M64, "DESC_DST": M64, "DESC_LEN": M32, "DESC_STRIDE": M64, "DESC_NEXT": M64, "DESC_CTRL": M32}
INPUTS = tuple(f"{p.lower()}{s}" for p in ENG for s in (*ENG_IN.values(), "irq_pulse")) + tuple(CORE_IN.values())


def params() -> dict:
    return {k: int(os.environ[k], 0) for k in ("N_CORES", "IN_RECORD_WORDS", "OUT_RECORD_WORDS", "N_REGS",
                                               "DESC_FIFO_DEPTH", "AFU_ID_L", "AFU_ID_H", "REG_SEED")}


def reg_defaults(n_regs: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.getrandbits(32) for _ in range(n_regs)]


class ShellCsr:
    """The host's registers, from their reset values in the map and the block's parameters."""

    def __init__(self, p: dict):
        self.p = p
        self.stage = {e + n: reset_value(e + n) for e in ENG for n in STAGING}
        self.rw = {n: reset_value(n) for n in ("SCRATCH", "IRQ_ENABLE", "CORE_ELEMENTS")}
        self.irq = reset_value("IRQ_STATUS")
        self.cycles = reset_value("CYCLES")
        self.regs = reg_defaults(p["N_REGS"], p["REG_SEED"])
        self.packed = sum(v << (32 * k) for k, v in enumerate(self.regs))
        info = {"VERSION_MINOR": CSR.version[1], "VERSION_MAJOR": CSR.version[0],
                **{k: p[k] for k in ("N_CORES", "IN_RECORD_WORDS", "OUT_RECORD_WORDS", "N_REGS", "DESC_FIFO_DEPTH")}}
        self.const = {addr("DFH"): reset_value("DFH"), addr("AFU_ID_L"): p["AFU_ID_L"], addr("AFU_ID_H"): p["AFU_ID_H"],
                      addr("SHELL_INFO"): sum((v & 0xFF) << field_lsb("SHELL_INFO", k) for k, v in info.items())}

    def read(self, a: int, i: dict) -> int:
        values = dict(self.const)
        values.update({addr(n): v for n, v in {**self.stage, **self.rw}.items()})
        values.update({addr("CYCLES"): self.cycles, addr("IRQ_STATUS"): self.irq})
        values.update({addr(e + n): i[e.lower() + port] for e in ENG for n, port in ENG_IN.items()})
        values.update({addr("CORE_" + n): i[port] for n, port in CORE_IN.items()})
        k = (a - addr("CORE_REG")) // 8
        return self.regs[k] if 0 <= k < len(self.regs) else values.get(a, 0)

    @staticmethod
    def _wr(i: dict, name: str, bit: str | None = None) -> int:
        hit = i["mmio_wr_valid"] and i["mmio_wr_addr"] == addr(name)
        return int(bool(hit and (bit is None or i["mmio_wr_data"] >> field_lsb(name, bit) & 1)))

    def outputs(self, i: dict) -> dict:
        go = {e: self._wr(i, e + "DESC_CTRL", "GO") for e in ENG}
        s = "RX_" if go["RX_"] else "TX_"
        soft = self._wr(i, "SHELL_CTRL", "SOFT_RESET")
        out = {"tx_push": go["TX_"], "rx_push": go["RX_"], "push_src": self.stage[s + "DESC_SRC"],
               "push_dst": self.stage[s + "DESC_DST"], "push_len": self.stage[s + "DESC_LEN"],
               "push_stride": self.stage[s + "DESC_STRIDE"] & M32, "push_count": self.stage[s + "DESC_STRIDE"] >> 32,
               "push_next": self.stage[s + "DESC_NEXT"], "push_ctrl": i["mmio_wr_data"] & 0xF,
               "soft_reset": soft, "tx_srst": soft | self._wr(i, "TX_CONTROL", "RESET"),
               "rx_srst": soft | self._wr(i, "RX_CONTROL", "RESET"), "tx_err_clear": self._wr(i, "TX_ERROR"),
               "rx_err_clear": self._wr(i, "RX_ERROR"), "irq": self.irq & self.rw["IRQ_ENABLE"],
               "core_elements": self.rw["CORE_ELEMENTS"]}
        out.update({f"core_{b.lower()}": self._wr(i, "CORE_CTRL", b) for b in ("START", "STOP", "ARM")})
        if self.regs:
            out["core_regs"] = self.packed
        return out

    def step(self, i: dict) -> None:
        self.cycles = (self.cycles + 1) & M64
        a, d = i["mmio_wr_addr"], i["mmio_wr_data"]
        clear = 0
        if i["mmio_wr_valid"]:
            for n, mask in [*((e + s, m) for e in ENG for s, m in STAGING.items()),
                            ("SCRATCH", M64), ("IRQ_ENABLE", 3), ("CORE_ELEMENTS", M64)]:
                if a == addr(n):
                    (self.stage if n in self.stage else self.rw)[n] = d & mask
            k = (a - addr("CORE_REG")) // 8
            if 0 <= k < len(self.regs):
                self.regs[k] = d & M32
                self.packed = sum(v << (32 * k) for k, v in enumerate(self.regs))
            clear = d & 3 if a == addr("IRQ_STATUS") else 0
        pulses = i["tx_irq_pulse"] | i["rx_irq_pulse"] << 1
        self.irq = 0 if self._wr(i, "SHELL_CTRL", "SOFT_RESET") else (self.irq & ~clear) | pulses


def stimulus(rng: random.Random) -> dict:
    i = {k: rng.getrandbits(64) for k in INPUTS}
    i.update(tx_irq_pulse=int(rng.random() < 0.05), rx_irq_pulse=int(rng.random() < 0.05),
             core_status=rng.getrandbits(8))
    return i


@cocotb.test()
async def shell_csr_random(dut):
    """Every mapped register, Reg slots up to the last and past N_REGS, and unmapped addresses
    (holes in each page, past the window) written and read at random."""
    p = params()
    rng = random.Random(p["N_REGS"] + p["N_CORES"])
    await reset(dut, MMIO + INPUTS)
    addresses = sorted({r.address for r in CSR.registers if r.block in ("HDR", "DMA", "CORE")})
    regs = addr("CORE_REG")
    addresses += [regs + 8 * k for k in sorted({0, 1, p["N_REGS"] - 1, p["N_REGS"], 17, 255} - {-1})]
    addresses += [0x58, 0x178, 0x2F8, 0x440, 0x1000, 0x3FFF8, 0x1800 + 0x800]
    reads = await mmio_random(dut, ShellCsr(p), rng, 4000, addresses, stimulus, p_wr=0.35)
    assert reads > 1500
