"""cocotb test of afu_shell: the DMA copy through its loop-back or a pass-through core, and the
link ports (IN_LINK, OUT_LINK) that switch the cascade's input and output away from the engines."""
from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from cocotb_shell_dma import check_copy, rand_addr, snapshot, started, transfer
from shell_card_model import A_BASE, B_BASE, EOP, SOP

LINK_INPUTS = ("in_link", "out_link", "ext_in_valid", "ext_in_data", "ext_in_last", "ext_out_ready",
               "brch_in_valid", "brch_in_data", "brch_in_last", "brch_out_ready")


async def links(dut, rng: random.Random, state: dict, got: list) -> None:
    """The far side of the links: takes ext_out at random, and checks every cycle that a port
    not switched to its link stays idle (all of them without cores) and the branch ports too."""
    while True:
        await FallingEdge(dut.clk)
        dut.ext_out_ready.value = int(rng.random() < 0.6)
        await ReadOnly()
        quiet = state["cores"] == 0
        if quiet or not state["in_link"]:
            assert not int(dut.ext_in_ready.value), "ext_in taken without IN_LINK"
        if quiet or not state["out_link"]:
            assert not int(dut.ext_out_valid.value), "ext_out offered without OUT_LINK"
        assert not int(dut.brch_in_ready.value) and not int(dut.brch_out_valid.value), "branch port moved"
        if int(dut.ext_out_valid.value) and int(dut.ext_out_ready.value):
            got.append((int(dut.ext_out_data.value), int(dut.ext_out_last.value)))


async def feed(dut, rng: random.Random, recs: list[tuple[int, int]]) -> None:
    """Offers the records on ext_in at random, each held until taken."""
    i = 0
    while i < len(recs):
        await FallingEdge(dut.clk)
        v = rng.random() < 0.6
        dut.ext_in_valid.value = int(v)
        dut.ext_in_data.value, dut.ext_in_last.value = recs[i]
        await ReadOnly()
        i += v and int(dut.ext_in_ready.value)
    await FallingEdge(dut.clk)
    dut.ext_in_valid.value = 0


async def set_links(dut, **values: int) -> None:
    await FallingEdge(dut.clk)
    for k, v in values.items():
        getattr(dut, k).value = v


@cocotb.test()
async def afu_shell_links(dut):
    """A copy A -> B through the engines (link inputs driven and ignored without cores); with a
    core, the TX DMA's records out of OUT_LINK in order with last at the end and nothing to RX,
    then records from IN_LINK written by the RX DMA while the TX side is held off."""
    cores, words = int(os.environ["N_CORES"]), int(os.environ["RECORD_WORDS"])
    rng = random.Random(cores * 7 + words)
    for k in LINK_INPUTS:
        getattr(dut, k).value = 0
    card = await started(dut, seed=cores + 5)
    state = {"cores": cores, "in_link": 0, "out_link": 0}
    got: list[tuple[int, int]] = []
    cocotb.start_soon(links(dut, rng, state, got))
    rb = 4 * words
    if cores == 0:
        # everything offered on the links, which the loop-back never takes
        await set_links(dut, in_link=1, out_link=1, ext_in_valid=1, brch_in_valid=1, brch_out_ready=1)
    for n in (1, 37, 300):
        src, dst = rand_addr(rng, A_BASE, n * rb), rand_addr(rng, B_BASE, n * rb)
        before = snapshot(card)
        await transfer(card, src, dst, n * rb)
        check_copy(card, before, [(src, n * rb)], [(dst, n * rb)])
    assert await card.error("tx") == 0 and await card.error("rx") == 0
    if cores:
        n, writes = 200, len(card.writes)
        src = rand_addr(rng, A_BASE, n * rb)
        state["out_link"] = 1
        await set_links(dut, out_link=1, ext_in_valid=1)
        await card.desc("tx", src=src, length=n * rb, ctrl=SOP | EOP)
        await card.wait_done("tx", 4)
        while len(got) < n:
            await card.cycles(10)
        await card.cycles(50)
        want = [(int.from_bytes(card.read(src + rb * k, rb), "little"), int(k == n - 1)) for k in range(n)]
        assert got == want, f"{len(got)} records out of OUT_LINK, first wrong {next(i for i in range(n) if got[i] != want[i])}"
        assert len(card.writes) == writes, "the RX DMA wrote while the output went to the link"
        state["out_link"] = 0
        await set_links(dut, out_link=0, ext_in_valid=0)
        state["in_link"] = 1
        await set_links(dut, in_link=1)
        recs = [(rng.getrandbits(32 * words), int(k == n - 1)) for k in range(n)]
        dst = rand_addr(rng, B_BASE, n * rb)
        await card.desc("rx", dst=dst, length=n * rb, ctrl=EOP)
        await feed(dut, rng, recs)
        await card.wait_done("rx", 4)
        assert card.read(dst, n * rb) == b"".join(r.to_bytes(rb, "little") for r, _ in recs)
        assert await card.error("tx") == 0 and await card.error("rx") == 0
    assert card.violations == []
