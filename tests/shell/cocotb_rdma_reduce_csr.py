"""cocotb test of the reduction unit's CSR block (rdma_reduce_csr) against shell/csr_map.json's
REDUCE registers: reset values, CFG's fields and outputs, SRC/DST/LEN, CTRL's START and ABORT
strobes, STATUS and STALLS from the unit's inputs."""
from __future__ import annotations

import random

import cocotb
from csr_tb import CSR, MMIO, addr, field_lsb, field_mask, mmio_random, reset_value
from words_tb import reset

M64 = (1 << 64) - 1
INPUTS = ("busy", "done", "code", "words", "in_stalls", "out_stalls", "ep_errors")
# STATUS's fields and the unit's inputs they show
STATUS = {"BUSY": "busy", "DONE": "done", "CODE": "code", "WORDS": "words"}


class ReduceCsr:
    """The REDUCE registers, from their reset values in the map."""

    def __init__(self):
        self.regs = {n: reset_value(f"REDUCE_{n}") for n in ("CFG", "SRC", "DST", "LEN")}

    def read(self, a: int, i: dict) -> int:
        status = sum(i[port] << field_lsb("REDUCE_STATUS", f) for f, port in STATUS.items())
        status |= (i["ep_errors"] & 1) << field_lsb("REDUCE_STATUS", "RX_OVERFLOW")
        status |= (i["ep_errors"] >> 1) << field_lsb("REDUCE_STATUS", "RX_MISROUTED")
        stalls = i["in_stalls"] << field_lsb("REDUCE_STALLS", "IN") | i["out_stalls"] << field_lsb("REDUCE_STALLS", "OUT")
        values = {addr(f"REDUCE_{n}"): v for n, v in self.regs.items()}
        values.update({addr("REDUCE_STATUS"): status, addr("REDUCE_STALLS"): stalls})
        return values.get(a, 0)

    def outputs(self, i: dict) -> dict:
        cfg = self.regs["CFG"]

        def f(name):
            w = next(x for x in CSR.reg("REDUCE_CFG").fields if x.name == name)
            return (cfg & w.mask) >> w.lsb
        ctrl = i["mmio_wr_valid"] and i["mmio_wr_addr"] == addr("REDUCE_CTRL")
        go = ctrl and i["mmio_wr_data"] >> field_lsb("REDUCE_CTRL", "START") & 1
        abort = ctrl and i["mmio_wr_data"] >> field_lsb("REDUCE_CTRL", "ABORT") & 1
        start = int(bool(go and not abort and not i["busy"]))
        return {"next": f("NEXT"), "prev": f("PREV"), "sid": 128 + f("SID"), "rsid": 192 + f("SID"),
                "first": f("FIRST"), "last": f("LAST"), "f32": f("F32"), "allreduce": f("ALL"),
                "src": self.regs["SRC"], "dst": self.regs["DST"], "len": self.regs["LEN"],
                "start": start, "unit_rst": int(bool(abort)), "ep_rst": int(bool(start or abort))}

    def step(self, i: dict) -> None:
        for n in self.regs:
            if i["mmio_wr_valid"] and i["mmio_wr_addr"] == addr(f"REDUCE_{n}"):
                self.regs[n] = i["mmio_wr_data"] & (field_mask("REDUCE_CFG") if n == "CFG" else M64)


def stimulus(rng: random.Random) -> dict:
    return {"busy": rng.randrange(2), "done": rng.randrange(2), "code": rng.getrandbits(8),
            "words": rng.getrandbits(32), "in_stalls": rng.getrandbits(32), "out_stalls": rng.getrandbits(32),
            "ep_errors": rng.randrange(4)}


@cocotb.test()
async def reduce_csr_random(dut):
    """Every REDUCE register (and the block's neighbours, which read 0) written and read at
    random, CTRL with START and ABORT in every combination, busy or not."""
    rng = random.Random(7)
    await reset(dut, MMIO + INPUTS)
    base = addr("REDUCE_CFG")
    addresses = [r.address for r in CSR.registers if r.block == "REDUCE"] + [base - 8, base + 0x38, base + 0x100]
    reads = await mmio_random(dut, ReduceCsr(), rng, 4000, addresses, stimulus)
    assert reads > 1500
