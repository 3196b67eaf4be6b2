"""Emulator A/B: two checkouts of spgen side by side in one run (before and after a change).

Each checkout runs in its own worker process (its own JIT cache directory, so neither
reuses the other's object code); the parent times both, and lbmpy's generated C kernel
for LBM, in interleaved rounds whose order rotates, so all see the same machine load.
Outputs of the two checkouts are compared bit for bit before any timing. Figures are
million element updates per CPU-second (median over the rounds), one thread.

    .venv/bin/python benchmarks/emulate_ab.py --base ../spgen-old [--grids 64,256,1024]
        [--steps 1,4,16] [--runs 3] [--json benchmarks/results/emulate_ab.json]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see emulate_bench.py

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


# ---- worker: runs with PYTHONPATH=<checkout>/compiler ---------------------------------
def _bench():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import emulate_bench

    return emulate_bench


def _worker() -> int:
    """Answer one JSON request per line: setup a case, or time one emulate call."""
    from spgen.backend.llvm import emulate

    case = None
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "setup":
            make = {"jacobi5": _bench().jacobi_case, "lbm_d2q9": _bench().lbm_case}
            case = make[req["core"]](req["grid"])[:4]
            out = emulate(*case, steps=3)  # JIT outside the timing
            h = hashlib.sha256()
            for name in sorted(out):
                h.update(name.encode() + np.ascontiguousarray(out[name]).tobytes())
            reply = {"bits": h.hexdigest()}
        else:
            t, c = time.perf_counter(), time.process_time()
            emulate(*case, steps=req["steps"], threads=1)
            reply = {"wall": time.perf_counter() - t, "cpu": time.process_time() - c}
        print(json.dumps(reply), flush=True)
    return 0


# ---- parent ---------------------------------------------------------------------------
class _Tree:
    """A worker process running one checkout's spgen."""

    def __init__(self, label: str, tree: Path, cache: Path):
        env = dict(os.environ, PYTHONPATH=str(tree / "compiler"), SPGEN_CACHE=str(cache))
        self.label = label
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, **req) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.label} worker died (see its traceback above)")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def _lbmpy(width: int):
    from spgen.lbm import cavity

    lb = _bench()._lbmpy_step(width, cavity(width, width), 1)

    def run(steps: int) -> dict:
        c = time.process_time()
        lb.run(steps)
        return {"cpu": time.process_time() - c}
    return run


def _rounds(fns: dict, min_rounds: int, min_s: float, budget_s: float) -> dict[str, float]:
    """Median CPU seconds per callable over interleaved rounds (order rotated each round)."""
    cpu = {k: [] for k in fns}
    keys = list(fns)
    t0 = time.perf_counter()
    for r in range(400):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            cpu[k].append(fns[k]()["cpu"])
        spent = time.perf_counter() - t0
        if (r + 1 >= min_rounds and spent > min_s) or (r >= 1 and spent > budget_s):
            break
    return {k: max(float(np.median(v)), 1e-9) for k, v in cpu.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the other checkout (the 'before')")
    ap.add_argument("--new", default=str(ROOT), help="default: this checkout")
    ap.add_argument("--cores", default="lbm_d2q9,jacobi5")
    ap.add_argument("--grids", default="64,256,1024")
    ap.add_argument("--steps", default="1,4,16")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5, help="rounds at least, per measurement")
    ap.add_argument("--no-lbmpy", action="store_true")
    ap.add_argument("--json", default=str(ROOT / "benchmarks/results/emulate_ab.json"))
    a = ap.parse_args(argv)
    grids = [int(x) for x in a.grids.split(",")]
    steps = [int(x) for x in a.steps.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"old": _Tree("old", Path(a.base).resolve(), Path(tmp) / "old"),
                 "new": _Tree("new", Path(a.new).resolve(), Path(tmp) / "new")}
        try:
            for core in a.cores.split(","):
                for w in grids:
                    bits = {k: t.ask(op="setup", core=core, grid=w)["bits"]
                            for k, t in trees.items()}
                    if bits["old"] != bits["new"]:
                        raise SystemExit(f"{core} {w}²: the two checkouts compute different bits")
                    lb = _lbmpy(w) if core == "lbm_d2q9" and not a.no_lbmpy else None
                    for st in steps:
                        fns = {k: (lambda t=t, st=st: t.ask(op="time", steps=st))
                               for k, t in trees.items()}
                        if lb:
                            fns["lbmpy"] = lambda st=st, lb=lb: lb(st)
                        for run in range(a.runs):
                            med = _rounds(fns, a.reps, 1.0, 8.0)
                            row = {"core": core, "grid": w, "steps": st, "run": run,
                                   **{k: w * w * st / v / 1e6 for k, v in med.items()}}
                            rows.append(row)
                            print(f"{core} {w}² x{st} run {run}: old {row['old']:,.0f} "
                                  f"new {row['new']:,.0f} Melem/CPU-s", file=sys.stderr)
        finally:
            for t in trees.values():
                t.close()
    info = {"machine": _bench().cpu_name(), "cpus": len(os.sched_getaffinity(0)),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": " ".join(["benchmarks/emulate_ab.py"] + (argv or sys.argv[1:])),
            "rows": rows}
    Path(a.json).write_text(json.dumps(info, indent=1))
    print(_table(rows))
    return 0


def _table(rows) -> str:
    """Medians over the runs of each (core, grid, steps) and of the ratios."""
    per: dict[tuple, list[dict]] = {}
    for r in rows:
        per.setdefault((r["core"], r["grid"], r["steps"]), []).append(r)
    lb = any("lbmpy" in r for r in rows)
    out = ["| core | grid | steps | old | new | new / old (median, range) |"
           + (" old / lbmpy | new / lbmpy |" if lb else ""),
           "|---|---|---|---:|---:|---:|" + ("---:|---:|" if lb else "")]
    for (core, w, st), rs in per.items():
        med = lambda f, rs=rs: float(np.median([f(r) for r in rs]))
        q = [r["new"] / r["old"] for r in rs]
        line = (f"| {core} | {w}² | {st} | {med(lambda r: r['old']):,.0f} | "
                f"{med(lambda r: r['new']):,.0f} | {np.median(q):.3f} ({min(q):.2f}-{max(q):.2f}) |")
        if "lbmpy" in rs[0]:
            line += (f" {med(lambda r: r['old'] / r['lbmpy']):.2f} |"
                     f" {med(lambda r: r['new'] / r['lbmpy']):.2f} |")
        elif lb:
            line += " | |"
        out.append(line)
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(_worker() if sys.argv[1:] == ["--worker"] else main())
