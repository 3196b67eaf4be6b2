"""cocotb test of a DMA engine's descriptor front end (hand-over, completions, status) against a model."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from cocotb_shell_desc_queue import Gen, fetcher
from words_tb import reset

ERR_FIFO_OVERFLOW, ERR_LAST_MISMATCH = 5, 6
SOP, EOP, IRQ = 1, 2, 4
INPUTS = ("push_valid", "fetch_req_ready", "fetch_resp_valid", "err_clear", "idle", "drained",
          "end_pulse", "end_irq", "end_err", "pkt_end", "bytes_inc")
FIELDS = ("addr", "len", "stride", "count", "ctrl")


class Engine:
    """The engine's side: idle until it takes a descriptor, then a random time busy; each
    descriptor's data completes (end_pulse) a random time later, in order."""

    def __init__(self, rng: random.Random, is_rx: bool):
        self.rng, self.is_rx = rng, is_rx
        self.busy = 0            # cycles until the state machine is idle again
        self.inflight: list[list] = []   # [cycles left, ctrl] per descriptor still moving data

    def drive(self, dut) -> dict:
        r = self.rng
        end = bool(self.inflight) and self.inflight[0][0] <= 0 and r.random() < 0.7
        ctrl = self.inflight[0][1] if end else 0
        i = {"idle": int(self.busy == 0), "drained": int(not self.inflight),
             "end_pulse": int(end), "end_irq": int(end and r.random() < 0.5),
             "end_err": int(end and self.is_rx and r.random() < 0.1),
             "pkt_end": int(end and bool(ctrl & EOP)),
             "bytes_inc": r.randrange(128) if self.inflight and r.random() < 0.5 else 0}
        for k, v in i.items():
            getattr(dut, k).value = v
        return i

    def clock(self, i: dict, took: tuple | None) -> None:
        if i["end_pulse"]:
            self.inflight.pop(0)
        for f in self.inflight:
            f[0] -= 1
        self.busy = max(self.busy - 1, 0)
        if took is not None:
            self.busy = self.rng.choice([1, 2, 5, 30])
            self.inflight.append([self.rng.choice([1, 3, 40]), took[4]])


class Status:
    """The STATUS / ERROR registers' spec: DONE_COUNT, the first error's code and SEQ,
    COUNT of all; the in-packet flag from SOP's hand-over to the packet's end."""

    def __init__(self):
        self.done = self.code = self.count = self.seq = self.bytes = 0
        self.in_packet = 0

    def step(self, ends: int, errs: list[int], clear: bool, bytes_inc: int,
             take_sop: bool, pkt_end: bool) -> None:
        if clear:
            self.code = self.count = self.seq = 0
        elif errs:
            self.count = min(self.count + len(errs), 255)
            if self.code == 0:
                self.code, self.seq = errs[0], self.done
        self.done += ends
        self.bytes += bytes_inc
        self.in_packet = 1 if take_sop else 0 if pkt_end else self.in_packet


@cocotb.test()
async def dma_front_random(dut):
    """Random descriptors and chains; the engine takes and ends them at random; every field
    handed over, every completion in order, STATUS and ERROR checked each cycle."""
    words, depth = int(os.environ["RECORD_WORDS"]), int(os.environ["DEPTH"])
    is_rx = os.environ["IS_RX"] == "1"
    rng = random.Random(words * 13 + depth + is_rx)
    await reset(dut, INPUTS)
    gen, eng, st = Gen(rng, words), Engine(rng, is_rx), Status()
    fetch_task = cocotb.start_soon(fetcher(dut, gen, rng, 0.6, []))
    expect: list[tuple] = []
    pending = [gen.desc() for _ in range(120)]
    takes = skips = overflows = irqs = 0
    prev = None
    for cycle in range(60000):
        await FallingEdge(dut.clk)
        push = bool(pending) and rng.random() < 0.3
        dut.push_valid.value = int(push)
        if push:
            for k in ("src", "dst", "len", "stride", "count", "next", "ctrl"):
                getattr(dut, f"push_{k}").value = pending[0][k]
        i = eng.drive(dut)
        i["clear"] = int(rng.random() < 0.002)
        dut.err_clear.value = i["clear"]
        await ReadOnly()
        status, error = int(dut.status.value), int(dut.error.value)
        if prev is not None:
            # last cycle's completion without data (a refused descriptor, a pure jump) shows
            # as the DONE_COUNT step the engine's end did not make; it waits for the engine
            # idle and drained, so earlier data completes first
            skip = ((status >> 32) - st.done - prev["end_pulse"]) % (1 << 32)
            assert skip in (0, 1), f"DONE_COUNT jumped by {skip + prev['end_pulse']}"
            errs = []
            if skip:
                assert prev["idle"] and prev["drained"], "completion while the engine moved data"
                assert expect and (expect[0][5] or expect[0][6]), "completion of a descriptor with data"
                e = expect.pop(0)
                skips += 1
                if e[5]:
                    errs.append(e[5])
            # engine A's errors (a refused descriptor, a misplaced last) win a tie with an overflow
            if prev["end_err"]:
                errs.append(ERR_LAST_MISMATCH)
            if prev["overflow"]:
                errs.append(ERR_FIFO_OVERFLOW)
            irq = (prev["end_pulse"] and prev["end_irq"]) or (skip and e[4] & IRQ) or errs
            assert prev["irq"] == int(bool(irq)), f"irq_pulse at cycle {cycle - 1}"
            irqs += prev["irq"]
            st.step(prev["end_pulse"] + skip, errs, prev["clear"], prev["bytes_inc"],
                    prev["took"] is not None and bool(prev["took"][4] & SOP), prev["pkt_end"])
        assert status >> 32 == st.done % (1 << 32), f"DONE_COUNT {status >> 32} != {st.done}"
        assert error & 0xFF == st.code and (error >> 8) & 0xFF == st.count and error >> 32 == st.seq, \
            f"ERROR {error:#x}: code {st.code}, count {st.count}, seq {st.seq}"
        assert (status >> 5) & 1 == st.in_packet, f"in-packet flag at cycle {cycle}"
        assert int(dut.bytes.value) == st.bytes
        full, level = (status >> 1) & 1, (status >> 8) & 0xFF
        assert full == (level == depth) and (status >> 2) & 1 == (level == 0)
        took = None
        if int(dut.take.value):
            assert i["idle"], "a descriptor handed over while the engine is busy"
            took = tuple(int(getattr(dut, f"d_{k}").value) for k in FIELDS)
            assert expect and not expect[0][5] and not expect[0][6], \
                f"hand-over of {took} where a completion without data was due"
            assert took == expect[0][:5], f"handed over {took}, expected {expect[0][:5]}"
            expect.pop(0)
            takes += 1
        overflows += push and full
        if push and not full:
            expect += gen.expected(pending.pop(0))
        prev = dict(i, irq=int(dut.irq_pulse.value), overflow=push and full, took=took)
        eng.clock(i, took)
        if not pending and not expect and not eng.inflight and eng.busy == 0 and cycle > 200:
            break
    else:
        raise AssertionError(f"not done: {len(pending)} to push, {len(expect)} expected")
    fetch_task.cancel()
    await FallingEdge(dut.clk)
    eng.drive(dut)
    dut.push_valid.value = 0
    await ReadOnly()
    status = int(dut.status.value)
    assert status >> 32 == takes + skips, f"DONE_COUNT {status >> 32}, {takes + skips} descriptors"
    assert int(dut.none_queued.value) == 1 and (status & 1) == 0, "busy with nothing to do"
    assert takes >= 30 and skips >= 15 and irqs >= 20, (takes, skips, irqs)
    assert overflows >= (1 if depth <= 4 else 0)
