"""IR clean-up speed: optimize() per pass on the front-end benchmark's 1k/10k/100k-statement programs.

Usage: python benchmarks/passes_bench.py [--sizes 1000 10000 100000] [--json FILE]

Figures are CPU seconds of this thread (`time.thread_time`), meaningful on a shared
machine; the wall-clock total is reported next to them.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from frontend_bench import generate
from spgen.frontend import load_program
from spgen.passes import optimize

PASSES = ("copy", "inline-modules", "fold-constants", "simplify",
          "eliminate-common-subexpressions", "eliminate-dead-code", "renumber", "verify")


def measure(n: int, fast_math: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.spd"
        path.write_text(generate(n))
        program, _ = load_program(path)
    nodes = len(program.top_graph.nodes)
    timings: dict[str, float] = {}
    w0, c0 = time.perf_counter(), time.thread_time()
    out = optimize(program, fast_math=fast_math, timings=timings)
    return {"statements": n, "fast_math": fast_math, "nodes_in": nodes,
            "nodes_out": len(out.nodes), "wall_s": time.perf_counter() - w0,
            "cpu_s": time.thread_time() - c0, **{f"{k}_s": v for k, v in timings.items()}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--json", type=Path, help="write the results as JSON")
    args = ap.parse_args()
    rows = [measure(n, fm) for n in args.sizes for fm in (False, True)]
    cols = ["statements", "fast_math", "nodes_in", "nodes_out", "cpu_s", "wall_s"]
    print("  ".join(f"{c:>12}" for c in cols))
    for r in rows:
        print("  ".join(f"{r[c]:>12.3f}" if isinstance(r[c], float) else f"{r[c]!s:>12}"
                        for c in cols))
    print("\nCPU seconds per pass (fast_math=False):")
    print(f"{'statements':>12}" + "".join(f"{p[:14]:>16}" for p in PASSES))
    for r in rows:
        if not r["fast_math"]:
            print(f"{r['statements']:>12}" + "".join(f"{r.get(p + '_s', 0.0):>16.3f}"
                                                     for p in PASSES))
    if args.json:
        args.json.write_text(json.dumps({
            "benchmark": "passes", "key": ["statements", "fast_math"], "python":
            platform.python_version(), "cpus": os.cpu_count(), "load_avg": os.getloadavg(),
            "unit": "seconds", "records": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
