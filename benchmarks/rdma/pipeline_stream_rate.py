"""A pipeline of cascades across RTL cards at the line-wide stream endpoints' rate: the
10-word-record test core (tests/shell/data/rec10.spd, a cascade of 2 per card, `spgen build
--links 2`: 512-bit link ports) on rings of 2 and 3 cards, one pass of N records from card 0's
host through every card's cascade to the last card's host, lines of 40 and 100 Gb/s. Prints
per run the cycles, each card's first-core stall rate beside the link model's bound
(1 - 255/258 x line / 64 Gb/s), the links' utilisation and whether the output equals the
emulator's bit for bit.

    python benchmarks/rdma/pipeline_stream_rate.py [--records N] [--build DIR]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import spgen
from spgen.runtime import rdma

REC10 = Path(__file__).resolve().parents[2] / "tests" / "shell" / "data" / "rec10.spd"


def _bits(a: np.ndarray) -> np.ndarray:
    return np.stack([np.asarray(a[k]).view(np.uint32) for k in a.dtype.names])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=20000)
    ap.add_argument("--build", type=Path, help="the card's build folder (default: built in a temporary one)")
    a = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp())
    build = a.build or tmp / "rec10"
    spgen.build(REC10, build, cascade=2, links=2)   # cached by content; an older tree's folder is rebuilt
    d = spgen.compile(REC10)
    rng = np.random.default_rng(1)
    x = np.zeros(a.records, dtype=d.input_dtype())
    for name in x.dtype.names:
        kind = x.dtype[name].kind
        x[name] = rng.standard_normal(a.records).astype(np.float32) if kind == "f" else rng.integers(0, 1 << 20, a.records)
    print("| line | cards | cycles | stall at each card's first core | link model's stall | link utilisation | exact |")
    print("|---|---|---:|---|---:|---|---|")
    for gbps in (40.0, 100.0):
        for cards in (2, 3):
            spec = tmp / f"ring{cards}_{gbps:g}.json"
            spec.write_text(json.dumps({"topology": "ring", "dims": [cards], "card": str(build),
                                        "line_rate_gbps": gbps}))
            cl = rdma.cluster(spec)
            for c in range(cards):
                cl[c].write_reg("k", 0.75)
            y, run = cl.pipeline(list(range(cards)), x, passes=1)
            exact = np.array_equal(_bits(y), _bits(d.emulate(x, regs={"k": 0.75}, steps=2 * cards)))
            bound = max(0.0, 1 - 255 / 258 * gbps / 64)
            stalls = " / ".join(f"{100 * s:.1f} %" for s in run.stall_rates)
            util = " / ".join(f"{u:.3f}" for u in run.link_utilisation)
            print(f"| {gbps:g} Gb/s | {cards} | {run.cycles:,} | {stalls} | {100 * bound:.1f} % | {util} | "
                  f"{'yes' if exact else 'NO'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
