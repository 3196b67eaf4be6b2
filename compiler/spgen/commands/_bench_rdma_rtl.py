"""`spgen bench rdma --rtl CARD [CARD ...]`: the same transfers on RTL cards (complete simulated
cards built with `spgen build --links 2+ --link-gbps 40|100`, driven through their CSRs) and on
the model, side by side, at each card's line rate (the cables send the wire bytes of every packet
at that rate), RTL cards with bulk and with 64-byte packets."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .._diagnostics import SpgenError

__all__ = ["rtl_records", "rtl_table"]
_SRC, _DST = 0x10000, 0x400000
_RED_DST = (1 << 32) + 0x10000  # memory B
_LABEL = 46  # width of the table's row labels


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


def _stream_of_puts(cl, blob: bytes, reps: int) -> float:
    """Gb/s of `reps` puts of `blob` from card 0 to card 1 issued at once (the driver keeps
    the engine's operations in flight), from the first call to the last completion the host
    sees; enough packets that a 1e-4 packet error rate hits some. Every byte is checked."""
    cl.run(int(cl.sim.clock_mhz * 5))
    cl[0].write(_SRC, blob)
    t0 = cl.now
    ts = [cl[0].put_async(1, _SRC, _DST + i * len(blob), len(blob)) for i in range(reps)]
    for t in ts:
        t.wait()
    for i in range(reps):
        if cl[1].read(_DST + i * len(blob), len(blob)) != blob:
            raise SpgenError(f"put {i} of {reps} arrived corrupted under faults")
    return reps * len(blob) * 8 / cl.ns(cl.now - t0)


def _reduce(cl, cards: int, data: list[np.ndarray], every: bool = False) -> float:
    """ns of a pipelined u32 sum of one vector per card along cards 0..cards-1 (host call to
    the completion it sees; `every`: an allreduce); the sum is checked on the last card (an
    allreduce: on every card)."""
    cl.run(int(cl.sim.clock_mhz * 5))
    for c in range(cards):
        cl[c].write(_SRC, data[c])
    call = cl.allreduce if every else cl.reduce
    # the sums into memory B: reading and writing one bank at the line costs the bus its
    # read/write turnarounds (docs/rdma.md, "Reductions")
    cycles = call(list(range(cards)), _SRC, data[0].nbytes, dst=_RED_DST)
    want = np.sum(np.stack(data[:cards]), axis=0, dtype=np.uint32)
    for c in range(cards) if every else [cards - 1]:
        if not np.array_equal(np.frombuffer(cl[c].read(_RED_DST, data[0].nbytes), np.uint32), want):
            raise SpgenError(f"{'allreduce' if every else 'reduction'} over {cards} cards gave a wrong sum on card {c}")
    return cl.ns(cycles)


def card_line(rdma, card: Path) -> tuple[float, float, float, int]:
    """An RTL card's line rate (its build's --link-gbps), its link port's bit rate (a beat per
    cycle at the card's clock), that clock and its largest DATA payload in bytes."""
    probe = rdma.cluster(_spec(card, 1.0, 2))
    info = probe._card_info(0)
    mhz = probe.sim.clock_mhz
    pkt = 4 * ((int(probe[0].read_csr("RDMA_INFO")) >> 40) & 0x1FF)
    return float(info.get("link_gbps", 40)), probe.sim.link_bits * mhz / 1000.0, mhz, pkt


def _record(rdma, where: Path | None, rate: float, packet: int, port: float | None, quick: bool,
            data: dict) -> dict:
    """One column of the comparison: RTL cards (`where`) or the model at line `rate`, DATA
    packets of `packet` bytes (0: the card's largest)."""
    t0, card_cycles = time.monotonic(), 0
    sizes, hops, chains = data["sizes"], data["hops"], data["chains"]

    def cluster(cards: int, **kw):
        cl = rdma.cluster(_spec(where, rate, cards, **kw))
        cl.packet_bytes = packet
        return cl

    line = cluster(8)
    lat, card_lat = {}, {}
    for h in hops:
        lat[h] = _put(line, 0, h, data["small"])
        if where:  # the initiating card's own view, without the host's CSR and interrupt costs
            t = line[0].put_async(h, _SRC, _DST, len(data["small"]))
            line.run(int(line.sim.clock_mhz * 5))
            t.wait()
            card_lat[h] = line.ns(t.card_cycles)
    card_cycles += 8 * line.now
    del line
    red, allred = {}, {}
    for k in chains if data["reductions"] else []:
        # a ring of k cards in ring order: every partial sum crosses one hop, and an allreduce's
        # result the same hops back
        ring = cluster(k, topology="ring")
        red[k] = sizes[-1] * 8 / _reduce(ring, k, data["vecs"])
        allred[k] = sizes[-1] * 8 / _reduce(ring, k, data["vecs"], every=True)
        card_cycles += k * ring.now
        del ring
    pair = cluster(2)
    put = {n: n * 8 / _put(pair, 0, 1, data["blobs"][n]) for n in sizes}
    get = {n: n * 8 / _put(pair, 0, 1, data["blobs"][n], get=True) for n in sizes}
    # the payload rate of the largest put on the card itself (CMD to completion interrupt)
    pair.run(int(pair.sim.clock_mhz * 5))
    t = pair[0].put_async(1, _SRC, _DST, sizes[-1])
    t.wait()
    card_put = sizes[-1] * 8 / pair.ns(t.card_cycles) if where else None
    card_cycles += 2 * pair.now
    faulty = rdma.cluster(_spec(where, rate, 2, {"per": 1e-4}))
    faulty.packet_bytes = packet
    good = _stream_of_puts(faulty, data["blobs"][sizes[-1]], data["fault_reps"])
    card_cycles += 2 * faulty.now
    wall = time.monotonic() - t0
    return {"backend": "rtl" if where else "model", "line_gbps": rate, "port_gbps": port,
            "packet_bytes": packet, "latency_ns": lat, "card_latency_ns": card_lat, "put_gbps": put,
            "get_gbps": get, "throughput_gbps": put[sizes[-1]], "card_put_gbps": card_put,
            "goodput_per1e-4_gbps": good, "reduce_gbps": red, "allreduce_gbps": allred, "bytes": sizes[-1],
            "card_cycles_per_s": card_cycles / wall, "clock_mhz": pair.sim.clock_mhz}


def rtl_records(rdma, cards: list[Path], quick: bool) -> list[dict]:
    """Per RTL card build (its line rate is its --link-gbps): RTL cards with bulk packets (the
    card's largest) and with 64-byte packets (CIRCUS's), and the model (64-byte packets) at the
    same line rate. Each: latency of a 16 B put over 1..7 hops (line of 8 cards; from the host's
    call, and on the card from its CMD write to its completion interrupt), put and get goodput for
    4 KiB..1 MiB, the largest put at a 1e-4 packet error rate (2 cards), the pipelined u32 sum
    and allreduce of the largest size along rings of 2, 4 and 8 cards (once per line rate and
    backend: they stream at the endpoints' rate whatever the packet size), goodput of 16 puts of
    the largest size in a row at a 1e-4 packet error rate, simulation speed."""
    rng = np.random.default_rng(2)
    sizes = [4096, 65536] if quick else [4096 << 2 * i for i in range(5)]  # 4 KiB .. 1 MiB
    chains = [2, 4] if quick else [2, 4, 8]
    data = {"sizes": sizes, "hops": [1, 4] if quick else list(range(1, 8)), "chains": chains,
            "fault_reps": 2 if quick else 16,
            "small": rng.integers(0, 256, 16, dtype=np.uint8).tobytes(),
            "blobs": {n: rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in sizes},
            "vecs": [rng.integers(0, 1 << 32, sizes[-1] // 4, dtype=np.uint32) for _ in range(chains[-1])]}
    out = []
    for card in cards:
        rate, port, _, bulk = card_line(rdma, card)
        for where, packet in ((card, bulk), (card, 64), (None, 64)):
            out.append(_record(rdma, where, rate, packet, port if where else None, quick,
                               {**data, "reductions": packet == bulk or where is None}))
    return out


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def rtl_table(recs: list[dict]) -> str:
    """The records as a table, a column per backend, line rate and packet size (from
    rtl_records or its JSON)."""
    keys = ("latency_ns", "card_latency_ns", "put_gbps", "get_gbps", "reduce_gbps", "allreduce_gbps")
    recs = [{**r, **{k: {int(n): v for n, v in r.get(k, {}).items()} for k in keys}} for r in recs]
    w = 14

    def cell(f) -> str:
        return "".join(f(r) for r in recs)

    def opt(v, fmt: str) -> str:
        return f"{v:>{w}{fmt}}" if v is not None else f"{'--':>{w}}"

    rows = [f"{'':{_LABEL}}" + cell(lambda r: f"{r['backend'] + ' ' + format(r['line_gbps'], 'g'):>{w}}"),
            f"{'DATA packet payload (B)':{_LABEL}}" + cell(lambda r: f"{r.get('packet_bytes', 64):>{w}}"),
            f"{'link port (Gb/s)':{_LABEL}}" + cell(lambda r: opt(r.get("port_gbps"), ".1f")),
            f"{'clock (MHz)':{_LABEL}}" + cell(lambda r: f"{r['clock_mhz']:>{w}.1f}")]
    hs = sorted(recs[0]["latency_ns"])
    for key, what in (("latency_ns", "host call to completion"), ("card_latency_ns", "on the card")):
        rows.append(f"{f'16 B put, 1 hop, {what} (us)':{_LABEL}}" + cell(
            lambda r, k=key: opt(r[k][hs[0]] / 1000 if r[k] else None, ".3f")))
        if len(hs) > 1:
            rows.append(f"{'  added per hop (us)':{_LABEL}}" + cell(
                lambda r, k=key: opt((r[k][hs[-1]] - r[k][hs[0]]) / (hs[-1] - hs[0]) / 1000 if r[k] else None, ".3f")))
    for kind in ("put", "get"):
        for n in recs[0][f"{kind}_gbps"]:
            rows.append(f"{f'{_size(n)} {kind}, 1 hop (Gb/s)':{_LABEL}}" + cell(lambda r, k=kind, n=n: f"{r[f'{k}_gbps'][n]:>{w}.2f}"))
    rows.append(f"{'  largest put / line rate':{_LABEL}}" + cell(
        lambda r: f"{100 * r['throughput_gbps'] / r['line_gbps']:>{w - 1}.1f}%"))
    rows.append(f"{'  the same on the card / line rate':{_LABEL}}" + cell(
        lambda r: opt(100 * r["card_put_gbps"] / r["line_gbps"] if r.get("card_put_gbps") else None, ".1f")))
    reps = 16 if len(recs[0]["put_gbps"]) > 2 else 2  # the full run's, or --quick's
    rows.append(f"{f'  {reps} puts in a row at PER 1e-4 (Gb/s)':{_LABEL}}"
                + cell(lambda r: f"{r['goodput_per1e-4_gbps']:>{w}.2f}"))
    big = _size(recs[0]["bytes"])
    for kind, what in (("reduce_gbps", "sum"), ("allreduce_gbps", "allreduce")):
        for k in sorted({k for r in recs for k in r.get(kind, {})}):
            rows.append(f"{f'u32 {what} of {big}, {k} cards (Gb/s)':{_LABEL}}" + cell(
                lambda r, kind=kind, k=k: f"{r[kind][k]:>{w}.2f}" if k in r.get(kind, {}) else f"{'--':>{w}}"))
    rows.append(f"{'simulation (card-cycles/s)':{_LABEL}}" + cell(lambda r: f"{r['card_cycles_per_s']:>{w}.0f}"))
    return "\n".join(rows)
