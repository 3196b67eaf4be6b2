"""cocotb test of the RDMA receivers' control side (stream set-up, GETREQ, completions, stream
ends, the stream table's ports) against a cycle model."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from cocotb_rdma_start_check import M32, T_GETREQ, T_GETRESP, T_PUT, expect, fields, words_of
from words_tb import reset

T_DONE, T_ERR = 5, 6
IDLE, EXEC, DIV, CHK = 0, 2, 4, 5
E_REMOTE_RANGE = 2
INPUTS = ("start", "pk_src", "pk_type", "pk_words", "w", "hold", "fin", "fin_put", "fin_src", "fin_op",
          "fin_base", "fin_len", "rd_src", "upd", "upd_src", "upd_cur", "upd_rem", "upd_bstart", "upd_brem",
          "clr", "clr_src", "q_live", "rp_full", "rq_full")
# the stream table's entry, high field first, and each field's bits
ENTRY = (("act", 1), ("put", 1), ("disc", 1), ("op", 32), ("base", 64), ("len", 64), ("cur", 64),
         ("rem", 64), ("bstart", 64), ("blk", 32), ("brem", 32), ("stride", 32))


def cat(*parts: tuple[int, int]) -> int:
    """{a, b, ...} of (value, bits) pairs, the first one high."""
    v = 0
    for x, n in parts:
        v = v << n | (x & ((1 << n) - 1))
    return v


def fields_of(v: int) -> dict:
    out = {}
    for k, n in reversed(ENTRY):
        out[k], v = v & ((1 << n) - 1), v >> n
    return out


def norm_pkt(x: int) -> int:
    return 256 if x == 0 or x > 256 else 16 if x < 16 else x & 0x1F0


def packet(rng: random.Random, mem: int) -> dict:
    """A control packet: stream starts and GETREQs biased to every check's edge (the start
    checks' own generator), DONE / ERR, unknown types; GETREQs with the packet-size word."""
    f = fields(rng, mem)
    f["typ"] = rng.choice([f["typ"]] * 6 + [T_DONE, T_ERR, 7])
    if f["typ"] == T_GETREQ and rng.random() < 0.3:
        f["words"] = rng.choice([8, 12])
    f["src"], f["w0"], f["w11"] = rng.randrange(64), rng.getrandbits(32), rng.choice([0, 16, 100, 256, 999])
    f["w"] = f["w0"] | words_of(f) << 32 | f["w11"] << 352
    e = expect(f, mem)
    f.update(e)
    f["div"] = bool(e["strided"] and not e["bad_plain"] and not e["bad_stride"])
    bad, span_bad = e["bad_plain"] or (e["strided"] and e["bad_stride"]), False
    if f["div"]:
        q, rem = divmod(f["len"], f["blk"])
        bad = rem != 0 or q == 0 or q > M32
        span_bad = not bad and (q - 1) * (f["stride"] & M32) + f["blk"] > mem - f["addr"]
    # a GETRESP's last block is not checked against the memory's end: the initiator checked
    # its own range when it asked
    f["bad_range"], f["bad"] = bool(bad), bool(bad or span_bad)
    f["g_fail"] = bool(e["g_bad"] if e["g_strided"] else e["bad_plain"])
    return f


class Model:
    """The control side a cycle at a time: state, `done`, the next cycle's pushes, the table."""

    def __init__(self):
        self.state, self.div_n, self.p = IDLE, 0, None
        self.table: dict[int, dict] = {}
        self.act = [0] * 64

    def cycle(self, i: dict) -> tuple[int, dict]:
        """One clock with inputs i: (done this cycle, the pushes that show next cycle)."""
        out: dict[str, tuple] = {}
        done, p, nxt = 0, self.p, self.state
        if i["fin"]:
            if i["fin_put"]:
                out["ev"] = (cat((T_PUT, 4), (i["fin_src"], 6), (i["fin_base"], 64), (i["fin_len"], 64)),)
                out["rp"] = (cat((i["fin_src"], 6), (T_DONE, 4), (i["fin_op"], 32), (0, 8)),)
            else:
                out["comp"] = (i["fin_op"], 0)
        if self.state == IDLE and i["start"]:
            nxt = EXEC
        elif self.state == EXEC and not i["fin"]:
            t = p["typ"]
            if t in (T_PUT, T_GETRESP):
                nxt, self.div_n = (DIV if p["div"] else CHK), 0
            elif t == T_GETREQ:
                if p["g_fail"] and not i["rp_full"]:
                    out["rp"] = (cat((p["src"], 6), (T_ERR, 4), (p["w0"], 32), (E_REMOTE_RANGE, 8)),)
                elif not p["g_fail"] and not i["rq_full"]:
                    pkt = norm_pkt(p["w11"]) if p["words"] == 12 else \
                        norm_pkt(p["stride"] & M32) if p["words"] == 8 else 16
                    out["rq"] = (cat((p["src"], 6), (p["w0"], 32), (p["addr"], 64), (p["len"], 64), (p["blk"], 64),
                                     (p["stride"] & M32 if p["g_strided"] else 0, 32), (p["w9"], 32),
                                     (p["w10"], 32), (pkt, 9)),)
                done = int(not (i["rp_full"] if p["g_fail"] else i["rq_full"]))
                nxt = IDLE if done else EXEC
            else:
                if t in (T_DONE, T_ERR):
                    out["comp"] = (p["w0"], 0 if t == T_DONE else (p["w"] >> 32) & 0xFF)
                done, nxt = 1, IDLE
        elif self.state == DIV:
            if self.div_n == 64:
                nxt = CHK
            self.div_n += 1
        elif self.state == CHK and not i["hold"] and not (p["typ"] == T_PUT and p["bad"] and i["rp_full"]):
            done, nxt = 1, IDLE
            if p["typ"] == T_PUT and p["bad"]:
                out["rp"] = (cat((p["src"], 6), (T_ERR, 4), (p["w0"], 32), (E_REMOTE_RANGE, 8)),)
        # the table: an end, a packet's position, then a start (which wins on one entry)
        if i["clr"]:
            self.act[i["clr_src"]] = 0
        if i["upd"] and i["upd_src"] in self.table:
            self.table[i["upd_src"]].update(cur=i["upd_cur"], rem=i["upd_rem"], bstart=i["upd_bstart"],
                                            brem=i["upd_brem"])
        if self.state == CHK and done:
            self.act[p["src"]] = 1
            disc = p["bad"] if p["typ"] == T_PUT else p["bad_range"] or not i["q_live"]
            self.table[p["src"]] = {
                "put": int(p["typ"] == T_PUT), "disc": int(disc), "op": p["w0"], "base": p["addr"],
                "len": p["len"], "cur": p["addr"], "rem": p["len"], "bstart": p["addr"],
                "blk": p["blk"] & M32 if p["strided"] else 0, "brem": p["blk"] & M32, "stride": p["stride"] & M32}
        self.state = nxt
        return done, out

    def entry(self, src: int) -> int | None:
        if src not in self.table:
            return None
        e = dict(self.table[src], act=self.act[src])
        return cat(*((e[k], n) for k, n in ENTRY))


@cocotb.test()
async def rx_ctrl_random(dut):
    """Random control packets with random full queues, set-up holds, stream ends and table
    traffic; state, done, every push and the table's entries checked every cycle."""
    mem = int(os.environ["MEM_BYTES"])
    rng = random.Random(mem % 997)
    await reset(dut, INPUTS)
    m = Model()
    out: dict = {}
    seen = {k: 0 for k in ("put_ok", "put_bad", "getresp", "div", "getreq_ok", "getreq_err", "comp",
                           "fin_put", "fin_get", "stalls")}
    n_packets, p, gap = 0, None, 0
    for cycle in range(200000):
        await FallingEdge(dut.clk)
        i = {k: 0 for k in INPUTS}
        if m.state == IDLE and p is None and gap == 0 and n_packets < 1200:
            p = m.p = packet(rng, mem)
            i["start"] = 1
            n_packets += 1
        elif m.state == IDLE and p is None:
            gap = max(gap - 1, 0)
        q = m.p or {"src": 0, "typ": 0, "words": 0, "w": 0}
        i.update(pk_src=q["src"], pk_type=q["typ"], pk_words=q["words"], w=q["w"])
        i["hold"] = int(rng.random() < 0.3)
        i["rp_full"], i["rq_full"] = int(rng.random() < 0.3), int(rng.random() < 0.3)
        i["q_live"] = int(rng.random() < 0.8)
        # a stream's end never meets a set-up that could complete: the receiver still holds its data
        if rng.random() < 0.08 and not (m.state == CHK and not i["hold"]):
            i.update(fin=1, fin_put=int(not i["rp_full"] and rng.random() < 0.5), fin_src=rng.randrange(64),
                     fin_op=rng.getrandbits(32), fin_base=rng.getrandbits(64), fin_len=rng.getrandbits(64))
            seen["fin_put" if i["fin_put"] else "fin_get"] += 1
        if rng.random() < 0.1:
            i.update(upd=1, upd_src=rng.randrange(64), upd_cur=rng.getrandbits(64), upd_rem=rng.getrandbits(64),
                     upd_bstart=rng.getrandbits(64), upd_brem=rng.getrandbits(32))
        if rng.random() < 0.05:
            i.update(clr=1, clr_src=rng.randrange(64))
        i["rd_src"] = q["src"] if rng.random() < 0.5 else rng.randrange(64)
        for k, v in i.items():
            getattr(dut, k).value = v
        await ReadOnly()
        assert int(dut.state.value) == m.state, f"cycle {cycle}: state {int(dut.state.value)} != {m.state}"
        for name, valid, data in (("rp", "rp_push", ("rp_data",)), ("rq", "rq_push", ("rq_data",)),
                                  ("ev", "ev_push", ("ev_data",)), ("comp", "comp_valid", ("comp_op", "comp_code"))):
            got = int(getattr(dut, valid).value)
            assert got == (name in out), f"cycle {cycle}: {valid} {got}, expected {out.get(name)}"
            if got:
                g = tuple(int(getattr(dut, d).value) for d in data)
                assert g == out[name], f"cycle {cycle}: {name} {g} != {out[name]} (packet {p})"
        assert int(dut.q_op.value) == q["w"] & M32
        e = m.entry(i["rd_src"])
        if e is not None:
            assert int(dut.rd_stream.value) == e, \
                f"cycle {cycle}: entry {i['rd_src']}: {fields_of(int(dut.rd_stream.value))} != {fields_of(e)}"
        else:   # never started: only its active flag is defined (cleared by the reset)
            assert int(dut.rd_stream.value) >> 450 == 0
        state = m.state
        done, out = m.cycle(i)
        assert int(dut.done.value) == done, f"cycle {cycle}: done {int(dut.done.value)} != {done} in {state}"
        seen["stalls"] += state in (EXEC, CHK) and not done
        if done:
            t = p["typ"]
            key = {T_PUT: "put_bad" if p["bad"] else "put_ok", T_GETRESP: "getresp",
                   T_GETREQ: "getreq_err" if p["g_fail"] else "getreq_ok"}.get(t, "comp")
            seen[key] += 1
            seen["div"] += p["div"]
            p, m.p, gap = None, None, rng.choice([0, 0, 1, 5])
        if n_packets >= 1200 and p is None:
            break
    else:
        raise AssertionError(f"stuck after {n_packets} packets in state {m.state}")
    assert min(seen.values()) >= 10, f"too few cases of a kind: {seen}"
