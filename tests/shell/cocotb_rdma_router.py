"""cocotb test of the RDMA router (shell/rdma/rdma_router.v) against a model of its neighbours:
link inputs with two VC queues as rdma_link_rx shows them (heads, the header behind each
head, a VC held from a packet's first beat to its last), local inputs that drop their valid at
random, outputs whose links take a packet only with a credit on its new VC and whose ready
drops at random. Every packet must leave whole, once, in order per (input, VC), at the output
the table names (STREAM2 / CREDIT2 at the second local port) with the dateline VC rule, never
past a credit; then one flow of 5-beat packets from the local port must move a beat a cycle
(LANES > 1) and, with credits coming back slowly, still wait for a credit per packet."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

T_DATA, T_STREAM2, T_CREDIT2 = 3, 10, 11
BUF = 4  # packets of credit per output VC


def hdr(dst: int, typ: int, vc: int, pid: int) -> int:
    return dst | typ << 12 | vc << 16 | (pid & 0x7FFF) << 17


class Env:
    def __init__(self, dut, rng: random.Random, p: int, lanes: int, locals_: int) -> None:
        self.dut, self.rng, self.p, self.lanes, self.n = dut, rng, p, lanes, p + locals_
        self.locals = locals_
        self.q = [[[], []] for _ in range(self.n)]  # per input and VC: packets (lists of beats)
        self.busy_vc = [None] * self.n             # a link input's VC from first beat to last
        self.pos = [0] * self.n                     # beat of the head packet being read
        self.used = [[0, 0] for _ in range(self.n)]
        self.cur = [None] * self.n                  # per output: the packet passing
        self.got: dict[tuple, list] = {}
        self.delivered = 0
        self.ready_p, self.valid_p, self.free_p = 1.0, 1.0, 1.0
        self.lvalid = [0] * self.n

    def table(self, dst: int) -> int:
        return dst % self.n if dst % self.n < self.p or self.locals == 1 else self.p

    def expect_out(self, dst: int, typ: int) -> int:
        o = self.table(dst)
        return o + 1 if o == self.p and self.locals > 1 and typ in (T_STREAM2, T_CREDIT2) else o

    def ovc(self, i: int, v: int, o: int) -> int:
        if o >= self.p:
            return 0
        if o == 0:  # port 0 crosses the dateline
            return 1
        return v if i < self.p else 0  # both link ports are in dimension 0

    def packet(self, i: int, v: int, dst: int, typ: int, beats: int, pid: int) -> list[int]:
        w = [hdr(dst, typ, v, pid)] + [pid << 8 | k for k in range(1, self.lanes * beats)]
        return [sum(x << (32 * k) for k, x in enumerate(w[b * self.lanes:(b + 1) * self.lanes]))
                for b in range(beats)]

    def add(self, i: int, v: int, dst: int, typ: int, beats: int, pid: int) -> None:
        pk = self.packet(i, v, dst, typ, beats, pid)
        o = self.expect_out(dst, typ)
        self.q[i][v].append({"beats": pk, "pid": pid, "out": o, "ovc": self.ovc(i, v, o), "key": (i, v)})

    def drive(self) -> None:
        d = self.dut
        mask32 = (1 << 32) - 1
        avail = more = h0 = h1 = n0 = n1 = valid = last = 0
        data = 0
        sel = int(d.in_sel_vc.value)
        for i in range(self.n):
            if i < self.p:
                qs = self.q[i]
                for v in (0, 1):
                    avail |= (len(qs[v]) > 0) << (2 * i + v)
                    more |= (len(qs[v]) > 1) << (2 * i + v)
                h0 |= (qs[0][0]["beats"][0] & mask32 if qs[0] else 0) << (32 * i)
                h1 |= (qs[1][0]["beats"][0] & mask32 if qs[1] else 0) << (32 * i)
                n0 |= (qs[0][1]["beats"][0] & mask32 if len(qs[0]) > 1 else 0) << (32 * i)
                n1 |= (qs[1][1]["beats"][0] & mask32 if len(qs[1]) > 1 else 0) << (32 * i)
                v = self.busy_vc[i] if self.busy_vc[i] is not None else sel >> i & 1
                pk = qs[v][0] if qs[v] else None
                self.lvalid[i] = 1 if pk else 0
            else:  # a local port: its bus; valid may drop at any beat
                pk = self.q[i][0][0] if self.q[i][0] else None
                self.lvalid[i] = 1 if pk and self.rng.random() < self.valid_p else 0
                if self.lvalid[i]:
                    avail |= 1 << (2 * i)
                    h0 |= (pk["beats"][self.pos[i]] & mask32) << (32 * i)
            if self.lvalid[i]:
                valid |= 1 << i
                last |= (self.pos[i] == len(pk["beats"]) - 1) << i
                data |= pk["beats"][self.pos[i]] << (32 * self.lanes * i)
        d.in_avail.value, d.in_more.value = avail, more
        d.in_head0.value, d.in_head1.value, d.in_next0.value, d.in_next1.value = h0, h1, n0, n1
        d.in_valid.value, d.in_last.value, d.in_data.value = valid, last, data
        ready = ct = 0
        for o in range(self.n):
            ready |= (self.rng.random() < self.ready_p) << o
            for v in (0, 1):
                ct |= (o >= self.p or self.used[o][v] < BUF) << (2 * o + v)
        d.out_ready.value, d.out_can_take.value = ready, ct

    def sample(self) -> None:
        """After the logic settles: the beats that move this cycle."""
        d = self.dut
        ready, in_ready = int(d.out_ready.value), int(d.in_ready.value)
        ov, ol, od = int(d.out_valid.value), int(d.out_last.value), int(d.out_data.value)
        sel = int(d.in_sel_vc.value)
        taken = []
        for i in range(self.n):
            if self.lvalid[i] and in_ready >> i & 1:
                v = 0 if i >= self.p else (self.busy_vc[i] if self.busy_vc[i] is not None else sel >> i & 1)
                taken.append((i, v))
        moved = []
        for o in range(self.n):
            if ov >> o & 1 and ready >> o & 1:
                moved.append((o, od >> (32 * self.lanes * o) & ((1 << (32 * self.lanes)) - 1), ol >> o & 1))
        links = sum(i < self.p for i, _ in taken)  # a local port's beats wait in its input register
        assert links <= len(moved), f"{links} beats left link inputs, {len(moved)} reached outputs"
        for i, v in taken:
            pk = self.q[i][v][0]
            self.busy_vc[i] = v
            self.pos[i] += 1
            if self.pos[i] == len(pk["beats"]):
                self.q[i][v].pop(0)
                self.pos[i], self.busy_vc[i] = 0, None
        for o, beat, la in moved:
            if self.cur[o] is None:
                vc = beat >> 16 & 1
                pid = (beat & 0xFFFFFFFF) >> 17
                assert o >= self.p or self.used[o][vc] < BUF, f"output {o} passed a packet on VC {vc} without credit"
                self.used[o][vc] += o < self.p
                self.cur[o] = {"pid": pid, "beats": [beat], "vc": vc}
            else:
                self.cur[o]["beats"].append(beat)
            if la:
                c = self.cur[o]
                self.got.setdefault(o, []).append((c["pid"], c["vc"], c["beats"]))
                self.cur[o] = None
                self.delivered += 1
        for o in range(self.p):  # credits come back
            for v in (0, 1):
                if self.used[o][v] and self.rng.random() < self.free_p:
                    self.used[o][v] -= 1


async def run(env: Env, limit: int) -> int:
    d = env.dut
    total = sum(len(env.q[i][v]) for i in range(env.n) for v in (0, 1))
    start = env.delivered
    for cyc in range(limit):
        await FallingEdge(d.clk)
        env.drive()
        await ReadOnly()
        env.sample()
        if env.delivered - start == total:
            return cyc + 1
    raise AssertionError(f"{env.delivered - start} of {total} packets after {limit} cycles (deadlock?)")


@cocotb.test()
async def router(dut):
    p, lanes, locals_ = int(os.environ["P"]), int(os.environ["LANES"]), int(os.environ["LOCALS"])
    rng = random.Random(int(os.environ.get("SEED", "7")))
    env = Env(dut, rng, p, lanes, locals_)
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    for name in ("cfg_we", "cfg_addr", "cfg_port", "in_avail", "in_head0", "in_head1", "in_more", "in_next0",
                 "in_next1", "in_valid", "in_data", "in_last", "out_ready", "out_can_take"):
        getattr(dut, name).value = 0
    dut.port_dim.value = 0  # both link ports in dimension 0
    dut.port_dateline.value = 1  # the link out of port 0 crosses the dateline
    dut.rst.value = 1
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    for a in range(64):
        await FallingEdge(dut.clk)
        dut.cfg_we.value, dut.cfg_addr.value, dut.cfg_port.value = 1, a, env.table(a)
    await FallingEdge(dut.clk)
    dut.cfg_we.value = 0

    # random traffic: every input and VC, packets of 1 to 4 beats, to every output
    want: dict[tuple, list] = {}
    pid = 0
    for _ in range(40):
        for i in range(env.n):
            for v in ((0, 1) if i < p else (0,)):
                dst = rng.randrange(64)
                typ = rng.choice([T_DATA, T_STREAM2, T_CREDIT2, 8])
                beats = rng.choice([1, 1, 2, 3, 4])
                env.add(i, v, dst, typ, beats, pid)
                pk = env.q[i][v][-1]
                want.setdefault(pk["out"], []).append(((i, v), pid, pk["ovc"], pk["beats"]))
                pid += 1
    env.ready_p, env.valid_p, env.free_p = 0.8, 0.85, 0.3
    await run(env, 20000)
    for o, lst in want.items():
        got = {g[0]: g for g in env.got.get(o, [])}
        assert sorted(got) == sorted(w[1] for w in lst), f"output {o}: packets differ"
        for key in {w[0] for w in lst}:
            order = [w[1] for w in lst if w[0] == key]
            seen = [g[0] for g in env.got[o] if g[0] in set(order)]
            assert seen == order, f"output {o}: packets of input/VC {key} out of order"
        for _, pid_, ovc, beats in lst:
            g = got[pid_]
            assert g[1] == ovc, f"packet {pid_} left output {o} on VC {g[1]}, not {ovc}"
            exp = [b & ~(1 << 16) | (ovc << 16) if k == 0 else b for k, b in enumerate(beats)]
            assert g[2] == exp, f"packet {pid_} changed on its way to output {o}"

    # one flow of 5-beat packets from the local port to link port 1: a beat a cycle
    env.got.clear()
    env.ready_p, env.valid_p, env.free_p = 1.0, 1.0, 1.0
    dst = next(a for a in range(64) if env.table(a) == 1)
    for k in range(60):
        env.add(p, 0, dst, T_DATA, 5, 30000 + k)
    cycles = await run(env, 2000)
    per = 5 if lanes > 1 else 6  # one word a beat: the grant takes a cycle of its own
    assert cycles <= 60 * per + 8, f"60 packets of 5 beats took {cycles} cycles"

    # the same flow with credits coming back slowly: packets that follow each other on one
    # output still wait for a credit each (the check in sample), whole and in order
    env.got.clear()
    env.free_p = 0.02
    for k in range(30):
        env.add(p, 0, dst, T_DATA, 5, 31000 + k)
    await run(env, 30000)
    assert [g[0] for g in env.got[1]] == [31000 + k for k in range(30)]
