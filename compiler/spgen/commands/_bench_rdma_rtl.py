"""`spgen bench rdma --rtl CARD`: the same transfers on a line of 8 RTL cards (complete simulated
cards built with `spgen build --links 2+`, driven through their CSRs) and on the model given the
RTL link's bit rate, side by side."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .._diagnostics import SpgenError

__all__ = ["rtl_records", "rtl_table"]
_SRC, _DST = 0x10000, 0x400000


def _spec(card: Path | None, rate: float, faults: dict | None = None) -> dict:
    spec: dict = {"topology": "mesh", "dims": [8], "latency_ns": 200.0, "line_rate_gbps": rate, "seed": 1}
    if card:
        spec["card"] = str(card)
    if faults:
        spec["faults"] = faults
    return spec


def _put(cl, a: int, b: int, data: bytes) -> float:
    """ns from the host's call to the completion it sees, from an idle host driver (the
    previous operation's completion drained: on RTL cards that takes two 1 us reads after
    the completion is seen); the bytes are checked."""
    cl.run(int(cl.sim.clock_mhz * 5))  # 5 us
    cl[a].write(_SRC, data)
    cycles = cl[a].put(b, _SRC, _DST, len(data))
    if cl[b].read(_DST, len(data)) != data:
        raise SpgenError(f"{len(data)} B put {a} -> {b} arrived corrupted")
    return cl.ns(cycles)


def _reduce(cl, cards: int, data: list[np.ndarray]) -> float:
    """ns of a pipelined u32 sum of one vector per card along cards 0..cards-1 (host call to
    the completion it sees); the sum is checked."""
    cl.run(int(cl.sim.clock_mhz * 5))
    for c in range(cards):
        cl[c].write(_SRC, data[c])
    cycles = cl.reduce(list(range(cards)), _SRC, data[0].nbytes, dst=_SRC)
    want = np.sum(np.stack(data[:cards]), axis=0, dtype=np.uint32)
    if not np.array_equal(np.frombuffer(cl[cards - 1].read(_SRC, data[0].nbytes), np.uint32), want):
        raise SpgenError(f"reduction over {cards} cards gave a wrong sum")
    return cl.ns(cycles)


def rtl_records(rdma, card: Path, quick: bool) -> list[dict]:
    """Latency over 1..7 hops (16 B), throughput and goodput (1e-4 packet errors) of a large put,
    the pipelined sum of a large vector over 2 and 4 cards, simulation speed -- for RTL cards
    and for the model with the same link bit rate."""
    rng = np.random.default_rng(2)
    big = 1 << (16 if quick else 20)
    hops = [1, 4] if quick else list(range(1, 8))
    out = []
    for backend in ("rtl", "model"):
        t0 = time.monotonic()
        probe = rdma.cluster(_spec(card, 1.0))
        rate = 32 * probe.sim.clock_mhz / 1000.0 if backend == "rtl" else None  # bits per cycle x clock
        del probe
        rate = rate or out[0]["line_gbps"]
        cl = rdma.cluster(_spec(card if backend == "rtl" else None, rate))
        small = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
        lat = {h: _put(cl, 0, h, small) for h in hops}
        data = rng.integers(0, 256, big, dtype=np.uint8).tobytes()
        thr = big * 8 / _put(cl, 0, 1, data)
        faulty = rdma.cluster(_spec(card if backend == "rtl" else None, rate, {"per": 1e-4}))
        good = big * 8 / _put(faulty, 0, 1, data)
        vecs = [rng.integers(0, 1 << 32, big // 4, dtype=np.uint32) for _ in range(4)]
        red = {k: big * 8 / _reduce(cl, k, vecs) for k in (2, 4)}
        wall = time.monotonic() - t0
        card_cycles = 8 * (cl.now + faulty.now)
        out.append({"backend": backend, "line_gbps": rate, "latency_ns": lat, "throughput_gbps": thr,
                    "goodput_per1e-4_gbps": good, "reduce_gbps": red, "bytes": big, "card_cycles_per_s": card_cycles / wall,
                    "clock_mhz": cl.sim.clock_mhz})
    return out


def rtl_table(recs: list[dict]) -> str:
    rows = [f"{'':34}" + "".join(f"{r['backend']:>14}" for r in recs)]
    rows.append(f"{'link bit rate (Gb/s)':34}" + "".join(f"{r['line_gbps']:>14.2f}" for r in recs))
    for h in recs[0]["latency_ns"]:
        rows.append(f"{f'16 B put, {h} hop(s) (us)':34}" + "".join(f"{r['latency_ns'][h] / 1000:>14.3f}" for r in recs))
    hs = sorted(recs[0]["latency_ns"])
    if len(hs) > 1:
        rows.append(f"{'added per hop (us)':34}" + "".join(
            f"{(r['latency_ns'][hs[-1]] - r['latency_ns'][hs[0]]) / (hs[-1] - hs[0]) / 1000:>14.3f}" for r in recs))
    n = recs[0]["bytes"]
    rows.append(f"{f'{n >> 10} KiB put, 1 hop (Gb/s)':34}" + "".join(f"{r['throughput_gbps']:>14.2f}" for r in recs))
    rows.append(f"{'  share of the link bit rate':34}" + "".join(
        f"{100 * r['throughput_gbps'] / r['line_gbps']:>13.1f}%" for r in recs))
    rows.append(f"{'  goodput at PER 1e-4 (Gb/s)':34}" + "".join(f"{r['goodput_per1e-4_gbps']:>14.2f}" for r in recs))
    for k in recs[0]["reduce_gbps"]:
        rows.append(f"{f'u32 sum of {n >> 10} KiB, {k} cards (Gb/s)':34}" + "".join(
            f"{r['reduce_gbps'][k]:>14.2f}" for r in recs))
    rows.append(f"{'simulation (card-cycles/s)':34}" + "".join(f"{r['card_cycles_per_s']:>14.0f}" for r in recs))
    return "\n".join(rows)
