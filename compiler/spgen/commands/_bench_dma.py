"""`spgen bench dma`: DMA bandwidth sweep on the (simulated) card against the published PAC figures."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from .._diagnostics import SpgenError
from .._plotting import pyplot, save
from . import _size_sweep

__all__ = ["HELP", "PUBLISHED", "THEORETICAL", "add_arguments", "run"]

HELP = "DMA bandwidth sweep (H2F, F2H, F2F, H2H) in simulated time vs the published Intel PAC figures."
# Published Intel PAC (Arria 10 GX) DMA bandwidths, GB/s, and their efficiencies.
PUBLISHED = {"F2F": 11.6, "H2F": 6.2, "F2H": 5.5, "H2H": 2.3}
PUBLISHED_EFF = {"F2F": 0.907, "H2F": 0.806, "F2H": 0.736, "H2H": 0.303}
# Theoretical peaks of the simulated card: DDR 512 bit x 200 MHz; PCIe Gen3 x8 raw.
THEORETICAL = {"F2F": 12.8, "H2F": 7.877, "F2H": 7.877, "H2H": 7.877}
_MEM_B = 1 << 32


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--types", nargs="+", default=list(PUBLISHED), metavar="TYPE",
                   help="transfer types to measure (default: F2F H2F F2H H2H)")
    p.add_argument("--target", default="loopback", help="card: 'loopback' (default) or a spgen build dir")
    p.add_argument("--records", type=Path, metavar="JSON",
                   help="no run: print the table (and --plot) of an earlier result file, e.g. from "
                        "the C++ tool afushell-bench")
    _size_sweep.add_sweep_arguments(p, steps="doubling", reps=10, reps_how="averaged",
                                    params_doc="docs/runtime.md", plot="a bandwidth-vs-size plot")


def _sizes(args: argparse.Namespace) -> list[int]:
    return _size_sweep.sweep_sizes(args, quick=[4, 64, 1024, 16 << 10, 64 << 10], factor=2,
                                   limit=1 << 32, beyond="exceeds one 4 GiB FPGA memory",
                                   with_max=False)


def sweep(card, types: list[str], sizes: list[int], reps: int, progress: bool = True) -> list[dict]:
    """Times every (type, size) `reps` times; each rep moves fresh data and checks it.

    One rep runs the chain H2F (host -> A), F2F (A -> B), F2H (B -> host) and H2H,
    so every timed transfer is verified by the bytes that come back.
    """
    from tqdm import tqdm

    top = max(sizes)
    src, back, hh = card.alloc(top), card.alloc(top), card.alloc(top)
    base = np.random.default_rng(1).integers(0, 1 << 32, top // 4, dtype=np.uint32)
    times: dict[tuple[str, int], list[int]] = {(t, s): [] for t in types for s in sizes}
    bad: dict[tuple[str, int], int] = {k: 0 for k in times}
    a_addr, b_addr = 0x40, _MEM_B + 0x1000  # not 4 KiB aligned on purpose
    bar = tqdm(total=len(sizes) * reps, unit="rep", disable=not progress, file=sys.stderr,
               desc="bench dma")
    for size in sizes:
        words = size // 4
        for rep in range(reps):
            data = src[:size].view(np.uint32)
            np.bitwise_xor(base[:words], np.uint32(0x9E3779B9 * (rep + 1) & 0xFFFFFFFF), out=data)
            back[:size] = 0
            t = {"H2F": card.dma(a_addr, src, size, "H2F"),
                 "F2F": card.dma(b_addr, a_addr, size, "F2F"),
                 "F2H": card.dma(back, b_addr, size, "F2H")}
            ok = bool(np.array_equal(back[:size], src[:size]))
            if "H2H" in types:
                hh[:size] = 0
                t["H2H"] = card.dma(hh, src, size, "H2H")
                ok_h = bool(np.array_equal(hh[:size], src[:size]))
            for ty in types:
                times[(ty, size)].append(t[ty])
                if not (ok_h if ty == "H2H" else ok):
                    bad[(ty, size)] += 1
            bar.update(1)
    bar.close()
    records = []
    for ty in types:
        for size in sizes:
            ts = np.array(times[(ty, size)], dtype=np.float64)
            mean = float(ts.mean())
            gbps = size / mean if mean > 0 else 0.0
            records.append({"type": ty, "bytes": size, "reps": reps, "mean_ns": mean,
                            "min_ns": float(ts.min()), "max_ns": float(ts.max()), "gbps": gbps,
                            "efficiency": gbps / THEORETICAL[ty], "integrity_errors": bad[(ty, size)]})
    return records


def _table(records: list[dict], types: list[str]) -> str:
    sizes = sorted({r["bytes"] for r in records})
    by = {(r["type"], r["bytes"]): r for r in records}
    lines = [f"{'size':>10} " + " ".join(f"{t + ' GB/s':>10}" for t in types)]
    for s in sizes:
        cells = []
        for t in types:
            r = by[(t, s)]
            cells.append(f"{r['gbps']:>9.3f}" + ("!" if r["integrity_errors"] else " "))
        lines.append(f"{_size_sweep.fmt_size(s):>10} " + " ".join(cells))
    lines.append("")
    lines.append(f"{'type':<5} {'largest':>10} {'GB/s':>8} {'eff.':>7}   published (Intel PAC)")
    top = max(sizes)
    for t in types:
        r = by[(t, top)]
        lines.append(f"{t:<5} {_size_sweep.fmt_size(top):>10} {r['gbps']:>8.2f} {r['efficiency'] * 100:>6.1f}%   "
                     f"{PUBLISHED[t]:.1f} GB/s ({PUBLISHED_EFF[t] * 100:.1f}%)")
    return "\n".join(lines)


def _plot(records: list[dict], types: list[str], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, t in enumerate(types):
        rs = sorted((r for r in records if r["type"] == t), key=lambda r: r["bytes"])
        line, = ax.plot([r["bytes"] for r in rs], [r["gbps"] for r in rs], marker="o", ms=3,
                        label=f"{t} (simulated)")
        ax.axhline(PUBLISHED[t], color=line.get_color(), ls="--", lw=0.8,
                   label=f"{t} published {PUBLISHED[t]} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("transfer size [bytes]")
    ax.set_ylabel("bandwidth [GB/s]")
    ax.set_title("DMA bandwidth, simulated Intel PAC (request to completion interrupt)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    save(fig, path)


def _replay(args: argparse.Namespace) -> int:
    try:
        doc = json.loads(args.records.read_text())
        records = doc["records"]
    except (OSError, ValueError, KeyError) as e:
        raise SpgenError(f"{args.records}: not a bench dma result file ({e})") from None
    types = [t for t in PUBLISHED if any(r["type"] == t for r in records)]
    print(_table(records, types))
    if "cycles_per_s" in doc:
        print(f"\nsimulated {doc.get('sim_cycles', 0):,} cycles in {doc.get('sim_wall_s', 0):.1f} s: "
              f"{doc['cycles_per_s'] / 1e6:.2f} M cycles/s")
    if args.plot:
        _plot(records, types, args.plot)
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    return 1 if any(r["integrity_errors"] for r in records) else 0


def run(args: argparse.Namespace) -> int:
    from spgen import runtime

    if args.records:
        return _replay(args)
    types = _size_sweep.choices(args.types, PUBLISHED, "transfer type")
    sizes = _sizes(args)
    reps = _size_sweep.repetitions(args, quick=2)
    t0 = time.monotonic()
    with runtime.open(args.target, params=_size_sweep.card_params(args.param) or None) as card:
        card.require_plain_copy("spgen bench dma")
        s0 = card.sim_stats()
        records = sweep(card, types, sizes, reps, progress=not args.no_progress)
        s1 = card.sim_stats()
        info = card.info
    wall = time.monotonic() - t0
    cycles = s1["cycles"] - s0["cycles"]
    sim_wall = s1["wall_s"] - s0["wall_s"]
    speed = cycles / sim_wall if sim_wall > 0 else 0.0
    print(_table(records, types))
    print(f"\nsimulated {cycles:,} cycles ({(s1['now_ns'] - s0['now_ns']) / 1e6:.2f} ms of card time) "
          f"in {sim_wall:.1f} s: {speed / 1e6:.2f} M cycles/s; total wall {wall:.1f} s")
    doc = {"benchmark": "dma", "key": ["type", "bytes"], "records": records,
           "target": str(args.target), "reps": reps, "published_gbps": PUBLISHED,
           "published_efficiency": PUBLISHED_EFF, "theoretical_gbps": THEORETICAL,
           "sim_cycles": cycles, "sim_wall_s": sim_wall, "cycles_per_s": speed,
           "wall_s": wall, "card": info, "params": _size_sweep.card_params(args.param)}
    return _size_sweep.finish("dma", args, records, doc, lambda path: _plot(records, types, path))
