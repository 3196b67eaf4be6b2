"""`spgen bench lbm`: D2Q9 cascades on the simulated card: throughput, stall rate, GFLOPS."""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from .._afu_build import build
from .._diagnostics import SpgenError
from .._plotting import finish_axes, pyplot, save
from ..lbm._cards_common import RECORD_BYTES
from ..lbm._grid import perturbed_cavity
from ..shellgen import card_clock_mhz

__all__ = [
    "CLOCK_HZ",
    "HELP",
    "PUBLISHED",
    "add_arguments",
    "build_card",
    "run",
    "stall_fit",
]

HELP = ("LBM throughput, stall rate and effective GFLOPS through cascades of the D2Q9 core "
        "on the simulated card, verified against the emulator.")
CLOCK_HZ = card_clock_mhz() * 1e6
# Sano & Yamamoto (RIKEN) on the Intel PAC (REFERENCE.md), quoted beside our figures.
PUBLISHED = {"flops_per_cell": 131, "stages": 830, "gflops_per_core": 26.2,
             "stall_rate_max": 0.0003, "stall_size_bytes": 524_160}
_MEM_B = 1 << 32


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cascade", default="1,2", metavar="N,N,...",
                   help="cascade depths to build and run (default 1,2; published: 1,2,4,8,12)")
    p.add_argument("--grid", default="32x410", metavar="WxH",
                   help="grid width (the core's Param W) and height of the largest transfer "
                        "(default 32x410: 524,800 B, just above the published 524,160 B)")
    p.add_argument("--sizes", nargs="+", metavar="BYTES",
                   help="transfer sizes in bytes, each rounded up to whole grid rows "
                        "(default: 4 sizes from 8 rows to the --grid height)")
    p.add_argument("--omega", type=float, default=1.6, help="relaxation rate (default 1.6)")
    p.add_argument("--hard-fp", action="store_true",
                   help="cores with f32 add, sub and mul in FP DSP blocks (spgen build "
                        "--hard-fp), verified against the emulator in --ftz mode")
    p.add_argument("--core-model", choices=("fast", "rtl"), default="fast",
                   help="core model of the simulated cards (default fast: cycle-identical to "
                        "the RTL, see spgen build --core-model)")
    p.add_argument("--json", type=Path, help="write the results as JSON")
    p.add_argument("--plot", type=Path, help="plot throughput and stall rate against size (PNG)")
    p.add_argument("--resources", action="store_true",
                   help="only map the AFU of each cascade depth onto Arria 10 ALMs with Yosys "
                        "and compare with the published resources (no simulation; docs/fit.md)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    g = p.add_argument_group("across cards (a cluster of RTL cards with 2 links each, docs/lbm.md)")
    g.add_argument("--cards", metavar="N,N,...",
                   help="card counts, e.g. 1,2,4,8: run the grid across a line of simulated cards "
                        "(--grid: the whole grid for strong scaling, the rows per card for weak)")
    g.add_argument("--mode", choices=("slabs", "pipeline"), default="slabs",
                   help="slabs: each card a slab of rows, halos exchanged by RDMA after every pass "
                        "(default); pipeline: the record stream card to card")
    g.add_argument("--link-gbps", default="40", metavar="G,G",
                   help="line rates of the links to measure, e.g. 40,100 (default 40)")
    g.add_argument("--scaling", default="strong,weak", metavar="S,S",
                   help="strong (one grid), weak (rows per card fixed), or both (default)")
    g.add_argument("--passes", type=int, default=8,
                   help="passes through each card's cascade: steps = passes x C (default 8)")
    g.add_argument("--ranks", type=int, metavar="K",
                   help="slabs only: simulate the cards in K MPI processes (mpirun; at most one per card, "
                        "min(K, cards) for each run); every K gives the same grid and cycles")


def _parse(args: argparse.Namespace) -> tuple[list[int], int, list[int]]:
    try:
        depths = sorted({int(x) for x in str(args.cascade).split(",") if x.strip()})
    except ValueError:
        raise SpgenError(f"--cascade '{args.cascade}': expected depths like 1,2,4") from None
    if not depths or any(not 1 <= d <= 64 for d in depths):
        raise SpgenError(f"--cascade '{args.cascade}': depths must be 1..64")
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", args.grid)
    if not m or int(m.group(1)) < 3 or int(m.group(2)) < 3:
        raise SpgenError(f"--grid '{args.grid}': expected WxH with W, H >= 3, e.g. 32x410")
    w, h = int(m.group(1)), int(m.group(2))
    row = w * RECORD_BYTES
    if args.sizes:
        rows = []
        for s in args.sizes:
            if not s.isdigit() or int(s) <= 0:
                raise SpgenError(f"--sizes: '{s}' is not a positive byte count")
            rows.append(max(3, -(-int(s) // row)))
    else:
        rows = sorted({max(3, r) for r in (8, h // 16, h // 4, h)})
    return depths, w, sorted(set(rows))


def build_card(core_path: Path, width: int, depth: int, model: str = "fast", links: int = 0,
               hard_fp: bool = False) -> Path:
    """`spgen build` of the core for this cascade depth (its simulated card is cached by
    content); ``model``: the card's core model (``--core-model``); ``links``: RDMA link
    ports (``--links``, for clusters of cards); ``hard_fp``: ``--hard-fp``."""
    from .._tools import cache_dir, locked

    out = cache_dir("bench_lbm") / (f"W{width}_c{depth}" + ("" if model == "rtl" else f"_{model}")
                                    + (f"_l{links}" if links else "") + ("_hfp" if hard_fp else ""))
    # Build beside, then swap folders: a card library still loaded in this process
    # must never be overwritten in place (renaming and unlinking it are safe). The lock
    # keeps two processes (pytest workers) from swapping the same folder at once.
    with locked(out.with_name(out.name + ".lock")):
        stage = out.with_name(f"{out.name}.new-{os.getpid()}")
        shutil.rmtree(stage, ignore_errors=True)
        try:
            build(core_path, stage, params={"W": width}, cascade=depth, core_model=model,
                  links=links, hard_fp=hard_fp)
        except SpgenError:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        retired = out.with_name(f"{out.name}.old-{os.getpid()}")
        if out.exists():
            os.replace(out, retired)
        os.replace(stage, out)
        shutil.rmtree(retired, ignore_errors=True)
    return out


_build = build_card  # the name the LBM tests use


def _measure(card, design, width: int, rows: int, depth: int, regs: dict, flops: int) -> dict:
    """One F2F run A -> cores -> B, timed by the card; verified against the emulator.

    With cores built in, every transfer streams through them (shell.md), so the
    host's grid reaches memory A after ``depth`` steps (H2F), the timed F2F run adds
    ``depth`` more and the read-back (F2H) another ``depth``: the host compares
    3 x depth emulated steps, which checks all three passes bit for bit.
    """
    from ..lbm import from_records, run_emulator, to_records

    f, attr = perturbed_cavity(width, rows, seed=rows * 131 + depth)
    rec = to_records(f, attr)
    n = len(rec)
    nbytes = rec.nbytes
    buf = card.alloc(nbytes)
    buf[:] = rec.view(np.uint8)
    back = card.alloc(nbytes)
    card.dma(0x40, buf, nbytes, "H2F")
    res = card.run(0x40, _MEM_B + 0x1000, n)
    card.dma(back, _MEM_B + 0x1000, nbytes, "F2H")
    got = from_records(back.view(rec.dtype), width)[0]
    want = run_emulator(design, f, attr, steps=3 * depth, **regs)
    ok = bool(np.array_equal(got.view(np.uint32), want.view(np.uint32)))
    secs = res.elapsed_ns * 1e-9
    eff = flops * n * depth / secs / 1e9 if secs > 0 else 0.0
    peak = flops * depth * CLOCK_HZ / 1e9
    # the cores compute in the cycles a record enters them: effective = peak x moved / total
    busy = res.in_moved_cycles / res.in_total_cycles if res.in_total_cycles else 0.0
    return {"cascade": depth, "bytes": nbytes, "cells": n, "rows": rows, "width": width,
            "elapsed_ns": res.elapsed_ns, "gbps": nbytes / res.elapsed_ns,
            "cell_updates_per_s": n * depth / secs if secs > 0 else 0.0,
            "stall_rate_in": res.stall_rate, "stall_rate_out": res.out_stall_rate,
            "in_total_cycles": res.in_total_cycles, "in_moved_cycles": res.in_moved_cycles,
            "out_total_cycles": res.total_cycles, "out_moved_cycles": res.moved_cycles,
            "prime_cycles": res.prime_cycles,
            "core_gflops": peak * busy, "core_efficiency": busy,
            "gflops": eff, "peak_gflops": peak, "run_efficiency": eff / peak if peak else 0.0,
            "verified": ok}


def stall_fit(rows: list[dict]) -> dict[int, tuple[float, float]]:
    """Per cascade depth, least-squares (a, b) of input stall cycles = a + b * records.

    ``a`` is the fixed part (cycles from the run's start to the first record at the
    core input; 0 when the armed run's read-ahead hides the DMA start-up), ``b`` the
    stall cycles per streamed record (0 = no bubbles).
    """
    out = {}
    for depth in sorted({r["cascade"] for r in rows}):
        rs = [r for r in rows if r["cascade"] == depth]
        x = np.array([r["cells"] for r in rs], dtype=np.float64)
        y = np.array([r["in_total_cycles"] - r["in_moved_cycles"] for r in rs], dtype=np.float64)
        if len(rs) >= 2 and np.ptp(x) > 0:
            b, a = np.polyfit(x, y, 1)
            out[depth] = (float(a), float(b))
    return out


def _table(rows: list[dict]) -> str:
    head = (f"{'N':>3} {'bytes':>9} {'GB/s':>6} {'Mcell/s':>8} {'stall in':>9} {'stall out':>9} "
            f"{'prime':>6} {'GFLOPS':>7} {'peak':>6} {'eff.':>8} {'e2e GFLOPS':>10}  emulator")
    lines = [head]
    for r in rows:
        lines.append(f"{r['cascade']:>3} {r['bytes']:>9,} {r['gbps']:>6.2f} "
                     f"{r['cell_updates_per_s'] / 1e6:>8.1f} {r['stall_rate_in'] * 100:>8.3f}% "
                     f"{r['stall_rate_out'] * 100:>8.3f}% {r.get('prime_cycles', 0):>6} "
                     f"{r.get('core_gflops', 0.0):>7.1f} {r['peak_gflops']:>6.1f} "
                     f"{r.get('core_efficiency', 0.0) * 100:>7.3f}% {r['gflops']:>10.1f}  "
                     f"{'bit-exact' if r['verified'] else 'MISMATCH'}")
    lines.append("stall in/out: at the first core's input / last core's output (output includes "
                 "the pipeline fill); prime: cycles of TX read-ahead before the armed run started; "
                 "GFLOPS = peak x busy cycles / run cycles (eff.); e2e GFLOPS: over the request-to-"
                 "interrupt time, host and DMA set-up included")
    return "\n".join(lines)


def _plot(rows: list[dict], path: Path) -> None:
    plt = pyplot()
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    for depth in sorted({r["cascade"] for r in rows}):
        rs = sorted((r for r in rows if r["cascade"] == depth), key=lambda r: r["bytes"])
        x = [r["bytes"] for r in rs]
        a.plot(x, [r["gbps"] for r in rs], marker="o", ms=3, label=f"{depth} core(s)")
        b.plot(x, [r["in_total_cycles"] - r["in_moved_cycles"] for r in rs], marker="o", ms=3,
               label=f"{depth} core(s)")
    a.axhline(RECORD_BYTES * CLOCK_HZ / 1e9, color="grey", ls="--", lw=0.8,
              label=f"1 record/cycle at {CLOCK_HZ / 1e6:g} MHz ({RECORD_BYTES * CLOCK_HZ / 1e9:g} GB/s)")
    sizes = sorted({r["bytes"] for r in rows})
    b.plot(sizes, [PUBLISHED["stall_rate_max"] * s / RECORD_BYTES for s in sizes], color="grey",
           ls="--", lw=0.8, label="published bound: 0.03 % of the records")
    finish_axes(((a, "throughput per direction", "GB/s"),
                 (b, "stall cycles at the first core's input, per run", "cycles")), "transfer size [bytes]")
    b.set_yscale("symlog", linthresh=1.0)   # shows 0 as 0
    b.set_ylim(bottom=-0.2)
    fig.suptitle("D2Q9 LBM cascades, simulated Intel PAC (F2F through the cores)")
    save(fig, path)


def _int_list(text: str, what: str, lo: int, hi: int) -> list[int]:
    try:
        vals = sorted({int(x) for x in str(text).split(",") if x.strip()})
    except ValueError:
        raise SpgenError(f"{what} '{text}': expected numbers like 1,2,4") from None
    if not vals or any(not lo <= v <= hi for v in vals):
        raise SpgenError(f"{what} '{text}': values must be {lo}..{hi}")
    return vals


def _run_cards(args: argparse.Namespace) -> int:
    """`--cards`: LBM across a cluster of simulated cards (spgen.lbm._cards_bench)."""
    from tqdm import tqdm

    from ..lbm import CORE_PATH, compile_core
    from ..lbm import _cards_bench as cb

    depths, width, _ = _parse(args)
    height = int(re.fullmatch(r"\s*\d+\s*[xX]\s*(\d+)\s*", args.grid).group(1))
    cards = _int_list(args.cards, "--cards", 1, 64)
    gbps = [float(g) for g in _int_list(args.link_gbps, "--link-gbps", 1, 400)]
    scalings = [x.strip() for x in args.scaling.split(",") if x.strip()]
    if not scalings or any(x not in ("strong", "weak") for x in scalings):
        raise SpgenError(f"--scaling '{args.scaling}': strong, weak or strong,weak")
    if args.passes < 2:
        raise SpgenError(f"--passes {args.passes}: at least 2 (the upload and the download are passes)")
    if args.ranks is not None and not 1 <= args.ranks <= 64:
        raise SpgenError(f"--ranks {args.ranks}: 1..64 MPI processes")
    if args.ranks is not None and args.mode != "slabs":
        raise SpgenError("--ranks: MPI ranks run --mode slabs only")
    cfg = cb.CardsBench(depths=depths, cards=cards, gbps=gbps, scalings=scalings, mode=args.mode, width=width,
                        height=height, steps_per_depth=args.passes, omega=args.omega, ranks=args.ranks)
    design = compile_core(width)
    total = len(depths) * (1 + len(gbps) * len(scalings) * len(cards))
    bar = tqdm(total=total, unit="run", file=sys.stderr, disable=args.no_progress, desc="bench lbm --cards")
    t0 = time.monotonic()

    def tick(note: str) -> None:
        bar.set_postfix_str(note)
        bar.update(1)

    rows = cb.run_bench(cfg, lambda d: build_card(CORE_PATH, width, d, args.core_model, links=2), design, tick)
    bar.close()
    print(cb.table(rows))
    summ = cb.summary(rows)
    if summ["worst_stall_rate_at_524160B_per_card"] is not None:
        print(f"\n{args.mode}: transfers of >= {PUBLISHED['stall_size_bytes']:,} B per card "
              f"({summ['runs_at_524160B_per_card']} runs): "
              f"worst input stall rate {summ['worst_stall_rate_at_524160B_per_card'] * 100:.4f} % "
              f"(published one-card bound: <= 0.03 %)")
    print(f"wall time {time.monotonic() - t0:.1f} s")
    if args.json:
        args.json.write_text(json.dumps({"benchmark": "lbm-cards", "mode": args.mode, "ranks": args.ranks,
                                         "width": width,
                                         "height": height, "passes": args.passes, "summary": summ,
                                         "results": rows}, indent=2) + "\n")
    if args.plot:
        cb.plot(rows, args.plot)
    return 0 if rows and all(r.get("verified") for r in rows) else 1


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    if getattr(args, "cards", None):
        return _run_cards(args)

    from .. import runtime
    from ..lbm import CORE_PATH, compile_core

    depths, width, rows_list = _parse(args)
    design = compile_core(width, hard_fp=args.hard_fp)
    flops = design.graph.flops()["total"]
    if args.resources:
        return _resources(args, design, depths)
    regs = {"omega": args.omega, "uw": (0.05, 0.0)}
    t0 = time.monotonic()
    results: list[dict] = []
    bar = tqdm(total=len(depths) * (len(rows_list) + 1), unit="step", file=sys.stderr,
               disable=args.no_progress, desc="bench lbm")
    failed: list[str] = []
    for depth in depths:
        bar.set_postfix_str(f"building cascade {depth}")
        try:
            build = build_card(CORE_PATH, width, depth, args.core_model, hard_fp=args.hard_fp)
        except SpgenError as e:      # report it and go on with the other depths
            failed.append(f"cascade {depth}: {e}")
            bar.update(len(rows_list) + 1)
            continue
        bar.update(1)
        with runtime.open(build) as card:
            for name, value in (("omega", args.omega), ("uw_x", 0.05), ("uw_y", 0.0)):
                card.write_reg(name, float(value))
            for rows in rows_list:
                bar.set_postfix_str(f"cascade {depth}, {rows * width * RECORD_BYTES:,} B")
                results.append(_measure(card, design, width, rows, depth,
                                        {"omega": regs["omega"], "uw": regs["uw"]}, flops))
                bar.update(1)
        if args.json:        # partial results survive a later failure or interruption
            args.json.write_text(json.dumps({"benchmark": "lbm", "partial": True,
                                             "results": results}, indent=2) + "\n")
    bar.close()
    for msg in failed:
        print(f"spgen bench lbm: error: {msg}", file=sys.stderr)
    if not results:
        return 1
    print(_table(results))
    big = [r for r in results if r["bytes"] >= PUBLISHED["stall_size_bytes"]]
    print(f"\nFLOPs per cell {flops} (published design: {PUBLISHED['flops_per_cell']}); peak per "
          f"core {flops * CLOCK_HZ / 1e9:.1f} GFLOPS at {CLOCK_HZ / 1e6:g} MHz (published "
          f"{PUBLISHED['gflops_per_core']}).")
    fits = stall_fit(results)
    for depth, (start, per_rec) in sorted(fits.items()):
        print(f"cascade {depth}: input stall cycles = {start:.1f} + {per_rec:.2e} x records "
              f"(fit over sizes: start-up latency before the first record, then stalls "
              f"per streamed record)")
    if big:
        worst = max(r["stall_rate_in"] for r in big)
        worst_eff = min(r["core_efficiency"] for r in big)
        print(f"transfers >= {PUBLISHED['stall_size_bytes']:,} B: worst input stall rate "
              f"{worst * 100:.4f} % of the run's cycles (published: <= 0.03 %); effective "
              f"GFLOPS >= {worst_eff * 100:.3f} % of peak (goal >= 99.9 %)")
    print(f"wall time {time.monotonic() - t0:.1f} s")
    if args.json:
        args.json.write_text(json.dumps({"benchmark": "lbm", "clock_hz": CLOCK_HZ,
                                         "flops_per_cell": flops, "published": PUBLISHED,
                                         "stall_fit": {str(k): {"startup_cycles": a,
                                                                "stalls_per_record": b}
                                                       for k, (a, b) in fits.items()},
                                         "results": results}, indent=2) + "\n")
    if args.plot:
        _plot(results, args.plot)
    return 0 if all(r["verified"] for r in results) and not failed else 1


def _resources(args: argparse.Namespace, design, depths: list[int]) -> int:
    """`--resources`: the mapped AFU per cascade depth beside the published resources."""
    from ..fit import cascade_report, published_table, timing_lines
    from ..shellgen import core_interface

    vcore = design.verilog
    rep = cascade_report(vcore.text, vcore.name, core_interface(vcore.report), depths,
                         progress=not args.no_progress)
    core = rep["groups"][max(depths)]["core"]["one"]
    print(f"LBM core {vcore.name}: {core['alms']:,} ALMs, {core['ffs']:,} FFs, {core['m20k']} "
          f"M20K ({core['bram_bits']:,} bits), {core['dsps']} DSPs ({core['hard_fp']} hard FP)")
    print(published_table(rep["rows"]))
    print("\n".join(timing_lines(rep["timing_failures"])))
    print(f"({rep['mapped']} modules mapped, {rep['seconds']:.1f} s)")
    if args.json:
        args.json.write_text(json.dumps({"benchmark": "lbm-resources", **rep}, indent=1) + "\n")
    return 0
