"""cocotb test of the AFU's read arbiter (rdma_rd_arb) against a model: master 0 first, every
burst's beats back to the master that issued it in issue order, at most READS reads in flight."""
from __future__ import annotations

import os
import random
from collections import deque

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset

INPUTS = ("m0_address", "m0_read", "m0_burstcount", "m1_address", "m1_read", "m1_burstcount",
          "s_waitrequest", "s_readdata", "s_readdatavalid")
# (master 0's and master 1's request rates, the slave's waitrequest rate, its beat rate)
PHASES = ((0.1, 0.9, 0.2, 0.9), (1.0, 1.0, 0.0, 1.0), (0.5, 0.5, 0.5, 0.2), (0.05, 1.0, 0.0, 0.05),
          (0.3, 0.3, 0.3, 0.6), (0.0, 0.0, 0.0, 1.0))


def beat_data(address: int, beat: int) -> int:
    return ((address << 8 | beat) * 0x9E3779B97F4A7C15_1F83D9AB5BE0CD19) % (1 << 512)


@cocotb.test()
async def rd_arb_random(dut):
    """Bursts of 1 to 8 beats from both masters at random rates, random waitrequest and beat
    gaps; each cycle's grant, the slave's command and the beats' routing checked."""
    reads = int(os.environ["READS"])
    rng = random.Random(reads)
    await reset(dut, INPUTS)
    req: list = [None, None]              # the request each master holds, (address, burst)
    issued: list = [[], []]
    got: list = [[], []]
    flight: deque = deque()               # accepted at the slave: (master, address, burst)
    beat = deepest = 0
    granted = [0, 0]
    for p0, p1, p_wait, p_beat in PHASES:
        for cycle in range(600 if p0 or p1 else 8 * reads + 2):
            await FallingEdge(dut.clk)
            for k, p in enumerate((p0, p1)):
                if req[k] is None and rng.random() < p:
                    req[k] = (rng.getrandbits(58) << 6, rng.randint(1, 8))
                a, n = req[k] or (rng.getrandbits(64), rng.getrandbits(8))
                for port, v in (("read", req[k] is not None), ("address", a), ("burstcount", n)):
                    getattr(dut, f"m{k}_{port}").value = int(v)
            wait = rng.random() < p_wait
            ret = bool(flight) and rng.random() < p_beat
            dut.s_waitrequest.value = int(wait)
            dut.s_readdatavalid.value = int(ret)
            dut.s_readdata.value = beat_data(flight[0][1], beat) if ret else rng.getrandbits(512)
            await ReadOnly()
            sel = 0 if req[0] else 1
            want = (req[0] or req[1]) is not None and len(flight) < reads
            assert int(dut.s_read.value) == want, f"cycle {cycle}: s_read with {len(flight)} in flight"
            if want:
                assert (int(dut.s_address.value), int(dut.s_burstcount.value)) == req[sel], "command of the other master"
            take = want and not wait
            for k in (0, 1):
                assert (req[k] is not None and not int(getattr(dut, f"m{k}_waitrequest").value)) == \
                    (take and k == sel), f"cycle {cycle}: master {k}'s waitrequest"
                owner = ret and flight[0][0] == k
                assert int(getattr(dut, f"m{k}_readdatavalid").value) == owner, f"cycle {cycle}: beat routed wrongly"
                if owner:
                    got[k].append(int(dut.readdata.value))
            if ret:
                beat += 1
                if beat == flight[0][2]:
                    flight.popleft()
                    beat = 0
            if take:
                flight.append((sel, *req[sel]))
                issued[sel].append(req[sel])
                granted[sel] += 1
                req[sel] = None
            deepest = max(deepest, len(flight))
    assert not flight and req == [None, None]
    for k in (0, 1):
        want_beats = [beat_data(a, b) for a, n in issued[k] for b in range(n)]
        assert got[k] == want_beats, f"master {k}: {len(got[k])} beats, {len(want_beats)} issued"
    assert deepest == reads and min(granted) > 50, (deepest, granted)
