"""What the RTL line-rate benchmarks share (rtl_line_rate.py: link layer and router,
rtl_engine_rate.py: the wide engine): the card's clock, the buffers both size their links
with, and the latency record and table of a 1-hop and a 4-hop run."""
from __future__ import annotations

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
