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
        self.stall = None               # the cycle of a drop answered by a NAK that arrives
        self.recoveries: list[int] = []  # cycles from such a drop to the next packet taken

    def packet(self, words: list[int], cycle: int) -> None:
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
            if self.stall is not None:
                self.recoveries.append(cycle - self.stall)
                self.stall = None
        elif (seq - self.expected) % 1024 < 512 and not self.nak_sent:   # lost, corrupted or a gap
            self.nak_sent = True
            self.nak_due = self.rng.random() > 0.2     # the NAK itself lost: the sender times out
            self.stall = cycle if self.nak_due else None
        elif seq == self.expected:      # the replay lost again: no second NAK, a timeout
            self.stall = None

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
                peer.packet(wire[:n], cycle)
                wire = []
        if not todo and not feed and len(peer.got) == len(sent):
            break
    assert peer.got == sent, f"{len(peer.got)} packets delivered of {len(sent)}"
    assert len(sent) == 400 and peer.naks > 5 and int(dut.replays.value) > 5, (peer.naks, int(dut.replays.value))
    assert ctrls > 20 and len(ctrl_q) <= 1, (ctrls, len(ctrl_q))
    # a NAK rewinds the sender at once: no recovery waits for the timeout
    assert len(peer.recoveries) > 5 and max(peer.recoveries) < p["TIMEOUT"], peer.recoveries


class Receiver:
    """What rdma_link_rx must show after the packets so far: expected, nak, dirty, CRC errors,
    the packets held per VC, slots freed, the peer's last CTRL."""

    def __init__(self):
        self.expected = self.crc_errors = 0
        self.nak = self.nak_sent = self.dirty = 0
        self.held: list = [deque(), deque()]
        self.freed = [0, 0]
        self.ack = None

    def ctrl_sent(self) -> None:
        self.nak = self.dirty = 0

    def arrived(self, kind: str, vc: int, words: list[int]) -> None:
        self.ack = None
        if kind == "bad" or kind == "gap":
            self.crc_errors += kind == "bad"
            if not self.nak_sent:
                self.nak = self.nak_sent = 1
        elif kind == "ctrl":
            self.ack = (words[1] & 1023, words[1] >> 16 & 1, words[2] & 0xFFFF, words[2] >> 16)
        elif kind == "dup":
            self.dirty = 1
        else:
            self.held[vc].append(words[:-1])
            self.expected = (self.expected + 1) % 1024
            self.nak_sent = 0
            self.dirty = 1


def next_packet(rng: random.Random, r: Receiver, vc_buf: int, lanes: int, accepted: list) -> tuple:
    """The sender's next packet: new data when its VC has credit, or a CTRL packet, a duplicate,
    a gap or a corrupted one; (kind, vc, words, beats)."""
    x = rng.random()
    vc, body = packets(rng, 1)[0]
    seq, kind = r.expected, "new"
    if x < 0.1:
        kind, vc = "ctrl", 0
        body = [rng.getrandbits(10) | rng.randrange(2) << 16 | rng.getrandbits(5) << 22, rng.getrandbits(32)]
    elif x < 0.15 and accepted:
        kind, seq = "dup", (r.expected - rng.randint(1, min(len(accepted), 5))) % 1024
    elif x < 0.2:
        kind, seq = "gap", (r.expected + rng.randint(1, 3)) % 1024
    elif len(r.held[vc]) >= vc_buf:
        return None
    words = [header(vc, len(body), seq, T_CTRL if kind == "ctrl" else T_DATA), *body]
    words.append(crc(words))
    if kind != "dup" and rng.random() < 0.08:
        k = rng.randrange(len(words))
        words = words[:k] + [words[k] ^ 1 << rng.randrange(32)] + words[k + 1:]
        kind = "bad"
    return kind, vc, words, beats(words, lanes)


@cocotb.test()
async def link_rx_random(dut):
    """Packets on 1- or 4-lane beats with gaps between beats: new ones, duplicates, gaps in the
    sequence, CRC errors anywhere, the peer's CTRL packets; the router reading either VC under
    back-pressure. Every cycle: expected, nak, dirty, freed, crc_errors, ack_*, no overflow."""
    p = env_ints("LANES", "VC_BUF")
    lanes = p["LANES"]
    rng = random.Random(sum(p.values()) + 1)
    await reset(dut, ["in_valid", "in_data", "in_last", "out_sel_vc", "out_ready", "ctrl_sent"])
    r = Receiver()
    accepted: list = []
    cur = None
    reading: list = []
    delivered = kinds = 0
    seen: set = set()
    for cycle in range(12000):
        await FallingEdge(dut.clk)
        if cur is None:
            cur = next_packet(rng, r, p["VC_BUF"], lanes, accepted)
            pos = 0
        send = cur is not None and rng.random() < 0.8
        dut.in_valid.value = int(send)
        if send:
            dut.in_data.value, dut.in_last.value = cur[3][pos], int(pos == len(cur[3]) - 1)
        ctrl = (r.nak or r.dirty) and rng.random() < 0.3
        dut.ctrl_sent.value = int(ctrl)
        dut.out_sel_vc.value, dut.out_ready.value = rng.randrange(2), int(rng.random() < 0.7)
        await ReadOnly()
        got = {k: int(getattr(dut, k).value) for k in ("expected", "nak", "dirty", "crc_errors", "overflow", "freed0",
                                                      "freed1", "ack_valid")}
        want = {"expected": r.expected, "nak": r.nak, "dirty": r.dirty, "crc_errors": r.crc_errors, "overflow": 0,
                "freed0": r.freed[0], "freed1": r.freed[1], "ack_valid": int(r.ack is not None)}
        assert got == want, f"cycle {cycle}: {got} != {want}"
        if r.ack:
            assert tuple(int(getattr(dut, k).value) for k in ("ack_seq", "ack_nak", "peer_freed0", "peer_freed1")) == r.ack
        r.ack = None
        if ctrl:    # the clear comes first: what arrives or leaves this cycle sets the flags again
            r.ctrl_sent()
        assert int(dut.out_avail.value) == (bool(r.held[1]) << 1 | bool(r.held[0])), f"cycle {cycle}: avail"
        if int(dut.out_valid.value) and int(dut.out_ready.value):
            vc = int(dut.out_vc.value)
            reading += words_of(int(dut.out_data.value), 0, lanes)
            if int(dut.out_last.value):
                want_words = r.held[vc].popleft()
                assert reading[:len(want_words)] == want_words, f"cycle {cycle}: VC {vc} packet"
                r.freed[vc] += 1
                r.dirty = 1
                reading = []
                delivered += 1
        if send:
            pos += 1
            if pos == len(cur[3]):
                kind, vc, words, _ = cur
                r.arrived(kind, vc, words)
                if kind == "new":
                    accepted.append(words)
                seen.add(kind)
                kinds += 1
                cur = None
    assert delivered > 300 and seen == {"new", "dup", "gap", "bad", "ctrl"}, (delivered, seen)
