"""CIRCUS's experiment at its scale on simulated cards: an 8 x 8 torus of 64 RTL cards (Cygnus's
topology, 100 Gb/s links, 200 ns cables), split over MPI ranks (rdma-mpi-stream), a put and a
stream from card 0 to a card 1..7 hops away. Each card is `spgen build
benchmarks/rdma/data/rec16.spd --links 4 --link-gbps 100 --core-model fast` (a core of 64-byte
records, one a cycle: 102.4 Gb/s, more than the line). Per hop count: the put's latency (16 B,
the command reaching the card to its completion on the card), the put's and the stream's
throughput (the difference of two sizes, so fixed costs cancel), the stream's fixed cycles,
and whether the stream's output is the cores' (rec16.spd's sums, through two cores); then the run's
simulation speed (card-cycles per second) and peak memory. Prints a table beside CIRCUS's
figures (docs/reference.md); --json writes the records.

    python benchmarks/rdma/torus_hops.py [--ranks 2] [--hops 1-7] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import spgen
from spgen.runtime._mpi_stream import (
    fnv1a64,
    parse_output,
    put_gbps,
    run_mpi_stream,
    stream_gbps,
    stream_input,
)
from spgen.shellgen import card_clock_mhz

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from machine import cpu_name  # the machine's CPU, as the other benchmarks name it

REC16 = ROOT / "benchmarks" / "rdma" / "data" / "rec16.spd"
MHZ = float(card_clock_mhz())
PUTS = (16, 64 << 10, 256 << 10)          # bytes: latency, and the two sizes of the throughput
RECORDS = (2000, 8000)                     # stream records of 64 B: 128 KB and 512 KB
CIRCUS = {"latency_us_1_hop": 0.5, "latency_us_per_hop": 0.25, "gbps": {1: 90.2, 7: 88.7}}


def card_at(hops: int, side: int = 8) -> int:
    """A card `hops` hops from card 0 of a side x side torus (dimension order: x, then y)."""
    half = side // 2
    return hops if hops <= half else half + side * (hops - half)


def expected(words: np.ndarray, cores: int) -> np.ndarray:
    """rec16.spd through `cores` cores: word i of every record plus cores * (i + 1), wrapping.
    (The emulator's JIT cannot compile this core yet: LLVM runs out of registers.)"""
    rec = words.reshape(-1, 16).astype(np.uint64) + cores * np.arange(1, 17, dtype=np.uint64)
    return rec.astype(np.uint32).reshape(-1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--hops", default="1-7", help="a range A-B of hop counts")
    ap.add_argument("--side", type=int, default=8, help="the torus is side x side cards")
    ap.add_argument("--build", type=Path, default=ROOT / "build" / "rec16_l4_100")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--print-steps", action="store_true", help="print the tool's steps and stop (to run it elsewhere)")
    ap.add_argument("--from", dest="saved", type=Path, metavar="DIR",
                    help="read the tool's stdout and stderr from DIR (a run elsewhere) instead of running it")
    ap.add_argument("--machine", help="the machine that ran it (with --from)")
    a = ap.parse_args(argv)
    lo, hi = (int(v) for v in a.hops.split("-"))
    # built every time (cached by content), so the folder never holds an older tree's RTL
    spgen.build(REC16, a.build, links=4, link_gbps=100, core_model="fast")
    cluster = {"topology": "torus", "dims": [a.side, a.side], "card": str(a.build.resolve()), "line_rate_gbps": 100}
    steps = []
    for h in range(lo, hi + 1):
        d = card_at(h, a.side)
        steps += [f"put:0:{d}:{b}" for b in PUTS] + [f"stream:0-{d}:{r}" for r in RECORDS]
    if a.print_steps:
        print(" ".join(steps))
        return 0
    t0 = time.time()
    if a.saved:
        res = parse_output((a.saved / "stdout").read_text(), (a.saved / "stderr").read_text(), len(steps))
    else:
        res = run_mpi_stream(cluster, steps, ranks=a.ranks)
    wall = time.time() - t0
    rows = []
    print("| hops | put 16 B latency | CIRCUS latency | put throughput | stream throughput | CIRCUS | stream fixed "
          "cycles | stream exact |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    per_hop = len(PUTS) + len(RECORDS)
    for i, h in enumerate(range(lo, hi + 1)):
        r = res["steps"][i * per_hop:(i + 1) * per_hop]
        p16, p64, p256, s1, s2 = r
        assert all(x["hops"] == h for x in (p16, p64, p256)) and s1["hops"] == [h], r
        assert all(x["code"] == 0 and x["wrong_bytes"] == 0 for x in (p16, p64, p256)), r
        lat = p16["card_done"] - p16["started"]
        put_rate = put_gbps(p64, p256, MHZ)
        rb = s1["record_bytes"]
        st_gbps, fixed = stream_gbps(s1, s2, MHZ)
        exact = True
        for s, step in ((s1, 2 + i * per_hop + 3), (s2, 2 + i * per_hop + 4)):
            exact &= fnv1a64(expected(stream_input(step, s["records"] * rb // 4), 2).tobytes()) == s["output_fnv"]
            exact &= s["stream_errors"] == 0 and s["dma_error"] == 0
        stall = [1 - m / t for m, t in zip(s2["in_moved"], s2["in_total"])]
        circ_lat = CIRCUS["latency_us_1_hop"] + CIRCUS["latency_us_per_hop"] * (h - 1)
        circ_gbps = CIRCUS["gbps"].get(h)
        rows.append({"hops": h, "dst": p16["dst"], "put_latency_cycles": lat, "put_latency_us": lat / MHZ,
                     "put_gbps": put_rate, "put_256k_gbps_end_to_end":
                         PUTS[2] * 8 * MHZ / 1000 / (p256["card_done"] - p256["started"]),
                     "stream_gbps": st_gbps, "stream_fixed_cycles": fixed, "stream_cycles": [s1["cycles"], s2["cycles"]],
                     "stream_first_core_stall": stall, "stream_exact": bool(exact),
                     "circus_latency_us": circ_lat, "circus_gbps": circ_gbps})
        cg = f"{circ_gbps} Gb/s" if circ_gbps else "–"
        print(f"| {h} | {lat / MHZ:.3f} µs ({lat} cycles) | {circ_lat:.2f} µs | {put_rate:.1f} Gb/s | "
              f"{st_gbps:.1f} Gb/s | {cg} | {fixed:.0f} | {'yes' if exact else 'NO'} |")
    sp = res["speed"]["all"]
    setup = res["speed"]["set-up"]
    print(f"\n{sp['cards']} cards in {sp['ranks']} MPI ranks: {sp['cycles']:,} cycles ({sp['cycles'] * sp['cards']:,} "
          f"card-cycles) in {sp['wall_s']:.1f} s = {sp['card_cycles_per_s']:,} card-cycles/s "
          f"({sp['card_cycles_per_s'] / sp['cards']:,.0f} cluster cycles/s); peak RSS {sp['rss_mib_all']:.0f} MiB "
          f"in all, {sp['rss_mib_largest']:.0f} MiB the largest rank; set-up {setup['cycles']} cycles, "
          f"{setup['wall_s']:.1f} s")
    if a.json:
        machine = a.machine or f"{cpu_name()}, {len(Path('/proc/cpuinfo').read_text().split('processor')) - 1} cores"
        a.json.write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "machine": machine,
                                      "cluster": {**cluster, "card": "rec16 --links 4 --link-gbps 100 --core-model fast"},
                                      "ranks": a.ranks, "puts": PUTS, "records": RECORDS, "rows": rows,
                                      "speed": res["speed"], "wall_s": wall}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
