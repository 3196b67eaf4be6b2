"""What the RTL line-rate benchmarks share (rtl_line_rate.py: link layer and router,
rtl_engine_rate.py: the wide engine): the card's clock, the buffers both size their links
with, the latency record and table of a 1-hop and a 4-hop run, their common options, the
throughput table and the JSON record."""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from spgen.shellgen import card_clock_mhz

CARD_MHZ = float(card_clock_mhz())
WINDOW, VC_BUF = 64, 32  # replay window and input buffer per VC, packets


def hop_latency(lanes: int, one: int, four: int) -> dict:
    """The record of a datapath of `lanes` words: cycles over 1 and 4 hops, and what a hop adds."""
    return {"lanes": lanes, "bits": 32 * lanes, "cycles_1_hop": one, "cycles_4_hops": four,
            "per_hop_cycles": round((four - one) / 3, 1), "ns_1_hop": one * 1000 / CARD_MHZ,
            "per_hop_ns": round((four - one) / 3 * 1000 / CARD_MHZ, 1)}


def print_latency(lat: list[dict], one_hop: str, per_hop: str) -> None:
    """The Markdown table of hop_latency records, its columns headed `one_hop` and `per_hop`."""
    print(f"| datapath | {one_hop} | {per_hop} |")
    print("|---|---|---|")
    for r in lat:
        print(f"| {r['bits']} bits | {r['cycles_1_hop']} cycles = {r['ns_1_hop']:.0f} ns | "
              f"{r['per_hop_cycles']} cycles = {r['per_hop_ns']} ns |")


def arguments(doc: str, lanes: list[int], argv: list[str] | None,
              more: Callable[[argparse.ArgumentParser], None] = lambda ap: None) -> argparse.Namespace:
    """--lanes (default ``lanes``), --rates, the options ``more`` adds, --json."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--lanes", type=int, nargs="+", default=lanes)
    ap.add_argument("--rates", type=float, nargs="+", default=[40.0, 100.0])
    more(ap)
    ap.add_argument("--json", type=Path)
    return ap.parse_args(argv)


# The throughput tables' columns: head -> the cell of a throughput record
_CELLS: dict[str, Callable[[dict], str]] = {
    "datapath": lambda r: f"{r['bits']} bits",
    "window, per VC": lambda r: f"{r['window']}, {r['vc_buf']}",
    "line": lambda r: f"{r['line_gbps']:g} Gb/s",
    "op": lambda r: r["op"],
    "packets": lambda r: f"{r['packet_bytes']} B",
    "PER": lambda r: f"{r['per']:g}",
    "MiB": lambda r: str(r["mib"]),
    "offsets": lambda r: f"{r['local_offset']}, {r['remote_offset']}",
    "payload throughput": lambda r: f"{r['gbps']} Gb/s",
    "of the line": lambda r: f"{100 * r['of_line']:.1f} %",
    "flips, replays": lambda r: f"{r['flips']}, {r['replays']}",
    "CRC errors, replays": lambda r: f"{r['crc_errors']}, {r['replays']}",
}


def report(a: argparse.Namespace, latency: Callable[[int], dict], hop_heads: tuple[str, str],
           runs: list[tuple], measure: Callable[..., dict], columns: list[str], last: str,
           **setup: object) -> None:
    """Prints the latency table (``latency(lanes)`` for each of --lanes, columns headed
    ``hop_heads``), then ``measure(*run)`` for each run as a row when it is done (datapath,
    window, line, ``columns``, throughput, share of the line, ``last``); writes the JSON
    record (the clock, ``setup``, the buffers, both tables) if --json names a file."""
    lat = [latency(n) for n in a.lanes]
    print_latency(lat, *hop_heads)
    heads = ["datapath", "window, per VC", "line", *columns, "payload throughput", "of the line",
             last]
    print("\n| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    rows = []
    for run in runs:
        r = measure(*run)
        rows.append(r)
        print("| " + " | ".join(_CELLS[h](r) for h in heads) + " |", flush=True)
    if a.json:
        a.json.write_text(json.dumps({"card_mhz": CARD_MHZ, **setup, "window": WINDOW,
                                      "vc_buf": VC_BUF, "latency": lat, "throughput": rows},
                                     indent=1) + "\n")
