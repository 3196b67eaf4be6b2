"""cocotb test of the AFU's write arbiter (rdma_wr_arb) against a model: master 0 first between
bursts, a burst keeps the slave from its first beat to its last, every beat lands once."""
from __future__ import annotations

import random

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset

PORTS = ("address", "write", "burstcount", "writedata", "byteenable")
INPUTS = tuple(f"m{k}_{p}" for k in (0, 1) for p in PORTS) + ("s_waitrequest",)
# (master 0's and master 1's burst rates, the slave's waitrequest rate)
PHASES = ((0.1, 0.9, 0.2), (1.0, 1.0, 0.0), (0.5, 0.5, 0.5), (0.05, 1.0, 0.0), (0.3, 0.3, 0.3), (0.0, 0.0, 0.0))


def beat_data(k: int, burst: int, beat: int) -> int:
    return (k << 511 | burst << 16 | beat) * 0xD1B54A32D192ED03 % (1 << 512) | k << 511


@cocotb.test()
async def wr_arb_random(dut):
    """Bursts of 1 to 16 beats from both masters (write held through each), random gaps and
    waitrequest; each cycle's grant, the slave's beat and the lock checked, then every burst
    found whole and in order at the slave."""
    rng = random.Random(5)
    await reset(dut, INPUTS)
    cur: list = [None, None]          # each master's burst: [id, address, beats, byteenable, next beat]
    sent: list = [[], []]
    landed: list = []                 # the slave's bursts: (master, id, beats seen, burstcount)
    lock = owner = left = 0
    ids = 0
    for p0, p1, p_wait in PHASES:
        for cycle in range(800):
            await FallingEdge(dut.clk)
            for k, p in enumerate((p0, p1)):
                if cur[k] is None and rng.random() < p:
                    ids += 1
                    cur[k] = [ids, rng.getrandbits(58) << 6, rng.randint(1, 16), rng.getrandbits(64), 0]
                b = cur[k]
                v = (1, b[1], b[2], beat_data(k, b[0], b[4]), b[3]) if b else \
                    (0, *(rng.getrandbits(w) for w in (64, 8, 512, 64)))
                for port, x in zip(("write", "address", "burstcount", "writedata", "byteenable"), v):
                    getattr(dut, f"m{k}_{port}").value = x
            wait = rng.random() < p_wait
            dut.s_waitrequest.value = int(wait)
            await ReadOnly()
            sel = owner if lock else (0 if cur[0] else 1)
            b = cur[sel]
            assert int(dut.s_write.value) == (b is not None), f"cycle {cycle}: s_write"
            if b:
                got = tuple(int(getattr(dut, f"s_{p}").value) for p in ("address", "burstcount", "writedata", "byteenable"))
                assert got == (b[1], b[2], beat_data(sel, b[0], b[4]), b[3]), f"cycle {cycle}: the other master's beat"
            beat = b is not None and not wait
            for k in (0, 1):
                assert (cur[k] is not None and not int(getattr(dut, f"m{k}_waitrequest").value)) == \
                    (beat and k == sel), f"cycle {cycle}: master {k}'s waitrequest (lock {lock})"
            if not beat:
                continue
            if lock:
                left -= 1
                lock = left > 0
                landed[-1][2].append(b[4])
            else:
                lock, owner, left = b[2] > 1, sel, b[2] - 1
                landed.append((sel, b[0], [b[4]], b[2]))
            b[4] += 1
            if b[4] == b[2]:
                sent[sel].append(b[0])
                cur[sel] = None
    for k in (0, 1):
        assert [i for m, i, _, _ in landed if m == k] == sent[k], f"master {k}: bursts lost, repeated or reordered"
    assert all(beats == list(range(n)) for _, _, beats, n in landed), "a burst split or cut short"
    assert cur == [None, None] and not lock
    assert min(len(s) for s in sent) > 100, [len(s) for s in sent]
