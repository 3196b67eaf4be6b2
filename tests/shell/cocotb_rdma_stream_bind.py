"""cocotb test of the stream endpoint binding (rdma_stream_bind) against a model: in each of the
four IN_BRCH / OUT_BRCH settings the bound side's records reach the endpoint (word by word with
LANES = 1, a record a beat otherwise) and the arriving words its records, the other side is
never taken from or offered anything, an unbound branch port holds its stream."""
from __future__ import annotations

import os
import random
from collections import deque
from itertools import product

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly
from words_tb import reset, words_of

INPUTS = ("in_brch", "out_brch", "x_out_valid", "x_out_data", "x_out_last", "x_in_ready", "b_out_valid",
          "b_out_data", "b_out_last", "b_in_ready", "st_s_ready", "st_m_valid", "st_m_data", "st_m_last")


def records(rng: random.Random, n: int, words: int) -> deque:
    return deque((rng.getrandbits(32 * words), int(rng.random() < 0.3)) for _ in range(n))


def outgoing(lanes: int, data: int, words: int, last: int) -> list:
    """A record as the endpoint takes it: (data, words, last) beats or words."""
    if lanes > 1:
        return [(data, words, last)]
    return [(x, 1, int(last and k == words - 1)) for k, x in enumerate(words_of(data, 0, words))]


@cocotb.test()
async def stream_bind_random(dut):
    """Records both ways at random rates and back-pressure, in each binding; each binding's
    streams drained before the next."""
    lanes = int(os.environ["LANES"])
    w = {k: int(os.environ[k]) for k in ("IN_WORDS", "OUT_WORDS", "BI_WORDS", "BO_WORDS")}
    rng = random.Random(lanes + sum(w.values()))
    await reset(dut, INPUTS)
    moved = 0
    out_words = {"x_out": w["OUT_WORDS"], "b_out": w["BO_WORDS"]}
    parked: dict = {"x_out": deque(), "b_out": deque()}   # records a serialiser took while not bound
    for in_brch, out_brch in product((0, 1), (0, 1)):
        ow = w["BO_WORDS"] if out_brch else w["OUT_WORDS"]   # 0: the branch port is not bound
        iw = w["BI_WORDS"] if in_brch else w["IN_WORDS"]
        src = {"x_out": records(rng, 10 ** 4, w["OUT_WORDS"]), "b_out": records(rng, 10 ** 4, max(w["BO_WORDS"], 1))}
        arriving = records(rng, 10 ** 4, max(iw, 1))
        m_items: deque = deque()    # what the endpoint delivers: words (LANES = 1) or beats
        for data, last in arriving:
            if lanes > 1:
                m_items.append((data | rng.getrandbits(32 * lanes) >> (32 * max(iw, 1)) << (32 * max(iw, 1)), last))
            else:
                m_items.extend((x, last and k == max(iw, 1) - 1) for k, x in enumerate(words_of(data, 0, max(iw, 1))))
        want_s: deque = deque()     # the endpoint's outgoing words or beats still to come
        want_in: deque = deque()    # records still to come out of the bound input port
        sel_out, sel_in = ("b_out" if out_brch else "x_out"), ("b_in" if in_brch else "x_in")
        taken = 0
        if ow:
            want_s.extend(parked[sel_out])
            parked[sel_out].clear()
        for cycle in range(2000):
            offer = cycle < 300
            await FallingEdge(dut.clk)
            dut.in_brch.value, dut.out_brch.value = in_brch, out_brch
            for name, q in src.items():
                getattr(dut, f"{name}_valid").value = int(offer and rng.random() < 0.7)
                getattr(dut, f"{name}_data").value, getattr(dut, f"{name}_last").value = q[0]
            # words of a record begun are all sent: the deserialiser keeps no half record
            dut.st_m_valid.value = int((offer or taken % max(iw, 1)) and rng.random() < 0.7)
            dut.st_m_data.value, dut.st_m_last.value = m_items[0]
            for port in ("st_s_ready", "x_in_ready", "b_in_ready"):
                getattr(dut, port).value = int(rng.random() < 0.7)
            await ReadOnly()
            v = {p: int(getattr(dut, p).value) for p in (
                "x_out_valid", "x_out_ready", "b_out_valid", "b_out_ready", "st_s_valid", "st_s_ready", "st_m_valid",
                "st_m_ready", "x_in_valid", "x_in_ready", "b_in_valid", "b_in_ready")}
            assert int(dut.st_s_words.value) == (max(ow, 1) if lanes > 1 else 1)
            assert int(dut.st_m_want.value) == (max(iw, 1) if lanes > 1 else 1)
            for name, q in src.items():
                if v[f"{name}_valid"] and v[f"{name}_ready"]:
                    data, last = q.popleft()
                    if name == sel_out:
                        assert ow, f"cycle {cycle}: a record taken for an unbound Brch_Out"
                        want_s.extend(outgoing(lanes, data, ow, last))
                    else:   # the other side's serialiser holds one record until it is bound
                        assert lanes == 1 and not parked[name], f"cycle {cycle}: {name} taken while not bound"
                        parked[name].extend(outgoing(lanes, data, out_words[name], last))
            if v["st_s_valid"] and v["st_s_ready"]:
                assert want_s, f"cycle {cycle}: the endpoint offered words nobody sent"
                got = (int(dut.st_s_data.value), int(dut.st_s_words.value), int(dut.st_s_last.value))
                assert got == want_s.popleft(), f"cycle {cycle}: outgoing {got}"
                moved += 1
            if v["st_m_ready"]:
                assert iw, f"cycle {cycle}: arriving words taken for an unbound Brch_In"
                if v["st_m_valid"]:
                    m_items.popleft()
                    taken += 1
                    if lanes > 1 or taken % iw == 0:
                        want_in.append(arriving.popleft())
            for name in ("x_in", "b_in"):
                if name != sel_in:
                    assert not v[f"{name}_valid"], f"cycle {cycle}: {name} offered records while not bound"
                elif v[f"{name}_valid"] and v[f"{name}_ready"]:
                    assert want_in, f"cycle {cycle}: {name}: a record nobody sent"
                    got = (int(getattr(dut, f"{name}_data").value), int(getattr(dut, f"{name}_last").value))
                    assert got == want_in.popleft(), f"cycle {cycle}: {name} {got}"
                    moved += 1
            if not offer and not want_s and not want_in and not taken % max(iw, 1):
                break
        assert not want_s and not want_in, f"binding in {in_brch} out {out_brch}: streams not drained"
        if not ow:
            assert len(src["b_out"]) == 10 ** 4
    assert moved > 400, moved
