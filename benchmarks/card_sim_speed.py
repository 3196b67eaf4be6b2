"""Card simulation speed: the D2Q9 LBM card with RTL cores vs the fast core model.

For each cascade depth, builds the card of ``spgen build cores/lbm/lbm_d2q9.spd -P W=..
--cascade N`` with ``--core-model rtl`` and ``fast`` (cached like ``spgen bench lbm``;
the build time is printed, and is a real build with ``--fresh-cache``), then times F2F
runs of one grid through both cards side by side, alternating the models run by run
(after one uncounted run per card).
A model named ``fast:plain`` or ``rtl:plain`` is the same card evaluated without the card
library's shortcuts (SPGEN_CARD_EVAL=plain: every evaluation through Verilator's eval(),
as before them), for before/after figures in one run; ``--baseline DIR`` measures the
cards of another checkout as well (its compiler, runtime and shell; rows MODEL:base).
``--jobs N`` handles N depths at once (builds side by side on all CPUs, then each depth
measured on a CPU of its own).
Figures per run: simulated card cycles per wall second and per CPU second of the
process (the clock thread; the host thread sleeps meanwhile), the run's own cycles
(its OUT_TOTAL_CYCLES counter) per CPU second, which idle cycles of a loaded machine
do not inflate, records per wall second; the table gives medians. Every run's output is checked against the emulator.
(The runtime's card takes host MMIO at the cycle it arrives, so run counters can
differ by a few cycles between runs; tests/runtime/test_fast_core.py compares the
models cycle for cycle with a deterministic driver.)

    .venv/bin/python benchmarks/card_sim_speed.py [--cascade 1,2,4,8,12] [--models fast,rtl]
        [--rtl-cascade N,..] [--grid 32x410] [--runs 3] [--cpu 0] [--jobs 1] [--baseline DIR]
        [--fresh-cache]
        [--json F] [--plot F] | --merge F.json ...
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

# One BLAS thread: OpenBLAS's pool spins for a while after each call (the emulator's
# check uses numpy), and its threads' CPU time would count in the timed calls.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np
from machine import cpu_name

ROOT = Path(__file__).resolve().parent.parent
B = 1 << 32
OMEGA, UW = 1.6, (0.05, 0.0)  # the Regs of every run


def _child_cpu() -> float:
    """CPU seconds of finished child processes (Verilator, make, the C++ compiler); with
    the process's own (compiling the core and its kernel) the build's cost on an idle
    machine, whatever the load."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


@contextlib.contextmanager
def _fresh_cache(fresh: bool):
    """With `fresh`, the build runs in an empty SPGEN_CACHE of its own (its time is a
    first build's: kernel, lint, Verilator's library, the card) that is removed after.
    Yields `keep`, which copies a build folder to a folder of this process's own
    (runtime.open loads the card library from the build folder): the LBM bench folders
    are one per depth and model in the cache, and another process's build (a
    --baseline child's, of other sources) replaces the folder."""
    def keep(build: Path) -> Path:
        return Path(shutil.copytree(build, Path(tempfile.mkdtemp(prefix="spgen-card-")) / build.name))
    if not fresh:
        yield keep
        return
    old = os.environ.get("SPGEN_CACHE")
    tmp = tempfile.mkdtemp(prefix="spgen-cache-")
    os.environ["SPGEN_CACHE"] = tmp
    try:
        yield keep
    finally:
        if old is None:
            os.environ.pop("SPGEN_CACHE")
        else:
            os.environ["SPGEN_CACHE"] = old
        shutil.rmtree(tmp, ignore_errors=True)


def _open(build: Path, mode: str):
    """The card of `build`, opened with SPGEN_CARD_EVAL=`mode`, its Regs set for the runs."""
    from spgen import runtime

    with _eval_mode(mode):
        card = runtime.open(build)
    for name, value in (("omega", OMEGA), ("uw_x", UW[0]), ("uw_y", UW[1])):
        card.write_reg(name, float(value))
    return card


def _run_once(card, rec, want) -> dict:
    """One F2F run of the grid through `card`, timed around the run call; its output is
    checked against `want` (the emulator's grid)."""
    from spgen.lbm import from_records

    n = len(rec)
    buf = card.alloc(rec.nbytes)
    buf[:] = rec.view(np.uint8)
    card.dma(0x40, buf, rec.nbytes, "H2F")     # (streams through the cores too)
    s0, c0, w0 = card.sim_stats(), time.process_time(), time.perf_counter()
    res = card.run(0x40, B + 0x1000, n)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    s1 = card.sim_stats()
    back = card.alloc(rec.nbytes)
    card.dma(back, B + 0x1000, rec.nbytes, "F2H")
    got = from_records(back.view(rec.dtype), want.shape[-1])[0]
    return {"cycles": s1["cycles"] - s0["cycles"], "wall_s": wall, "cpu_s": cpu,
            "sim_wall_s": s1["wall_s"] - s0["wall_s"], "records": n,
            "counters": [res.in_total_cycles, res.in_moved_cycles, res.total_cycles,
                         res.moved_cycles, res.prime_cycles],
            "verified": bool(np.array_equal(got.view(np.uint32), want.view(np.uint32)))}


class _Baseline:
    """A model measured with the card of another checkout (its compiler first on
    PYTHONPATH, which generates the fast core's wrapper, its runtime/ and shell/ through
    SPGEN_ROOT): this script in a child process on the same CPU (one process loads one
    runtime), which answers each request with one run, so the two alternate run by run.
    Between its runs the child is stopped (SIGSTOP): an earlier runtime may clock an idle
    card without end."""

    def __init__(self, root: Path, depth: int, model: str, args: argparse.Namespace, cpu: int):
        import subprocess

        cmd = [sys.executable, __file__, "--serve", f"{depth}:{model}", "--grid", args.grid,
               "--cpu", str(cpu)] + (["--fresh-cache"] if args.fresh_cache else [])
        root = root.resolve()
        path = os.pathsep.join(filter(None, [str(root / "compiler"), os.environ.get("PYTHONPATH")]))
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=dict(os.environ, SPGEN_ROOT=str(root), PYTHONPATH=path))
        self.built = self._reply()
        os.kill(self.proc.pid, __import__("signal").SIGSTOP)

    def _reply(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the baseline process ({' '.join(self.proc.args)}) ended")
        return json.loads(line)

    def run(self) -> dict:
        import signal

        os.kill(self.proc.pid, signal.SIGCONT)
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        reply = self._reply()
        os.kill(self.proc.pid, signal.SIGSTOP)
        return reply

    def close(self) -> None:
        import signal

        os.kill(self.proc.pid, signal.SIGCONT)
        self.proc.stdin.close()
        self.proc.wait()


def _serve(args: argparse.Namespace) -> int:
    """--serve DEPTH:MODEL: builds the card, prints its build times as a JSON line, then
    answers each "run" line of stdin with one run's figures (_Baseline's other end)."""
    depth, _, model = args.serve.partition(":")
    rec, want = _grid_and_want(args.grid, int(depth))
    build, built = _build(int(args.grid.lower().split("x")[0]), int(depth), model, args.fresh_cache)
    os.sched_setaffinity(0, {args.cpu})
    card = _open(build, "")
    _run_once(card, rec, want)  # a first run warms the card (not counted)
    print(json.dumps({"build_s": built[0], "build_cpu_s": built[1]}), flush=True)
    for line in sys.stdin:
        if line.strip() == "run":
            print(json.dumps(_run_once(card, rec, want)), flush=True)
    card.close()
    return 0


def _grid_and_want(grid: str, depth: int):
    """The grid's records and the emulator's grid after the 3 x depth steps of a call."""
    from spgen.lbm import compile_core, run_emulator, to_records
    from spgen.lbm._grid import perturbed_cavity

    width, rows = (int(x) for x in grid.lower().split("x"))
    f, attr = perturbed_cavity(width, rows, seed=7)
    want = run_emulator(compile_core(width), f, attr, steps=3 * depth, omega=OMEGA, uw=UW)
    return to_records(f, attr), want


def _build(width: int, depth: int, model: str, fresh: bool) -> tuple[Path, tuple[float, float]]:
    """The LBM card of this depth and core model, and its build's (wall s, CPU-s)."""
    from spgen.commands._bench_lbm import build_card
    from spgen.lbm import CORE_PATH

    t0, c0 = time.perf_counter(), _child_cpu() + time.process_time()
    with _fresh_cache(fresh) as keep:
        build = keep(build_card(CORE_PATH, width, depth, model))
    return build, (time.perf_counter() - t0, _child_cpu() + time.process_time() - c0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cascade", default="1,2,4,8,12")
    ap.add_argument("--models", default="fast,rtl",
                    help="card models, measured alternately: fast, rtl, fast:plain, rtl:plain")
    ap.add_argument("--rtl-cascade", metavar="N,N,...",
                    help="depths that also run with RTL cores (default: all); building the "
                         "RTL cards of deep cascades takes tens of minutes on two cores")
    ap.add_argument("--grid", default="32x410", help="W x rows of the streamed grid")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cpu", type=int, help="pin the process to this CPU (default: the "
                    "first one it may use)")
    ap.add_argument("--jobs", type=int, default=1, metavar="N",
                    help="handle up to N cascade depths at once, each in a process of its "
                         "own: its cards built beside the others' (on all CPUs), then "
                         "measured pinned to a CPU of its own (--cpu and the next ones)")
    ap.add_argument("--baseline", type=Path, metavar="DIR",
                    help="also measure each model with the compiler, runtime and shell of "
                         "the checkout DIR (e.g. an earlier revision's tree), rows MODEL:base, "
                         "run by run alternately with this checkout's, on the same CPU")
    ap.add_argument("--fresh-cache", action="store_true",
                    help="build each card in an empty SPGEN_CACHE of its own, so build "
                         "times are those of a first build")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--plot", type=Path)
    ap.add_argument("--merge", type=Path, nargs="+", metavar="JSON",
                    help="measure nothing: print the table of these result files (also "
                         "partial ones of interrupted runs) and write --json/--plot from them")
    ap.add_argument("--serve", help=argparse.SUPPRESS)  # DEPTH:MODEL, for --baseline (_Baseline)
    args = ap.parse_args()
    if args.merge:
        return _merge(args)
    if args.serve:
        return _serve(args)
    depths = [int(x) for x in args.cascade.split(",")]
    all_models = args.models.split(",")
    rtl_depths = set(depths if not args.rtl_cascade else
                     (int(x) for x in args.rtl_cascade.split(",")))
    tasks = [(d, [m for m in all_models if not m.startswith("rtl") or d in rtl_depths]) for d in depths]
    cpus = sorted(os.sched_getaffinity(0))
    cpu = args.cpu if args.cpu is not None else cpus[0]
    results: list[dict] = []
    if args.jobs <= 1:
        for depth, models in tasks:
            results += _depth_rows(depth, models, args, cpu)
            if args.json:  # partial results survive an interrupted run
                args.json.write_text(json.dumps({"partial": True, "results": results}, indent=2))
    else:
        # Deepest first: their builds take longest. Each cascade measures on a CPU of its
        # own; the builds beside share all CPUs, each compiling its model in a few units.
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # A deep cascade's RTL model is the largest C++ to compile: each depth compiles
        # its models in units (SPGEN_BUILD_JOBS) in proportion to its share of the cores.
        tasks.sort(key=lambda t: -t[0])
        workers = min(args.jobs, len(tasks))
        pinned = [cpu] + [c for c in cpus if c != cpu]
        total = sum(d for d, _ in tasks)
        # builds stay off the CPUs that measure (where there are CPUs enough)
        builders = set(cpus) - set(pinned[:workers]) or set(cpus)
        import multiprocessing

        free = multiprocessing.Queue()
        for i in range(workers):
            free.put(pinned[i % len(pinned)])
        with ProcessPoolExecutor(max_workers=workers, initializer=_claim_cpu, initargs=(free,)) as pool:
            futs = [pool.submit(_depth_rows, d, ms, args, None,
                                max(2, round(len(builders) * d / total)), builders)
                    for d, ms in tasks]
            for fut in as_completed(futs):
                results += fut.result()
                results.sort(key=lambda r: (r["cascade"], r["model"]))
                if args.json:
                    args.json.write_text(json.dumps({"partial": True, "results": results}, indent=2))
    all_models = list(dict.fromkeys(r["model"] for r in results))
    _table(results, all_models)
    meta = {"benchmark": "card_sim_speed", "cpu": cpu_name(), "pinned_cpu": cpu, "jobs": args.jobs,
            "cpus_online": os.cpu_count(), "load_avg": os.getloadavg(), "grid": args.grid,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": " ".join(sys.argv), "results": results}
    if args.json:
        args.json.write_text(json.dumps(meta, indent=2) + "\n")
    if args.plot:
        _plot(results, all_models, args.plot)
    ok = all(r["verified"] for r in results)
    return 0 if ok else 1


@contextlib.contextmanager
def _eval_mode(mode: str):
    """SPGEN_CARD_EVAL for the cards opened inside (read when a card is created):
    ``plain`` evaluates every call of the card library through Verilator's eval(), as
    before its shortcuts (runtime/sim/card/afu_card.cpp); "" uses them."""
    old = os.environ.pop("SPGEN_CARD_EVAL", None)
    if mode:
        os.environ["SPGEN_CARD_EVAL"] = mode
    try:
        yield
    finally:
        os.environ.pop("SPGEN_CARD_EVAL", None)
        if old is not None:
            os.environ["SPGEN_CARD_EVAL"] = old


_worker_cpu = 0  # the CPU a --jobs worker process measures on


def _claim_cpu(free) -> None:
    global _worker_cpu
    _worker_cpu = free.get()


def _depth_rows(depth: int, models: list[str], args: argparse.Namespace, cpu: int | None,
                build_jobs: int = 0, build_cpus: set[int] | None = None) -> list[dict]:
    """Builds the cards of one cascade depth (on `build_cpus`, default every CPU;
    `build_jobs` compiler processes for a large model), then pins this process to `cpu`
    (a worker's own CPU if None) and runs the grid through them alternately; one result
    row per model."""
    cpu = _worker_cpu if cpu is None else cpu
    if build_jobs:
        os.environ["SPGEN_BUILD_JOBS"] = str(build_jobs)
    if build_cpus:
        os.sched_setaffinity(0, build_cpus)
    rec, want = _grid_and_want(args.grid, depth)
    width = int(args.grid.lower().split("x")[0])
    builds, built, base = {}, {}, {}
    for m in dict.fromkeys(m.partition(":")[0] for m in models):
        builds[m], built[m] = _build(width, depth, m, args.fresh_cache)
        print(f"cascade {depth:2d} {m:4s}: card built in {built[m][0]:.1f} s "
              f"({built[m][1]:.1f} CPU-s)", file=sys.stderr, flush=True)
        if args.baseline:
            base[m + ":base"] = _Baseline(args.baseline, depth, m, args, cpu)
            built[m + ":base"] = (base[m + ":base"].built["build_s"], base[m + ":base"].built["build_cpu_s"])
    models = [*models, *base]
    free = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})           # the card's clock thread inherits it
    cards = {m: _open(builds[m.partition(":")[0]], m.partition(":")[2]) for m in models if m not in base}
    runs: dict[str, list[dict]] = {m: [] for m in models}
    try:
        for card in cards.values():
            _run_once(card, rec, want)       # a first run warms the card (not counted)
        for r in range(args.runs):
            for m in (models if r % 2 == 0 else models[::-1]):
                runs[m].append(base[m].run() if m in base else _run_once(cards[m], rec, want))
    finally:
        for c in [*cards.values(), *base.values()]:
            c.close()
        os.sched_setaffinity(0, free)        # the next depth's builds use every CPU
    rows_out = []
    for m in models:
        xs = runs[m]
        b = built.get(m) or built[m.partition(":")[0]]
        rows_out.append({
            "cascade": depth, "model": m, "build_s": round(b[0], 1), "build_cpu_s": round(b[1], 1),
            "records": len(rec), "cycles": xs[0]["cycles"], "cpu": cpu,
            "verified": all(x["verified"] for x in xs),
            "cycles_per_s": statistics.median(x["cycles"] / x["wall_s"] for x in xs),
            "cycles_per_cpu_s": statistics.median(x["cycles"] / x["cpu_s"] for x in xs),
            "run_cycles_per_cpu_s": _run_cycles_per_cpu_s(xs),
            "records_per_s": statistics.median(x["records"] / x["wall_s"] for x in xs),
            "runs": xs})
    return rows_out


def _merge(args: argparse.Namespace) -> int:
    """Results of several runs (each cascade and model once, the last file winning) as one."""
    runs = [json.loads(f.read_text()) for f in args.merge]
    rows = {(r["cascade"], r["model"]): r for d in runs for r in d["results"]}
    results = [rows[k] for k in sorted(rows, key=lambda k: (k[0], k[1] != "rtl"))]
    models = sorted({m for _, m in rows}, key=lambda m: m != "fast")
    _table(results, models)
    meta = {"benchmark": "card_sim_speed", "merged": [
        {k: d.get(k) for k in ("command", "date", "cpu", "load_avg", "partial")} | {"file": str(f)}
        for f, d in zip(args.merge, runs)], "results": results}
    if args.json:
        args.json.write_text(json.dumps(meta, indent=2) + "\n")
    if args.plot:
        _plot(results, models, args.plot)
    return 0 if all(r["verified"] for r in results) else 1


def _run_cycles_per_cpu_s(runs: list[dict]) -> float:
    """The run's own length (its OUT_TOTAL_CYCLES counter) per CPU second of the call: a
    lower bound of the card's speed that idle cycles do not inflate (the card clocks by
    the host's wall time between requests, so a loaded machine adds idle cycles, which
    cost less than a streaming one, to the call)."""
    return statistics.median(x["counters"][2] / x["cpu_s"] for x in runs)


def _table(results: list[dict], models: list[str]) -> None:
    print("| cascade | model | card build s (wall) | build CPU-s | card cycles/s (wall) | cycles per CPU-s | "
          "run cycles per CPU-s | records/s (wall) | cycles per run | vs RTL (CPU-s) | vs before (run) "
          "| verified |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    base = {r["cascade"]: r for r in results if r["model"] == "rtl"}
    rows = {(r["cascade"], r["model"]): r for r in results}
    for r in results:
        b = base.get(r["cascade"])
        up = f"{r['cycles_per_cpu_s'] / b['cycles_per_cpu_s']:.1f}x" if b else "-"
        # the same model before: another checkout's (MODEL:base) or without the shortcuts
        old = rows.get((r["cascade"], r["model"] + ":base")) or rows.get((r["cascade"], r["model"] + ":plain"))
        gain = f"{_run_cycles_per_cpu_s(r['runs']) / _run_cycles_per_cpu_s(old['runs']):.2f}x" if old else "-"
        print(f"| {r['cascade']} | {r['model']} | {r['build_s']:.1f} | "
              f"{r.get('build_cpu_s', float('nan')):.1f} | {r['cycles_per_s']:,.0f} | "
              f"{r['cycles_per_cpu_s']:,.0f} | {_run_cycles_per_cpu_s(r['runs']):,.0f} | "
              f"{r['records_per_s']:,.0f} | {r['cycles']:,} | "
              f"{up} | {gain} | {'yes' if r['verified'] else 'NO'} |")


def _plot(results: list[dict], models: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4))
    for m in models:
        rs = [r for r in results if r["model"] == m]
        ax.plot([r["cascade"] for r in rs], [r["cycles_per_cpu_s"] for r in rs], "o-",
                label=f"{m} cores")
    ax.axhline(1e6, color="grey", ls="--", lw=0.8, label="goal: 1 M cycles/s")
    ax.set_yscale("log")
    ax.set_xlabel("LBM cores in the cascade")
    ax.set_ylabel("simulated card cycles per CPU second")
    ax.set_title("Simulated LBM card: RTL cores vs fast core model")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
