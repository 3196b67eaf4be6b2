"""cocotb test of the RDMA receivers' per-source stream table against a model."""
from __future__ import annotations

import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from cocotb_rdma_rx_ctrl import ENTRY, cat, fields_of
from words_tb import reset

SET = ("set_put", 1), ("set_disc", 1), ("set_op", 32), ("set_addr", 64), ("set_len", 64), ("set_blk", 32), \
    ("set_brem", 32), ("set_stride", 32)
UPD = ("upd_cur", 64), ("upd_rem", 64), ("upd_bstart", 64), ("upd_brem", 32)
INPUTS = ("set", "set_src", *(k for k, _ in SET), "upd", "upd_src", *(k for k, _ in UPD), "clr", "clr_src",
          "rd_src")


@cocotb.test()
async def rx_streams_random(dut):
    """Random starts, position write-backs and ends on few sources (so they meet on one entry
    in one cycle), a reset midway; a random entry read every cycle."""
    rng = random.Random(3)
    await reset(dut, INPUTS)
    table: dict[int, dict] = {}
    act = [0] * 64
    met = 0
    for cycle in range(20000):
        await FallingEdge(dut.clk)
        srcs = [rng.randrange(64) for _ in range(3)] if rng.random() < 0.2 else [rng.randrange(4)] * 3
        i = {"set": int(rng.random() < 0.3), "upd": int(rng.random() < 0.4), "clr": int(rng.random() < 0.2),
             "set_src": srcs[0], "upd_src": srcs[1], "clr_src": srcs[2], "rd_src": rng.choice([*srcs, rng.randrange(64)])}
        for k, n in (*SET, *UPD):
            i[k] = rng.getrandbits(n)
        rst = cycle == 10000
        dut.rst.value = int(rst)
        for k, v in i.items():
            getattr(dut, k).value = v
        await ReadOnly()
        got, s = int(dut.rd_stream.value), i["rd_src"]
        if s in table:
            want = cat(*((dict(table[s], act=act[s])[k], n) for k, n in ENTRY))
            assert got == want, f"cycle {cycle}: entry {s}: {fields_of(got)} != {fields_of(want)}"
        else:   # never started: only its active flag is defined
            assert got >> 450 == act[s]
        if rst:
            act = [0] * 64
            continue
        # an end, then a packet's position, then a start: the start wins on one entry
        met += i["set"] and i["upd"] and i["set_src"] == i["upd_src"]
        if i["clr"]:
            act[i["clr_src"]] = 0
        if i["upd"] and i["upd_src"] in table:
            table[i["upd_src"]].update(cur=i["upd_cur"], rem=i["upd_rem"], bstart=i["upd_bstart"],
                                       brem=i["upd_brem"])
        if i["set"]:
            act[i["set_src"]] = 1
            table[i["set_src"]] = {"put": i["set_put"], "disc": i["set_disc"], "op": i["set_op"],
                                   "base": i["set_addr"], "len": i["set_len"], "cur": i["set_addr"],
                                   "rem": i["set_len"], "bstart": i["set_addr"], "blk": i["set_blk"],
                                   "brem": i["set_brem"], "stride": i["set_stride"]}
    assert met > 100 and len(table) == 64
