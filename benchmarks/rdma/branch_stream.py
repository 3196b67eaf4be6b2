"""Branch-stream throughput across a link: card 0's core (core_a, a two-port Brch_Out) feeds
card 1's core (core_b, a two-port Brch_In) over one link of a ring of two RTL cards, each
card fed and drained by its host DMA (Cluster.run_cores). Per scenario: branch words per
cycle of the run, the branch stream's stall rate (cycles it held a word without credit /
cycles), the first core's input stall rate on both cards, cycles; every output checked
against the emulator of the joined program. Writes a table (stdout) and JSON.

    python benchmarks/rdma/branch_stream.py [--elements N] [--json out.json] [--builds DIR]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import spgen
from spgen.runtime import rdma

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "branch_across_cards"  # the two cores, joined

SCENARIOS = [  # name, cluster-file faults, host chunking (max_chunk, max_gap)
    ("free-running", None, (0, 0)),
    ("PER 1e-3 (every cable)", {"per": 1e-3}, (0, 0)),
    ("2 % flips + 2 % drops", {"per": 0.02, "drop": 0.02}, (0, 0)),
    ("host back-pressure (chunks <= 64, gaps <= 2000 cycles)", None, (64, 2000)),
]


def builds(folder: Path) -> dict[str, Path]:
    """The two cards (spgen build caches the simulated cards by content)."""
    out = {}
    for name in ("a", "b"):
        out[name] = folder / f"core_{name}"
        with contextlib.redirect_stdout(sys.stderr):  # the table alone on stdout
            spgen.build(EXAMPLE / f"core_{name}.spd", out[name], links=2)
    return out


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.6))
    names = [r["scenario"].split(" (")[0] for r in rows]
    xs = np.arange(len(rows))
    for i, (key, label) in enumerate((("words_per_cycle", "branch words / cycle"),
                                      ("branch_stall_rate", "branch stall rate (no credit)"),
                                      ("core_a_input_stall_rate", "core_a input stall rate"))):
        ax.bar(xs + (i - 1) * 0.27, [r[key] for r in rows], 0.27, label=label)
    ax.axhline(15 / 18, color="gray", linestyle="--", linewidth=1)
    ax.text(-0.45, 15 / 18 + 0.02, "link limit: 15 data words in 18", fontsize=8, color="gray")
    ax.set_xticks(xs, names, fontsize=8)
    ax.set_ylim(0, 1.3)
    ax.set_title("Branch stream core_a (card 0) -> core_b (card 1) over one link, RTL cards", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=20000)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--plot", type=Path, help="bar chart of words per cycle and stall rates (PNG)")
    ap.add_argument("--builds", type=Path, default=Path("build"), help="folder of the two card builds")
    args = ap.parse_args(argv)
    b = builds(args.builds)
    both = spgen.compile(EXAMPLE / "both.spd")
    n = args.elements
    rng = np.random.default_rng(1)
    x = np.zeros(n, dtype=[("x", np.float32), ("u", np.float32)])
    x["x"], x["u"] = rng.standard_normal(n), rng.standard_normal(n)
    want = both.emulate(x)
    a_in, b_in = np.zeros(n, dtype=[("x", np.float32)]), np.zeros(n, dtype=[("u", np.float32)])
    a_in["x"], b_in["u"] = x["x"], x["u"]
    rows = []
    for name, faults, (chunk, gap) in SCENARIOS:
        cl = rdma.cluster({"topology": "ring", "dims": [2], "builds": {"0": str(b["a"]), "1": str(b["b"])},
                           "branches": [{"from": 0, "to": 1}], **({"faults": faults} if faults else {})})
        t0 = time.perf_counter()
        out, run = cl.run_cores({0: a_in, 1: b_in}, max_chunk=chunk, max_gap=gap, seed=3)
        wall = time.perf_counter() - t0
        exact = bool(np.array_equal(out[1]["v"].view(np.uint32), want["v"].view(np.uint32)) and
                     np.array_equal(out[0]["y"].view(np.uint32), want["y"].view(np.uint32)))
        s = cl.stats()
        rows.append({"scenario": name, "elements": n, "branch_words": run.stats[0]["stream_tx_words"],
                     "cycles": run.cycles, "words_per_cycle": round(run.stream_words_per_cycle[0], 4),
                     "branch_stall_rate": round(run.stream_stall_rates[0], 4),
                     "core_a_input_stall_rate": round(run.stall_rates[0], 4),
                     "core_b_input_stall_rate": round(run.stall_rates[1], 4),
                     "dropped": s.get("dropped", 0), "corrupted": s.get("corrupted", 0),
                     "exact": exact, "wall_s": round(wall, 1)})
    head = f"{'scenario':<56} {'words/cycle':>11} {'stall rate':>10} {'A in-stall':>10} {'B in-stall':>10} {'cycles':>9} exact"
    print(head)
    for r in rows:
        print(f"{r['scenario']:<56} {r['words_per_cycle']:>11.3f} {r['branch_stall_rate']:>10.3f} "
              f"{r['core_a_input_stall_rate']:>10.3f} {r['core_b_input_stall_rate']:>10.3f} {r['cycles']:>9} {r['exact']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    if args.plot:
        plot(rows, args.plot)
    return 0 if all(r["exact"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
