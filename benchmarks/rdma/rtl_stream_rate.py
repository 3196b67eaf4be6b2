"""Line rate of a stream between RDMA nodes (rdma_node with the wide stream endpoints,
rdma_stream_wide) at the card's 200 MHz: one stream of records from card 0 to a card 1 or 3
hops away (a ring of 2 x hops cards), link ports paced at 40 Gb/s (512-bit nodes) or 100 Gb/s
(1024-bit), 200 ns cables, link windows and buffers as the AFU's (tests/rdma/tb_stream_rate.hpp
in tests/rdma/tb_rdma_stream.cpp). Records of 10 words (the LBM record) given as many as fit a
beat a cycle, of 10 words one a cycle (a core's output), and of a full beat; clean, and at a
1e-4 packet error rate with a consumer ready 3 cycles in 4. Prints a table of the payload rate
from the first word given to the last word taken; --json writes the records."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "rdma"))
from test_rdma_rtl_stream import LINES, stream_rate  # the testbench's build and run

WORDS = 120_000  # words per run: 480 KB


def shapes(gbps: int) -> list[tuple[int, int]]:
    """(record words, records a cycle) measured at this line: 10-word records packed into a beat
    and one a cycle (the same on a 512-bit port), and full beats."""
    lanes = LINES[gbps]
    return sorted({(10, lanes // 10), (10, 1), (lanes, 1)})


def measure(gbps: int, hops: int, rec: int, per_cycle: int, per: float, p_out: float) -> dict:
    lanes = LINES[gbps]
    t0 = time.time()
    f = stream_rate(gbps, hops, rec, per_cycle, WORDS // rec, p_out=p_out, per=per)
    assert f["errors"] == 0 and f["stream_errors"] == 0 and f["delivered"] == f["words"], f
    return {"line_gbps": gbps, "lanes": lanes, "hops": hops, "record_words": rec, "records_per_cycle": per_cycle,
            "per": per, "p_out": p_out, "words": f["words"], "cycles": f["cycles"], "flips": f["flips"],
            "gbps": f["gbps_x1000"] / 1000, "of_line": f["line_pct_x1000"] / 100000,
            "wall_s": round(time.time() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rates", type=int, nargs="+", default=sorted(LINES))
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    rows = []
    print("| line | hops | records | PER, consumer ready | payload | of the line | flipped packets |")
    print("|---|---|---|---|---|---|---|")
    for gbps in a.rates:
        for hops in (1, 3):
            for rec, per_cycle in shapes(gbps):
                for per, p_out in ((0.0, 1.0), (1e-4, 0.75)):
                    r = measure(gbps, hops, rec, per_cycle, per, p_out)
                    rows.append(r)
                    recs = f"{r['record_words']} words, {r['records_per_cycle']} a cycle"
                    print(f"| {gbps} Gb/s | {hops} | {recs} | {per:g}, {p_out:g} | {r['gbps']:.2f} Gb/s | "
                          f"{100 * r['of_line']:.1f} % | {r['flips']} |", flush=True)
    if a.json:
        a.json.write_text(json.dumps({"card_mhz": 200, "cable_ns": 200, "words": WORDS, "runs": rows},
                                     indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
