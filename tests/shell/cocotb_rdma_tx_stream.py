"""cocotb test of the RDMA senders' stream (the choice of a put or a get's answer, the bytes
left, the get's event, the read-ahead address walk) against a model and the stream's words."""
from __future__ import annotations

import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset

T_GETREQ = 4
M64 = (1 << 64) - 1
CHOICE = ("idle", "rp_empty", "rp_pop", "c_valid", "c_take", "c_get", "rq_empty", "rq_pop")
FIELDS = ("c_dst", "c_local", "c_len", "c_block", "c_lstride", "q_src", "q_remote", "q_len", "q_block", "q_rstride")
INPUTS = (*CHOICE, *FIELDS, "sent", "sent_bytes", "rd_acc", "rd_n")
OUTPUTS = ("active", "dst", "left", "notify", "ev_data", "rd_cur", "rd_left", "rd_blk", "rd_brem")


def stream(rng: random.Random) -> tuple[int, int, int, int]:
    """(address, bytes, block, stride) of a word-aligned stream: contiguous, or whole blocks
    (the receivers' checks refuse others), blocks at any alignment to the 64-byte lines."""
    addr = 4 * rng.randrange(1 << 20) + rng.choice([0, 1 << 40])
    if rng.random() < 0.5:
        return addr, 4 * rng.choice([1, 15, 16, 17, rng.randrange(1, 300)]), 0, 0
    blk = 4 * rng.choice([1, 3, 16, 17, rng.randrange(1, 70)])
    return addr, blk * rng.choice([1, 2, rng.randrange(1, 12)]), blk, blk + 4 * rng.choice([0, 1, rng.randrange(40)])


def words(addr: int, ln: int, blk: int, stride: int) -> list[int]:
    if not blk:
        return [addr + 4 * k for k in range(ln // 4)]
    return [addr + b * stride + 4 * k for b in range(ln // blk) for k in range(blk // 4)]


@cocotb.test()
async def tx_stream_random(dut):
    """Random sender states and queues start puts and answers; reads of random size (a word,
    or to the line's or block's end as the wide sender makes them) and packets of random size
    drain each stream; every output each cycle, every stream's read addresses in full."""
    rng = random.Random(11)
    await reset(dut, INPUTS)
    m = dict(dict.fromkeys(OUTPUTS, 0), ev_data=T_GETREQ << 134)
    bstart = stride = 0
    reads: list[int] = []
    want: list[int] = []
    starts = {"put": 0, "resp": 0}
    wide = False
    for cycle in range(40000):
        await FallingEdge(dut.clk)
        i = {k: int(rng.random() < 0.5) for k in CHOICE}
        i["idle"] = int(rng.random() < 0.7)
        put_s, resp_s = stream(rng), stream(rng)
        i.update(c_dst=rng.randrange(64), c_local=put_s[0], c_len=put_s[1], c_block=put_s[2], c_lstride=put_s[3],
                 q_src=rng.randrange(64), q_remote=resp_s[0], q_len=resp_s[1], q_block=resp_s[2],
                 q_rstride=resp_s[3])
        # a packet takes at most what is left, and only what has been read
        ready = m["left"] - m["rd_left"]
        i["sent"] = int(m["active"] and ready > 0 and rng.random() < 0.3)
        i["sent_bytes"] = 4 * rng.randrange(1, min(ready, 64 * 4) // 4 + 1) if i["sent"] else 0
        if i["sent"] and m["rd_left"] == 0 and rng.random() < 0.5:
            i["sent_bytes"] = ready
        room = 16 - (m["rd_cur"] >> 2) % 16
        lim = m["rd_brem"] if m["rd_blk"] else m["rd_left"]
        i["rd_n"] = min(room, lim // 4) if wide else 1
        i["rd_acc"] = int(m["rd_left"] != 0 and rng.random() < 0.6)
        for k, v in i.items():
            getattr(dut, k).value = v
        await ReadOnly()
        for k in OUTPUTS:
            assert int(getattr(dut, k).value) == m[k], f"cycle {cycle}: {k} {int(getattr(dut, k).value):#x} != {m[k]:#x}"
        # the model's clock: reads, then a start, then a packet's departure
        if i["rd_acc"]:
            n = i["rd_n"]
            reads += [m["rd_cur"] + 4 * k for k in range(n)]
            m["rd_left"] = (m["rd_left"] - 4 * n) & M64
            if m["rd_blk"] and 4 * n == m["rd_brem"]:
                bstart = (bstart + stride) & M64
                m["rd_cur"], m["rd_brem"] = bstart, m["rd_blk"]
            else:
                m["rd_cur"], m["rd_brem"] = (m["rd_cur"] + 4 * n) & M64, (m["rd_brem"] - 4 * n) % (1 << 32)
        choose = i["idle"] and (i["rp_empty"] or i["rp_pop"]) and not m["active"]
        put = choose and i["c_valid"] and not i["c_take"] and not i["c_get"]
        resp = choose and not (i["c_valid"] and not i["c_take"]) and not i["rq_empty"] and not i["rq_pop"]
        if put or resp:
            assert reads == want, "the last stream's reads differ from its words"
            s = put_s if put else resp_s
            m.update(active=1, dst=i["c_dst"] if put else i["q_src"], left=s[1], notify=int(resp), rd_left=s[1],
                     rd_cur=s[0], rd_blk=s[2], rd_brem=s[2])
            if resp:
                m["ev_data"] = T_GETREQ << 134 | i["q_src"] << 128 | i["q_remote"] << 64 | i["q_len"]
            bstart, stride = s[0], s[3]
            reads, want = [], words(*s)
            wide = rng.random() < 0.5
            starts["put" if put else "resp"] += 1
        if i["sent"]:
            if m["left"] == i["sent_bytes"]:
                m["active"] = 0
            m["left"] -= i["sent_bytes"]
    assert min(starts.values()) >= 100, starts
