"""cocotb test of the stream endpoints' CSR block (rdma_stream_csr) against shell/csr_map.json's
STREAM registers: CFG's fields, STATUS, the counters a CFG write clears, reads a cycle later."""
from __future__ import annotations

import json
import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from spgen.shellgen import SHELL_DIR
from words_tb import reset

INPUTS = ("mmio_wr_valid", "mmio_wr_addr", "mmio_wr_data", "mmio_rd_valid", "mmio_rd_addr", "tx_valid",
          "tx_ready", "tx_words", "rx_valid", "rx_ready", "rx_words", "errors")
M64 = (1 << 64) - 1
# CFG's fields as the block's outputs
OUTPUTS = {"TX_DST": "tx_dst", "TX_SID": "tx_sid", "RX_PEER": "rx_peer", "RX_SID": "rx_sid",
           "IN_LINK": "in_link", "OUT_LINK": "out_link", "IN_BRCH": "in_brch", "OUT_BRCH": "out_brch"}


def stream_block() -> tuple[int, dict]:
    block = next(b for b in json.loads((SHELL_DIR / "csr_map.json").read_text())["blocks"] if b["name"] == "STREAM")
    return int(block["instances"][0]["base"], 16), {r["name"]: r for r in block["registers"]}


@cocotb.test()
async def stream_csr_random(dut):
    """Random CFG writes (junk outside the fields), writes elsewhere, reads of every register
    and of others, endpoint traffic and errors; the response each cycle."""
    words = {k: int(os.environ[k]) for k in ("RECORD_WORDS", "BRCH_IN_WORDS", "BRCH_OUT_WORDS")}
    base, regs = stream_block()
    addr = {n: base + int(r["offset"], 16) for n, r in regs.items()}
    fields = {f["name"]: (f["lsb"], f["width"]) for f in regs["CFG"]["fields"]}
    cfg_mask = sum(((1 << w) - 1) << lsb for lsb, w in fields.values())
    status_fields = {f["name"]: f["lsb"] for f in regs["STATUS"]["fields"]}
    rng = random.Random(sum(words.values()))
    await reset(dut, INPUTS)
    cfg = tx = rx = stalls = 0
    resp = None
    reads = 0
    for cycle in range(8000):
        await FallingEdge(dut.clk)
        i = {k: 0 for k in INPUTS}
        if rng.random() < 0.05:
            i.update(mmio_wr_valid=1, mmio_wr_data=rng.getrandbits(64),
                     mmio_wr_addr=addr["CFG"] if rng.random() < 0.7 else rng.choice(list(addr.values())) + 8 * 64)
        if rng.random() < 0.5:
            i.update(mmio_rd_valid=1, mmio_rd_addr=rng.choice([*addr.values(), base + 0x28, 0x10]))
        i.update(tx_valid=rng.randrange(2), tx_ready=rng.randrange(2), tx_words=rng.randrange(64),
                 rx_valid=rng.randrange(2), rx_ready=rng.randrange(2), rx_words=rng.randrange(64),
                 errors=rng.randrange(4))
        for k, v in i.items():
            getattr(dut, k).value = v
        await ReadOnly()
        assert int(dut.mmio_rd_resp_valid.value) == (resp is not None), f"cycle {cycle}: response valid"
        if resp is not None:
            assert int(dut.mmio_rd_resp_data.value) == resp, f"cycle {cycle}: read {int(dut.mmio_rd_resp_data.value):#x} != {resp:#x}"
            reads += 1
        for name, port in OUTPUTS.items():
            lsb, w = fields[name]
            assert int(getattr(dut, port).value) == cfg >> lsb & ((1 << w) - 1), f"cycle {cycle}: {port}"
        # this cycle's read answers next cycle with the registers as they are now
        status = i["errors"] | sum(words[k] << status_fields[k] for k in words)
        values = {addr["CFG"]: cfg, addr["STATUS"]: status, addr["TX_WORDS"]: tx, addr["RX_WORDS"]: rx,
                  addr["TX_STALLS"]: stalls}
        resp = values.get(i["mmio_rd_addr"], 0) if i["mmio_rd_valid"] else None
        if i["mmio_wr_valid"] and i["mmio_wr_addr"] == addr["CFG"]:
            cfg, tx, rx, stalls = i["mmio_wr_data"] & cfg_mask, 0, 0, 0
        else:
            tx = (tx + i["tx_words"] * (i["tx_valid"] and i["tx_ready"])) & M64
            rx = (rx + i["rx_words"] * (i["rx_valid"] and i["rx_ready"])) & M64
            stalls = (stalls + (i["tx_valid"] and not i["tx_ready"])) & M64
    assert reads > 3000 and cfg
