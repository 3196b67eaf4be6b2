"""`spgen bench rdma --rtl CARD`: the same transfers on RTL cards (complete simulated cards built
with `spgen build --links 2+`, driven through their CSRs) and on the model, side by side, at the
RTL port's own bit rate and at each line rate of `--rates` (the cables send the wire bytes of every
packet at the cluster file's line_rate_gbps)."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .._diagnostics import SpgenError

__all__ = ["rtl_records", "rtl_table"]
_SRC, _DST = 0x10000, 0x400000
_LABEL = 38  # width of the table's row labels


def _spec(card: Path | None, rate: float, cards: int, faults: dict | None = None, topology: str = "mesh") -> dict:
    spec: dict = {"topology": topology, "dims": [cards], "latency_ns": 200.0, "line_rate_gbps": rate, "seed": 1}
    if card:
        spec["card"] = str(card)
    if faults:
        spec["faults"] = faults
    return spec


def _put(cl, a: int, b: int, data: bytes, get: bool = False) -> float:
    """ns from the host's call to the completion it sees, for a put a -> b (or with `get` a get:
    card a reads `data` from card b), from an idle host driver (on RTL cards draining the previous
    completion takes two 1 us reads); the bytes are checked."""
    cl.run(int(cl.sim.clock_mhz * 5))  # 5 us
    src, dst = (b, a) if get else (a, b)
    cl[src].write(_SRC, data)
    cycles = cl[a].get(b, _DST, _SRC, len(data)) if get else cl[a].put(b, _SRC, _DST, len(data))
    if cl[dst].read(_DST, len(data)) != data:
        raise SpgenError(f"{len(data)} B {'get' if get else 'put'} {a} -> {b} arrived corrupted")
    return cl.ns(cycles)


def _reduce(cl, cards: int, data: list[np.ndarray], every: bool = False) -> float:
    """ns of a pipelined u32 sum of one vector per card along cards 0..cards-1 (host call to
    the completion it sees; `every`: an allreduce); the sum is checked on the last card (an
    allreduce: on every card)."""
    cl.run(int(cl.sim.clock_mhz * 5))
    for c in range(cards):
        cl[c].write(_SRC, data[c])
    call = cl.allreduce if every else cl.reduce
    cycles = call(list(range(cards)), _SRC, data[0].nbytes, dst=_SRC)
    want = np.sum(np.stack(data[:cards]), axis=0, dtype=np.uint32)
    for c in range(cards) if every else [cards - 1]:
        if not np.array_equal(np.frombuffer(cl[c].read(_SRC, data[0].nbytes), np.uint32), want):
            raise SpgenError(f"{'allreduce' if every else 'reduction'} over {cards} cards gave a wrong sum on card {c}")
    return cl.ns(cycles)


def port_gbps(rdma, card: Path) -> tuple[float, float]:
    """The RTL link port's bit rate (its word per cycle at the card's clock) and that clock."""
    probe = rdma.cluster(_spec(card, 1.0, 2))
    mhz = probe.sim.clock_mhz
    return probe.sim.link_bits * mhz / 1000.0, mhz


def rtl_records(rdma, card: Path, quick: bool, rates: list[float] = (100.0, 40.0)) -> list[dict]:
    """Per line rate (the RTL port's own, then `rates`) and backend (RTL cards, model): latency of
    a 16 B put over 1..7 hops (line of 8 cards), the pipelined u32 sum and allreduce of the
    largest size along rings of 2, 4 and 8 cards (RTL cards at their port's rate only: a line at
    least as fast as the port takes the very same cycles), put and get goodput for 4 KiB..1 MiB
    and goodput of the largest put at a 1e-4 packet error rate (2 cards), simulation speed."""
    rng = np.random.default_rng(2)
    sizes = [4096, 65536] if quick else [4096 << 2 * i for i in range(5)]  # 4 KiB .. 1 MiB
    hops = [1, 4] if quick else list(range(1, 8))
    port, _ = port_gbps(rdma, card)
    small = rng.integers(0, 256, 16, dtype=np.uint8).tobytes()
    blobs = {n: rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in sizes}
    chains = [2, 4] if quick else [2, 4, 8]
    vecs = [rng.integers(0, 1 << 32, sizes[-1] // 4, dtype=np.uint32) for _ in range(chains[-1])]
    out = []
    for rate in [port] + [r for r in (rates[:1] if quick else rates) if r != port]:
        for backend in ("rtl", "model"):
            where = card if backend == "rtl" else None
            t0, card_cycles = time.monotonic(), 0
            line = rdma.cluster(_spec(where, rate, 8))
            lat = {h: _put(line, 0, h, small) for h in hops}
            card_cycles += 8 * line.now
            del line
            red, allred = {}, {}
            for k in chains if backend == "model" or rate == port else []:
                # a ring of k cards: the allreduce's result goes from the last card to the first
                # over one hop, as every partial sum does
                ring = rdma.cluster(_spec(where, rate, k, topology="ring"))
                red[k] = sizes[-1] * 8 / _reduce(ring, k, vecs)
                allred[k] = sizes[-1] * 8 / _reduce(ring, k, vecs, every=True)
                card_cycles += k * ring.now
                del ring
            pair = rdma.cluster(_spec(where, rate, 2))
            put = {n: n * 8 / _put(pair, 0, 1, blobs[n]) for n in sizes}
            get = {n: n * 8 / _put(pair, 0, 1, blobs[n], get=True) for n in sizes}
            card_cycles += 2 * pair.now
            faulty = rdma.cluster(_spec(where, rate, 2, {"per": 1e-4}))
            good = sizes[-1] * 8 / _put(faulty, 0, 1, blobs[sizes[-1]])
            card_cycles += 2 * faulty.now
            wall = time.monotonic() - t0
            out.append({"backend": backend, "line_gbps": rate, "port_gbps": port if backend == "rtl" else None,
                        "latency_ns": lat, "put_gbps": put, "get_gbps": get,
                        "throughput_gbps": put[sizes[-1]], "goodput_per1e-4_gbps": good, "reduce_gbps": red,
                        "allreduce_gbps": allred,
                        "bytes": sizes[-1],
                        "card_cycles_per_s": card_cycles / wall, "clock_mhz": pair.sim.clock_mhz})
    return out


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def rtl_table(recs: list[dict]) -> str:
    """The records as a table, a column per backend and line rate (from rtl_records or its JSON)."""
    recs = [{**r, **{k: {int(n): v for n, v in r.get(k, {}).items()} for k in ("latency_ns", "put_gbps", "get_gbps", "reduce_gbps",
                                                              "allreduce_gbps")}}
            for r in recs]
    w = 13

    def cell(f) -> str:
        return "".join(f(r) for r in recs)

    rows = [f"{'':{_LABEL}}" + cell(lambda r: f"{r['backend'] + ' ' + format(r['line_gbps'], 'g'):>{w}}")]
    rows.append(f"{'clock (MHz)':{_LABEL}}" + cell(lambda r: f"{r['clock_mhz']:>{w}.1f}"))
    rows.append(f"{'16 B put, 1 hop (us)':{_LABEL}}" + cell(lambda r: f"{r['latency_ns'][min(r['latency_ns'])] / 1000:>{w}.3f}"))
    hs = sorted(recs[0]["latency_ns"])
    if len(hs) > 1:
        rows.append(f"{f'16 B put, {hs[-1]} hops (us)':{_LABEL}}" + cell(lambda r: f"{r['latency_ns'][hs[-1]] / 1000:>{w}.3f}"))
        rows.append(f"{'added per hop (us)':{_LABEL}}" + cell(
            lambda r: f"{(r['latency_ns'][hs[-1]] - r['latency_ns'][hs[0]]) / (hs[-1] - hs[0]) / 1000:>{w}.3f}"))
    for kind in ("put", "get"):
        for n in recs[0][f"{kind}_gbps"]:
            rows.append(f"{f'{_size(n)} {kind}, 1 hop (Gb/s)':{_LABEL}}" + cell(lambda r, k=kind, n=n: f"{r[f'{k}_gbps'][n]:>{w}.2f}"))
    rows.append(f"{'  largest put / line rate':{_LABEL}}" + cell(
        lambda r: f"{100 * r['throughput_gbps'] / r['line_gbps']:>{w - 1}.1f}%"))
    rows.append(f"{'  goodput at PER 1e-4 (Gb/s)':{_LABEL}}" + cell(lambda r: f"{r['goodput_per1e-4_gbps']:>{w}.2f}"))
    big = _size(recs[0]["bytes"])
    for kind, what in (("reduce_gbps", "sum"), ("allreduce_gbps", "allreduce")):
        for k in sorted({k for r in recs for k in r.get(kind, {})}):
            rows.append(f"{f'u32 {what} of {big}, {k} cards (Gb/s)':{_LABEL}}" + cell(
                lambda r, kind=kind, k=k: f"{r[kind][k]:>{w}.2f}" if k in r.get(kind, {}) else f"{'--':>{w}}"))
    rows.append(f"{'simulation (card-cycles/s)':{_LABEL}}" + cell(lambda r: f"{r['card_cycles_per_s']:>{w}.0f}"))
    return "\n".join(rows)
