"""cocotb test of the reduction unit's completion record (rdma_reduce_cpl) against shell/csr_map.json's
REDUCE_CPL: the register through MMIO, one record line per rise of DONE with STATUS, STALLS and the
reduction number, written and flushed through a memory port that waits at random (the caller
hands the port to the record while rec_active), no record with CPL 0 or after ABORT."""
from __future__ import annotations

import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from csr_tb import MMIO, addr, field_lsb
from words_tb import reset

WIDTHS = {"code": 8, "words": 32, "in_stalls": 32, "out_stalls": 32, "ep_errors": 2, "sid": 8}
INPUTS = MMIO + ("unit_rst", "done", "code", "words", "in_stalls", "out_stalls", "ep_errors", "sid",
                 "wr_waitrequest", "wr_pending")


def record(i: dict) -> int:
    """The line the map describes: STATUS (DONE set, BUSY clear), STALLS, the reduction number."""
    status = 1 << field_lsb("REDUCE_STATUS", "DONE") | i["code"] << field_lsb("REDUCE_STATUS", "CODE")
    status |= i["words"] << field_lsb("REDUCE_STATUS", "WORDS")
    status |= (i["ep_errors"] & 1) << field_lsb("REDUCE_STATUS", "RX_OVERFLOW")
    status |= (i["ep_errors"] >> 1) << field_lsb("REDUCE_STATUS", "RX_MISROUTED")
    stalls = i["in_stalls"] << field_lsb("REDUCE_STALLS", "IN") | i["out_stalls"] << field_lsb("REDUCE_STALLS", "OUT")
    return status | stalls << 64 | (i["sid"] & 63) << 128


class Model:
    def __init__(self):
        self.cpl = 0
        self.st = "idle"
        self.done = 0
        self.line = 0
        self.pending = 0      # the adapter's: high from the record's write until the flush ends

    def outputs(self) -> dict:
        out = {"rec_active": int(self.st != "idle"), "rec_write": int(self.st == "write"),
               "rec_flush": int(self.st == "flush")}
        if self.st != "idle":   # what the port takes while the record has it
            out.update(rec_address=self.cpl, rec_data=self.line)
        return out

    def step(self, i: dict) -> None:
        if i["unit_rst"]:
            self.st, self.done = "idle", 0
        else:
            if self.st == "idle" and i["done"] and not self.done and self.cpl:
                self.st, self.line = "write", record(i)
            elif self.st == "write" and not i["wr_waitrequest"]:
                self.st = "flush"
            elif self.st == "flush" and not i["wr_pending"]:
                self.st = "idle"
            self.done = i["done"]
        if i["mmio_wr_valid"] and i["mmio_wr_addr"] == addr("REDUCE_CPL"):
            self.cpl = i["mmio_wr_data"] & ~63 & ((1 << 64) - 1)


@cocotb.test()
async def reduce_cpl_random(dut):
    """Random MMIO writes and reads of CPL (0 among them), DONE rising and falling, the unit's
    writes, the port's waitrequest and pending, now and then an ABORT: every output as the model
    says each cycle, CPL read back, and records written (more than a few)."""
    rng = random.Random(11)
    await reset(dut, INPUTS)
    model = Model()
    resp = None
    records = reads = 0
    fields = {k: rng.getrandbits(w) for k, w in WIDTHS.items()}
    done = 0
    for cycle in range(6000):
        await FallingEdge(dut.clk)
        i = {k: 0 for k in INPUTS}
        if rng.random() < 0.05:
            fields = {k: rng.getrandbits(w) for k, w in WIDTHS.items()}
        if rng.random() < 0.08:
            done ^= 1
        i.update(fields, done=done, unit_rst=int(rng.random() < 0.01),
                 wr_waitrequest=int(rng.random() < 0.4), wr_pending=int(rng.random() < 0.5))
        if rng.random() < 0.05:
            i.update(mmio_wr_valid=1, mmio_wr_addr=addr("REDUCE_CPL"),
                     mmio_wr_data=0 if rng.random() < 0.2 else rng.getrandbits(64))
        if rng.random() < 0.2:
            i.update(mmio_rd_valid=1, mmio_rd_addr=rng.choice([addr("REDUCE_CPL"), addr("REDUCE_STATUS")]))
        for k, v in i.items():
            getattr(dut, k).value = v
        await ReadOnly()
        assert int(dut.mmio_rd_resp_valid.value) == (resp is not None), f"cycle {cycle}: response valid"
        if resp is not None:
            assert int(dut.mmio_rd_resp_data.value) == resp, f"cycle {cycle}: CPL read"
            reads += 1
        for port, want in model.outputs().items():
            got = int(getattr(dut, port).value)
            assert got == want, f"cycle {cycle}: {port} {got:#x} != {want:#x}"
        if model.st == "write" and not i["wr_waitrequest"]:
            records += 1
        resp = model.cpl if i["mmio_rd_valid"] and i["mmio_rd_addr"] == addr("REDUCE_CPL") else None
        model.step(i)
    assert records > 30 and reads > 100, (records, reads)
