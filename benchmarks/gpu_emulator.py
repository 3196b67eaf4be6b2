"""The GPU back end (`spgen emulate --device cuda`) against lbmpy's GPU kernel, one GPU.

For the LBM core (D2Q9, 40-byte cells) and Jacobi-5 on square grids, single steps and
cascades (a launch per step, the default, and temporal blocking in the L2 cache),
M cell-steps per second by
the GPU's clock (CUDA events, data on the device), side by side with lbmpy's generated
CUDA kernel for the same D2Q9 SRT cavity in float32, in the same process and rounds.
The yardstick is the GPU's memory bandwidth (a device-to-device copy, bytes read and
written): one pass over memory per step allows BW / (bytes per cell-step) cells/s.

    python3 benchmarks/gpu_emulator.py [--grids 1024,2048,4096,8192] [--steps 1,4,16]
        [--reps 7] [--only lbm|jacobi] [--out benchmarks/results/gpu_emulator]

Writes OUT.json (every measurement), OUT.md (the tables) and OUT.png (a plot).
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "compiler"))

import emulate_bench  # beside this file: the same lbmpy cavity as on the CPU
import spgen
from spgen import _streams
from spgen.backend import cuda

# bytes one cell-step moves at one pass over memory: read and write the whole record
BYTES = {"lbm_d2q9": 80, "jacobi5": 16}


def _timer(cp, fn, reps: int, calls: int = 1) -> list[float]:
    """Seconds per call by CUDA events, after one warm-up call; ``calls`` calls between
    two events, so that one launch's Python set-up overlaps the previous one's run, as
    in a time loop."""
    fn()
    out = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        for _ in range(calls):
            fn()
        b.record()
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b) / 1e3 / calls)
    return out


def copy_bandwidth(cp) -> float:
    """GB/s of a 1 GiB device-to-device copy, bytes read plus written (median of 5)."""
    a = cp.empty(1 << 28, dtype=cp.float32)
    b = cp.empty_like(a)
    ts = _timer(cp, lambda: cp.copyto(b, a), 5)
    return 2 * a.nbytes / float(np.median(ts)) / 1e9


def _lbm(width: int):
    from spgen.lbm import as_core_input, cavity, compile_core, initial_f, to_records

    d = compile_core(width)
    g = d.graph
    attr = cavity(width, width)
    rec = as_core_input(d, to_records(initial_f(attr), attr))
    n, ins = _streams.check_inputs(g, rec)
    return g, n, ins, _streams.parse_regs(g, {"omega": 1.6, "uw_x": 0.05}), attr


def _jacobi(width: int):
    g = spgen.compile(ROOT / "cores/jacobi5/jacobi5.spd", params={"W": width}).graph
    attr = np.zeros((width, width), np.uint32)
    attr[0, :] = attr[-1, :] = attr[:, 0] = attr[:, -1] = 1
    u = np.random.default_rng(0).random(width * width, dtype=np.float32)
    return g, width * width, {"u": u.view(np.uint32), "attr": attr.ravel()}, \
        _streams.parse_regs(g, None), attr


def lbmpy_gpu(width: int, attr):
    """lbmpy's D2Q9 SRT (compressible) float32 CUDA kernel on the same cavity: a step
    (boundary kernel + stream-collide kernel) and the stream-collide kernel alone."""
    from pystencils import CreateKernelConfig, Target

    lb = emulate_bench.lbmpy_cavity(width, attr, CreateKernelConfig(target=Target.CUDA,
                                                                    default_dtype="float32"))
    lb.pre_run()
    dh = lb.data_handling

    def kernel_only():
        dh.run_kernel(lb._lbmKernels[-1], **lb.kernel_params)
        dh.swap(lb._pdf_arr_name, lb._tmp_arr_name, True)

    return lb.time_step, kernel_only


def bench(core: str, width: int, steps_list, reps: int, with_lbmpy: bool = True
          ) -> list[dict]:
    g, n, ins, regs, attr = (_lbm if core == "lbm_d2q9" else _jacobi)(width)
    prog = cuda.get_program(g, False)
    cp = prog.cp
    dev = [cp.asarray(ins[name]) for name in prog.plan.in_slot]
    fns = {}
    for st in steps_list:
        fns[("spgen GPU", st)] = lambda st=st: prog.run(n, dev, regs, steps=st)
        if st > 1:
            fns[("spgen GPU, L2 blocking", st)] = lambda st=st: prog.run(n, dev, regs, steps=st,
                                                                         blocking=True)
    rows = []
    if core == "lbm_d2q9" and with_lbmpy:
        try:
            step, kern = lbmpy_gpu(width, attr)
            for st in steps_list:
                fns[("lbmpy GPU step", st)] = lambda st=st: [step() for _ in range(st)]
                fns[("lbmpy GPU kernel", st)] = lambda st=st: [kern() for _ in range(st)]
        except Exception as e:  # noqa: BLE001 -- any lbmpy failure: the table says why
            rows.append({"core": core, "grid": width, "impl": "lbmpy GPU", "steps": 0,
                         "error": f"{type(e).__name__}: {e}"})
    times = {k: [] for k in fns}
    for _ in range(3):  # rounds: every implementation in turn, side by side
        for k, fn in fns.items():
            times[k] += _timer(cp, fn, max(1, reps // 3), calls=max(1, 8 // k[1]))
            cp.get_default_memory_pool().free_all_blocks()
    for (impl, st), ts in times.items():
        t = float(np.median(ts))
        rows.append({"core": core, "grid": width, "impl": impl, "steps": st, "n": n,
                     "median_s": t, "min_s": float(min(ts)), "mcells_s": n * st / t / 1e6,
                     "times_s": ts})
    return rows


def tables(rows: list[dict], bw: float) -> str:
    out = []
    for core, nbytes in BYTES.items():
        rs = [r for r in rows if r["core"] == core and "mcells_s" in r]
        if not rs:
            continue
        bound = bw * 1e9 / nbytes / 1e6
        impls = list(dict.fromkeys(r["impl"] for r in rs))
        out += [(f"\n{core}: M cell-steps/s (median); one pass over memory per step allows "
                 f"{bound:,.0f} ({nbytes} B per cell-step at {bw:,.0f} GB/s)\n"),
                "| grid | steps | " + " | ".join(impls) + (
                    " | spgen / lbmpy kernel | spgen / lbmpy step |" if core == "lbm_d2q9"
                    else " |"),
                "|---|---:|" + "---:|" * len(impls) + ("---:|---:|" if core == "lbm_d2q9"
                                                       else "")]
        for grid in sorted({r["grid"] for r in rs}):
            for st in sorted({r["steps"] for r in rs}):
                v = {r["impl"]: r["mcells_s"] for r in rs if r["grid"] == grid
                     and r["steps"] == st}
                cells = [f"{v[i]:,.0f}" if i in v else "" for i in impls]
                line = f"| {grid}² | {st} | " + " | ".join(cells) + " |"
                if core == "lbm_d2q9":
                    f = v.get("spgen GPU")
                    for ref in ("lbmpy GPU kernel", "lbmpy GPU step"):
                        line += f" {f / v[ref]:.2f} |" if f and v.get(ref) else " |"
                out.append(line)
    return "\n".join(out)


def plot(rows: list[dict], bw: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cores = [c for c in BYTES if any(r["core"] == c and "mcells_s" in r for r in rows)]
    fig, axes = plt.subplots(1, len(cores), figsize=(7 * len(cores), 4.5), squeeze=False)
    for ax, core in zip(axes[0], cores):
        rs = [r for r in rows if r["core"] == core and "mcells_s" in r]
        keys = sorted({(r["grid"], r["steps"]) for r in rs})
        impls = list(dict.fromkeys(r["impl"] for r in rs))
        w = 0.8 / len(impls)
        for k, impl in enumerate(impls):
            v = {(r["grid"], r["steps"]): r["mcells_s"] for r in rs if r["impl"] == impl}
            ax.bar([i + k * w for i in range(len(keys))], [v.get(key, 0) for key in keys], w,
                   label=impl)
        ax.axhline(bw * 1e3 / BYTES[core], color="k", ls="--", lw=1,
                   label="one pass over memory per step")
        ax.set_xticks([i + 0.4 - w / 2 for i in range(len(keys))])
        ax.set_xticklabels([f"{g}²\n×{s}" for g, s in keys], fontsize=7)
        ax.set_ylabel("M cell-steps / s")
        ax.set_title(core)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grids", default="1024,2048,4096,8192")
    ap.add_argument("--steps", default="1,4,16")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--only", choices=("lbm", "jacobi"))
    ap.add_argument("--no-lbmpy", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/gpu_emulator"))
    a = ap.parse_args(argv)
    reason = cuda.cuda_unavailable()
    if reason:
        print(f"gpu_emulator: {reason}", file=sys.stderr)
        return 1
    import cupy as cp
    from tqdm import tqdm

    props = cp.cuda.runtime.getDeviceProperties(0)
    bw = copy_bandwidth(cp)
    cores = [c for c in BYTES if a.only is None or c.startswith(a.only)]
    grids = [int(x) for x in a.grids.split(",")]
    steps = [int(x) for x in a.steps.split(",")]
    rows: list[dict] = []
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"gpu": props["name"].decode(), "copy_gbs": bw, "date": time.strftime("%Y-%m-%d"),
            "host": platform.node(), "command": " ".join(sys.argv), "cupy": cp.__version__}
    for core, grid in tqdm([(c, g) for c in cores for g in grids], desc="gpu_emulator"):
        rows += bench(core, grid, steps, a.reps, not a.no_lbmpy)
        out.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    text = (f"{meta['gpu']}, copy bandwidth {bw:,.0f} GB/s, {meta['date']}, "
            f"`{meta['command']}`\n" + tables(rows, bw))
    out.with_suffix(".md").write_text(text + "\n")
    plot(rows, bw, out.with_suffix(".png"))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
