"""cocotb tests of the link layer's sender (rdma_link_tx) and receiver (rdma_link_rx) against a
model of docs/rdma_protocol.md's link layer: framing on LANES-word beats, CRC-32, go-back-N
with NAKs and timeouts, credits per VC, CTRL packets."""
from __future__ import annotations

import os
import random
import zlib
from collections import deque

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import pack, reset, words_of

M32 = (1 << 32) - 1
T_CTRL, T_DATA = 0, 3


def header(vc: int, n: int, seq: int, typ: int = T_DATA, dst: int = 5, src: int = 9) -> int:
    return seq << 22 | n << 17 | vc << 16 | typ << 12 | src << 6 | dst


def crc(words: list[int]) -> int:
    return zlib.crc32(b"".join(w.to_bytes(4, "little") for w in words))


def beats(words: list[int], lanes: int) -> list[int]:
    """A packet's words on the wire: LANES words a beat, unused lanes zero."""
    return [pack(words[k:k + lanes]) for k in range(0, len(words), lanes)]


def env_ints(*names: str) -> dict:
    return {k: int(os.environ[k]) for k in names}


def packets(rng: random.Random, n: int) -> list[tuple[int, list[int]]]:
    """(vc, payload) of n data packets, 0 to 16 words."""
    return [(rng.randrange(2), [rng.getrandbits(32) for _ in range(rng.choice([0, 1, 5, 16, rng.randrange(17)]))])
            for _ in range(n)]


class Peer:
    """The far end of the sender's link: takes the next sequence number only, loses or corrupts
    packets now and then (one NAK for them, sometimes lost too), acknowledges every ~25 cycles
    and frees its VC buffers' slots at random."""

    def __init__(self, rng: random.Random, vc_buf: int):
        self.rng, self.vc_buf = rng, vc_buf
        self.expected = 0
        self.got: list = []
        self.held = [deque(), deque()]
        self.freed = [0, 0]
        self.nak_due = self.nak_sent = False
        self.naks = 0

    def packet(self, words: list[int]) -> None:
        h, body = words[0], words[1:-1]
        assert words[-1] == crc(words[:-1]), f"packet {h:#x}: CRC {words[-1]:#x}"
        n, vc, seq = h >> 17 & 31, h >> 16 & 1, h >> 22
        assert len(body) == n, f"packet {h:#x}: {len(body)} payload words"
        if h >> 12 & 15 == T_CTRL:
            return
        if seq == self.expected and self.rng.random() > 0.08:
            assert len(self.held[vc]) < self.vc_buf, f"VC {vc} buffer overflows: credits ignored"
            self.held[vc].append(seq)
            self.got.append((vc, body))
            self.expected = (self.expected + 1) % 1024
            self.nak_sent = False
        elif (seq - self.expected) % 1024 < 512 and not self.nak_sent:   # lost, corrupted or a gap
            self.nak_sent = True
            self.nak_due = self.rng.random() > 0.2     # the NAK itself lost: the sender times out

    def ack(self, cycle: int) -> tuple | None:
        for vc in (0, 1):
            if self.held[vc] and self.rng.random() < 0.1:
                self.held[vc].popleft()
                self.freed[vc] += 1
        if self.nak_due or cycle % 25 == 0:
            nak, self.nak_due = self.nak_due, False
            self.naks += nak
            return (1, self.expected, nak, self.freed[0] & 0xFFFF, self.freed[1] & 0xFFFF)
        return None


@cocotb.test()
async def link_tx_random(dut):
    """Random packets from the router at random rates under random back-pressure, a peer that
    drops packets and NAKs; every packet reaches the peer once, in order, framed and with its
    CRC; CTRL packets carry the local receiver's state; no VC buffer overflows."""
    p = env_ints("LANES", "WINDOW", "VC_BUF", "TIMEOUT")
    lanes = p["LANES"]
    rng = random.Random(sum(p.values()))
    await reset(dut, ["in_valid", "in_data", "in_last", "rx_expected", "rx_nak", "rx_dirty", "rx_freed0", "rx_freed1",
                      "ack_valid", "ack_seq", "ack_nak", "peer_freed0", "peer_freed1", "out_ready", "blocked"])
    todo = packets(rng, 400)
    sent: list = []
    feed: deque = deque()
    peer = Peer(rng, p["VC_BUF"])
    wire: list[int] = []
    rx = prev_rx = (0, 0, 0, 0)            # the local receiver's (expected, nak, freed0, freed1)
    ctrl_q: deque = deque()               # what each CTRL packet begun must carry
    ctrls = 0
    for cycle in range(60000):
        await FallingEdge(dut.clk)
        if not feed and todo:
            vc, body = todo.pop(0)
            hdr = header(vc, len(body), rng.getrandbits(10))   # the sender fills SEQ in
            feed.extend((b, k == len(beats([hdr, *body], lanes)) - 1, vc, body)
                        for k, b in enumerate(beats([hdr, *body], lanes)))
        offer = bool(feed) and rng.random() < 0.8
        dut.in_valid.value = int(offer)
        if feed:
            dut.in_data.value, dut.in_last.value = feed[0][0], int(feed[0][1])
        if cycle % 300 == 0:
            rx = (rng.getrandbits(10), int(rng.random() < 0.5), rng.getrandbits(16), rng.getrandbits(16))
        for port, v in zip(("rx_expected", "rx_nak", "rx_freed0", "rx_freed1"), rx):
            getattr(dut, port).value = v
        driven = rx
        dut.rx_dirty.value = 1
        ack = peer.ack(cycle)
        for port, v in zip(("ack_valid", "ack_seq", "ack_nak", "peer_freed0", "peer_freed1"), ack or (0,) * 5):
            getattr(dut, port).value = v
        dut.out_ready.value = int(rng.random() < 0.8)
        await ReadOnly()
        if offer and int(dut.in_ready.value):
            _, last, vc, body = feed.popleft()
            if last:
                sent.append((vc, body))
        if int(dut.ctrl_sent.value):     # a CTRL packet began last cycle, from last cycle's state
            ctrl_q.append([prev_rx[0] | prev_rx[1] << 16, prev_rx[2] | prev_rx[3] << 16])
            rx = (rx[0], 0, *rx[2:])         # the receiver's NAK request is served
        prev_rx = driven
        if int(dut.out_valid.value) and int(dut.out_ready.value):
            wire += words_of(int(dut.out_data.value), 0, lanes)
            if int(dut.out_last.value):
                n = (wire[0] >> 17 & 31) + 2
                assert not any(wire[n:]), f"cycle {cycle}: unused lanes not zero"
                if wire[0] >> 12 & 15 == T_CTRL:
                    assert wire[1:3] == ctrl_q.popleft(), f"cycle {cycle}: CTRL payload"
                    ctrls += 1
                peer.packet(wire[:n])
                wire = []
        if not todo and not feed and len(peer.got) == len(sent):
            break
    assert peer.got == sent, f"{len(peer.got)} packets delivered of {len(sent)}"
    assert len(sent) == 400 and peer.naks > 5 and int(dut.replays.value) > 5, (peer.naks, int(dut.replays.value))
    assert ctrls > 20 and len(ctrl_q) <= 1, (ctrls, len(ctrl_q))
