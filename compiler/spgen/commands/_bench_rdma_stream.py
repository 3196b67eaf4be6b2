"""`spgen bench rdma --stream CARD [CARD ...]`: stream throughput between RTL cards (records of
a core's width through the line-wide stream endpoints, `rdma-mpi-stream`) beside puts on the
same cards and CIRCUS."""
from __future__ import annotations

import time
from pathlib import Path

from .._diagnostics import SpgenError

__all__ = ["stream_records", "stream_table"]
_HOPS = (1, 3)


def stream_records(rdma, cards: list[Path], quick: bool, circus: dict) -> list[dict]:
    """Per card build (a core built with `--links 2+`, its record width and --link-gbps): on a
    ring of 6 cards, a stream from card 0 to card 1 and to card 3 (1 and 3 hops) through both
    cards' cascades, from memory A of the first to memory B of the last, and puts over the
    same hops; each rate from the difference of two sizes (128 and 512 KB; --quick 32 and
    128 KB), so fixed costs cancel."""
    from ..runtime._mpi_stream import put_gbps, run_mpi_stream, stream_gbps
    from ._bench_rdma_rtl import card_line

    sizes = (32 << 10, 128 << 10) if quick else (128 << 10, 512 << 10)
    out = []
    for card in cards:
        rate, port, mhz, _ = card_line(rdma, card)
        steps = []
        for h in _HOPS:
            steps += [f"put:0:{h}:{n}" for n in sizes]
            steps += [f"stream:0-{h}:{{r{i}}}" for i in range(2)]
        # the records per run need the card's record size: a probe stream of one record
        probe = run_mpi_stream({"topology": "ring", "dims": [2], "card": str(card.resolve()), "line_rate_gbps": rate},
                               ["stream:0-1:1"])["steps"][0]
        rb = probe["record_bytes"]
        recs = [n // rb for n in sizes]
        steps = [s.format(r0=recs[0], r1=recs[1]) for s in steps]
        t0 = time.monotonic()
        res = run_mpi_stream({"topology": "ring", "dims": [6], "card": str(card.resolve()), "line_rate_gbps": rate}, steps)
        wall = time.monotonic() - t0
        for i, h in enumerate(_HOPS):
            p1, p2, s1, s2 = res["steps"][4 * i:4 * i + 4]
            if any(p["code"] or p["wrong_bytes"] for p in (p1, p2)) or any(
                    s["stream_errors"] or s["dma_error"] or s["hops"] != [h] for s in (s1, s2)):
                raise SpgenError(f"{card}: a put or stream over {h} hop(s) failed: {p1} {p2} {s1} {s2}")
            gbps, fixed = stream_gbps(s1, s2, mhz)
            out.append({"card": str(card), "line_gbps": rate, "port_gbps": port, "record_bytes": rb,
                        "record_beats": rb * 8 / (port * 1000 / mhz), "hops": h, "stream_gbps": gbps,
                        "stream_of_line": gbps / rate, "stream_fixed_cycles": fixed, "put_gbps": put_gbps(p1, p2, mhz),
                        "bytes": sizes, "circus_gbps": circus["throughput_1hop_gbps"] if h == 1 else None,
                        "circus_of_line": circus["throughput_1hop_gbps"] / circus["line_gbps"],
                        "card_cycles_per_s": res["speed"]["all"]["card_cycles_per_s"], "wall_s": wall})
    return out


def stream_table(recs: list[dict]) -> str:
    """The records as a Markdown table."""
    rows = ["| line | record | hops | stream | of the line | put, same hops | CIRCUS (100 Gb/s, 64 B packets) |",
            "|---|---|---:|---:|---:|---:|---|"]
    for r in recs:
        circ = f"{r['circus_gbps']:.1f} Gb/s = {100 * r['circus_of_line']:.1f} %" if r["circus_gbps"] else "--"
        rows.append(f"| {r['line_gbps']:g} Gb/s | {r['record_bytes']} B ({r['record_beats']:.2f} beat) | {r['hops']} | "
                    f"{r['stream_gbps']:.1f} Gb/s | {100 * r['stream_of_line']:.1f} % | {r['put_gbps']:.1f} Gb/s | "
                    f"{circ} |")
    return "\n".join(rows)
