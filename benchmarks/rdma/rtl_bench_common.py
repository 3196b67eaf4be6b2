"""What the RTL line-rate benchmarks share (rtl_line_rate.py: link layer and router,
rtl_engine_rate.py: the wide engine): the card's clock, the buffers both size their links
with, the latency record and table of a 1-hop and a 4-hop run, their common options, the
throughput table and the JSON record."""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

CARD_MHZ = 200.0
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


# columns both throughput tables have
PACKETS = ("packets", lambda r: f"{r['packet_bytes']} B")
PER = ("PER", lambda r: f"{r['per']:g}")
MIB = ("MiB", lambda r: str(r["mib"]))


def throughput_table(runs: list[tuple], measure: Callable[..., dict],
                     columns: list[tuple[str, Callable[[dict], str]]],
                     last: tuple[str, Callable[[dict], str]]) -> list[dict]:
    """``measure(*run)`` for each run, printed as a Markdown row when it is done: datapath,
    window, line, the ``columns`` (head, cell of a record), throughput, share of the line and
    ``last``; returns the records."""
    cols = [("datapath", lambda r: f"{r['bits']} bits"),
            ("window, per VC", lambda r: f"{r['window']}, {r['vc_buf']}"),
            ("line", lambda r: f"{r['line_gbps']:g} Gb/s"), *columns,
            ("payload throughput", lambda r: f"{r['gbps']} Gb/s"),
            ("of the line", lambda r: f"{100 * r['of_line']:.1f} %"), last]
    print("\n| " + " | ".join(head for head, _ in cols) + " |")
    print("|" + "---|" * len(cols))
    rows = []
    for run in runs:
        r = measure(*run)
        rows.append(r)
        print("| " + " | ".join(cell(r) for _, cell in cols) + " |", flush=True)
    return rows


def write_json(path: Path | None, latency: list[dict], rows: list[dict], **setup: object) -> None:
    """The JSON record of a run (nothing without ``path``): the clock, ``setup``, the buffers,
    the latency and throughput records."""
    if path:
        path.write_text(json.dumps({"card_mhz": CARD_MHZ, **setup, "window": WINDOW, "vc_buf": VC_BUF,
                                    "latency": latency, "throughput": rows}, indent=1) + "\n")
