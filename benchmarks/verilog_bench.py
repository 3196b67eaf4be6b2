"""Verilog back end: compile time, pipeline depth, delay bits, Verilator build time, sim rate.

For every test program of tests/backend_verilog/programs and for the largest core in
cores/ (the D2Q9 LBM step, W=64): spgen compile time (front end + passes + schedule
+ emission), pipeline latency, element delay, delay-line bits with the LP
minimisation and with ASAP scheduling, the Verilator build time and the simulated
elements per second of the C++ cycle loop (unstalled, one stream), per wall-clock
second and per CPU second (the latter is what to compare on a loaded machine).

To spare a shared machine, the test programs are built into ONE Verilator model by
default (the build time is that of the shared model, and every cycle also evaluates
the idle cores, so their rate is a lower bound); ``--separate`` builds each alone.
The LBM core always gets its own build. Builds go to a fresh cache folder so that
build times are real; prints a table and writes JSON.

    .venv/bin/python benchmarks/verilog_bench.py [--n 200000] [--separate] [--json FILE]
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

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((ROOT / "tests" / "backend_verilog" / "programs").glob("*.spd"))
LARGEST = ROOT / "cores" / "lbm" / "lbm_d2q9.spd"


def _inputs(graph, n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    out = {}
    for p in graph.inputs:
        if str(p.type) == "f32":
            out[p.name] = rng.standard_normal(n).astype(np.float32).view(np.uint32)
        else:
            out[p.name] = rng.integers(0, 4, n).astype(np.uint32)
    return out


def _compile(path: Path):
    import spgen

    t = time.perf_counter()
    d = spgen.compile(path)
    core = d.verilog
    return d, core, time.perf_counter() - t


def _row(name, d, core, compile_s, build_s, shared, n, bundle):
    from spgen import _streams
    from spgen.backend.verilog import simulate

    regs = _streams.parse_regs(d.graph, None)
    _, stats = simulate(core, n, _inputs(d.graph, n), regs, bundle=bundle)
    r = core.report
    db = r["delay_bits"]
    return {"program": name, "compile_s": round(compile_s, 3),
            "latency_cycles": r["latency_cycles"], "element_delay": r["element_delay"],
            "operators": r["operators"], "flops_per_element": r["flops_per_element"]["total"],
            "delay_bits_min": db["minimised"]["total"], "delay_bits_asap": db["asap"]["total"],
            "ram_bits_min": db["minimised"]["ram"], "ring_buffers": r["ring_buffers"],
            "verilator_build_s": round(build_s, 1), "shared_build": shared,
            "elements": n, "cycles": stats["cycles"],
            "sim_elements_per_s": round(stats["elements_per_s"]),
            "sim_elements_per_cpu_s": round(stats["elements_per_cpu_s"])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000, help="elements per simulated stream")
    ap.add_argument("--separate", action="store_true", help="one Verilator build per program")
    ap.add_argument("--programs", help="comma-separated subset of the test programs")
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "verilog_bench.json"))
    args = ap.parse_args()
    os.environ["SPGEN_CACHE"] = tempfile.mkdtemp(prefix="spgen-vbench.")
    from spgen.backend.verilog import build

    rows = []
    chosen = set(args.programs.split(",")) if args.programs else None
    compiled = [(p.stem, *_compile(p)) for p in PROGRAMS if not chosen or p.stem in chosen]
    if args.separate:
        for name, d, core, cs in compiled:
            t = time.perf_counter()
            b = build([core])
            rows.append(_row(name, d, core, cs, time.perf_counter() - t, False, args.n, b))
    else:
        t = time.perf_counter()
        b = build([c for _, _, c, _ in compiled])
        bs = time.perf_counter() - t
        rows += [_row(name, d, core, cs, bs, True, args.n, b) for name, d, core, cs in compiled]
    d, core, cs = _compile(LARGEST)
    t = time.perf_counter()
    b = build([core])
    rows.append(_row(f"cores/{LARGEST.parent.name}/{LARGEST.stem}", d, core, cs,
                     time.perf_counter() - t, False, args.n, b))

    hdr = (f"{'program':<22} {'compile s':>9} {'latency':>7} {'elem dly':>8} {'ops':>4} "
           f"{'delay bits min':>14} {'ASAP':>7} {'save %':>6} {'build s':>8} {'Melem/s':>8} {'/cpu-s':>7}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        save = 100.0 * (1 - r["delay_bits_min"] / r["delay_bits_asap"]) if r["delay_bits_asap"] \
            else 0.0
        build_txt = f"{r['verilator_build_s']:.1f}" + ("*" if r["shared_build"] else "")
        print(f"{r['program']:<22} {r['compile_s']:>9.3f} {r['latency_cycles']:>7} "
              f"{r['element_delay']:>8} {r['operators']:>4} {r['delay_bits_min']:>14} "
              f"{r['delay_bits_asap']:>7} {save:>6.1f} {build_txt:>8} "
              f"{r['sim_elements_per_s'] / 1e6:>8.2f} {r['sim_elements_per_cpu_s'] / 1e6:>7.2f}")
    if not args.separate:
        print("* one shared Verilator build of all test programs (its rate is a lower bound)")
    from spgen.backend.verilog import _sim

    out = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                       "python": sys.version.split()[0],
                       "load_average": os.getloadavg()[0]},
           "cxx_opt": _sim._OPT,
           "n": args.n, "separate": args.separate, "rows": rows}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
