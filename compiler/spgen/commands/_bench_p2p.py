"""`spgen bench p2p`: GPU-FPGA transfers on the simulated PCIe against the published figures."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from .._plotting import pyplot, save
from . import _size_sweep

__all__ = ["HELP", "MODES", "PUBLISHED", "add_arguments", "run", "sweep"]

HELP = ("GPU-FPGA peer-to-peer transfers (card-initiated, register mode, host-initiated, "
        "CPU-staged) in simulated time vs the published GPU-FPGA DMA and PEACH2 figures.")
# How a transfer is started, and what its time covers:
MODES = {
    "card": "card-initiated: the card's controller issues the descriptors; descriptors "
            "entering the engines -> last byte written (as the published design measured)",
    "reg": "register mode from the host: first MMIO write -> last byte written, no descriptor fetch",
    "host": "host-initiated afuShellDMATransfer P2F/F2P: call -> completion interrupt",
    "staged": "CPU-staged: peer <-> host copy (modelled) and the card's H2F/F2H, store and forward",
}
DIRS = {"P2F": "GPU->FPGA", "F2P": "FPGA->GPU"}
# Published results (REFERENCE.md): the FPGA-initiated GPU-FPGA DMA design (P100, Arria 10,
# PCIe Gen3 x8) and PEACH2 (Gen2 x8).
PUBLISHED = {
    ("card", "P2F"): {"latency_us": 1.08, "gbps": 4.1},
    ("card", "F2P"): {"latency_us": 0.24, "gbps": 6.9},
    ("staged", "P2F"): {"latency_us": 17.0, "gbps": 3.1},
    ("staged", "F2P"): {"latency_us": 20.0, "gbps": 3.1},
}
PEACH2 = {"PIO latency": 0.9, "DMA latency": 2.4}
PEER_PARAMS = ["pcie_gbytes_per_s", "pcie_read_latency_ns", "pcie_mps", "pcie_mrrs", "peer_pcie_gen", "peer_pcie_lanes",
               "peer_read_latency_ns", "peer_p2p_latency_ns", "peer_read_gbytes_per_s",
               "peer_copy_latency_ns", "peer_copy_gbytes_per_s", "mmio_write_latency_ns",
               "mmio_write_issue_ns", "irq_latency_ns", "clock_mhz"]
_FPGA = 1 << 32   # memory B: the FPGA side of every transfer


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--modes", nargs="+", default=list(MODES), metavar="MODE",
                   help="card, reg, host, staged (default: all)")
    _size_sweep.add_sweep_arguments(p, steps="x4 steps", reps=3, reps_how="median reported",
                                    params_doc="docs/runtime.md, docs/p2p.md",
                                    plot="latency and bandwidth plots")


def _sizes(args: argparse.Namespace) -> list[int]:
    return _size_sweep.sweep_sizes(args, quick=[4, 256, 4096, 65536], factor=4, limit=1 << 30,
                                   beyond="exceeds the benchmark's 1 GiB", with_max=True)


def _move(card, mode: str, kind: str, dst, src, n: int, ns_per_cycle: float) -> float:
    """One transfer; its time in ns as the mode defines it."""
    if mode == "card":
        return card.card_dma(dst, src, n, kind).last_cycles * ns_per_cycle
    if mode == "reg":
        return card.card_dma(dst, src, n, kind).elapsed_ns
    if mode == "host":
        return card.dma(dst, src, n, kind)
    return card.peer_staged(dst, src, n, kind)


def sweep(card, modes: list[str], sizes: list[int], reps: int, progress: bool = True) -> list[dict]:
    """Times every (mode, direction, size) `reps` times with fresh data; every transfer is
    checked: GPU->FPGA by reading the FPGA memory back, FPGA->GPU by reading the peer."""
    from tqdm import tqdm

    top = max(sizes)
    peer_in, peer_out = card.peer_alloc(top), card.peer_alloc(top)
    host = card.alloc(top)
    ns_per_cycle = 1000.0 / card.sim_params()["clock_mhz"]
    rng = np.random.default_rng(1)
    times: dict[tuple[str, str, int], list[float]] = {}
    bad: dict[tuple[str, str, int], int] = {}
    bar = tqdm(total=len(sizes) * reps * len(modes), unit="rep", disable=not progress,
               file=sys.stderr, desc="bench p2p")
    for size in sizes:
        for rep in range(reps):
            data = rng.integers(0, 256, size, dtype=np.uint8)
            peer_in.write(data)
            for mode in modes:
                t_in = _move(card, mode, "P2F", _FPGA, peer_in, size, ns_per_cycle)
                card.dma(host, _FPGA, size, "F2H")
                ok_in = bool(np.array_equal(host[:size], data))
                peer_out.write(np.zeros(size, np.uint8))
                t_out = _move(card, mode, "F2P", peer_out, _FPGA, size, ns_per_cycle)
                ok_out = bool(np.array_equal(peer_out.read(size), data))
                for kind, t, ok in (("P2F", t_in, ok_in), ("F2P", t_out, ok_out)):
                    times.setdefault((mode, kind, size), []).append(t)
                    bad[(mode, kind, size)] = bad.get((mode, kind, size), 0) + (not ok)
                bar.update(1)
    bar.close()
    records = []
    for (mode, kind, size), ts in times.items():
        med = float(np.median(ts))
        records.append({"mode": mode, "type": kind, "bytes": size, "reps": len(ts), "median_ns": med,
                        "min_ns": float(min(ts)), "max_ns": float(max(ts)),
                        "gbps": size / med if med > 0 else 0.0, "integrity_errors": bad[(mode, kind, size)]})
    return records


def _table(records: list[dict], modes: list[str]) -> str:
    sizes = sorted({r["bytes"] for r in records})
    by = {(r["mode"], r["type"], r["bytes"]): r for r in records}
    cols = [(m, k) for m in modes for k in DIRS]
    head = " ".join(f"{m + ' ' + k:>12}" for m, k in cols)
    lines = ["latency [us] (median)", f"{'size':>10} {head}"]
    for s in sizes:
        lines.append(f"{_size_sweep.fmt_size(s):>10} " + " ".join(
            f"{by[(m, k, s)]['median_ns'] / 1e3:>11.3f}" + ("!" if by[(m, k, s)]["integrity_errors"] else " ")
            for m, k in cols))
    lines += ["", "bandwidth [GB/s]", f"{'size':>10} {head}"]
    for s in sizes:
        lines.append(f"{_size_sweep.fmt_size(s):>10} " + " ".join(f"{by[(m, k, s)]['gbps']:>11.3f} " for m, k in cols))
    big = "GB/s at " + _size_sweep.fmt_size(sizes[-1])
    lines += ["", f"{'':<24} {'4 B latency':>12} {'published':>10} {big:>16} {'published':>10}"]
    for (m, k), pub in PUBLISHED.items():
        if m not in modes:
            continue
        lo, hi = by[(m, k, sizes[0])], by[(m, k, sizes[-1])]
        lat = f"{lo['median_ns'] / 1e3:.2f} us" if sizes[0] == 4 else "-"
        lines.append(f"{m + ' ' + DIRS[k]:<24} {lat:>12} {pub['latency_us']:>7.2f} us {hi['gbps']:>16.2f} "
                     f"{pub['gbps']:>10.1f}")
    if "reg" in modes and sizes[0] == 4:
        r = by[("reg", "F2P", 4)]["median_ns"] / 1e3
        lines.append(f"{'reg FPGA->GPU':<24} {r:>9.2f} us   PEACH2: PIO {PEACH2['PIO latency']} us, "
                     f"DMA {PEACH2['DMA latency']} us")
    return "\n".join(lines)


def _plot(records: list[dict], modes: list[str], path: Path) -> None:
    plt = pyplot()
    fig, (a_lat, a_bw) = plt.subplots(1, 2, figsize=(12, 4.8))
    for i, m in enumerate(modes):
        for k, style in (("P2F", "-"), ("F2P", "--")):
            rs = sorted((r for r in records if r["mode"] == m and r["type"] == k), key=lambda r: r["bytes"])
            x = [r["bytes"] for r in rs]
            color = f"C{i}"
            a_lat.plot(x, [r["median_ns"] / 1e3 for r in rs], style, marker="o", ms=3, color=color,
                       label=f"{m} {DIRS[k]}")
            a_bw.plot(x, [r["gbps"] for r in rs], style, marker="o", ms=3, color=color, label=f"{m} {DIRS[k]}")
            pub = PUBLISHED.get((m, k))
            if pub:
                a_lat.plot([4], [pub["latency_us"]], marker="*" if k == "P2F" else "X", ms=10, color=color,
                           ls="none", label=f"published {m} {DIRS[k]} {pub['latency_us']} us")
                a_bw.axhline(pub["gbps"], color=color, ls=":", lw=0.9, label=f"published {m} {DIRS[k]} {pub['gbps']}")
    for name, us in PEACH2.items():
        a_lat.axhline(us, color="grey", ls="-.", lw=0.8, label=f"PEACH2 {name} {us} us")
    for ax in (a_lat, a_bw):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("transfer size [bytes]")
        ax.grid(True, which="both", alpha=0.3)
    a_lat.set_yscale("log")
    a_lat.set_ylabel("latency [us]")
    a_bw.set_ylabel("bandwidth [GB/s]")
    a_lat.set_title("GPU-FPGA latency (simulated card, PCIe Gen3 x8)")
    a_bw.set_title("GPU-FPGA bandwidth")
    a_lat.legend(fontsize=6, ncol=2)
    a_bw.legend(fontsize=6, ncol=2, loc="lower right")
    save(fig, path)


def run(args: argparse.Namespace) -> int:
    from spgen import runtime

    modes = _size_sweep.choices(args.modes, MODES, "mode")
    sizes = _sizes(args)
    reps = _size_sweep.repetitions(args, quick=1)
    params = _size_sweep.card_params(args.param)
    t0 = time.monotonic()
    with runtime.open("loopback", params=params or None) as card:
        s0 = card.sim_stats()
        records = sweep(card, modes, sizes, reps, progress=not args.no_progress)
        s1 = card.sim_stats()
        model = {k: v for k, v in card.sim_params().items() if k in PEER_PARAMS}
    wall = time.monotonic() - t0
    print(_table(records, modes))
    print("\nmodel: " + ", ".join(f"{k}={v:g}" for k, v in model.items()))
    for m in modes:
        print(f"  {m}: {MODES[m]}")
    print(f"simulated {s1['cycles'] - s0['cycles']:,} cycles in {s1['wall_s'] - s0['wall_s']:.1f} s; "
          f"total wall {wall:.1f} s")
    doc = {"benchmark": "p2p", "key": ["mode", "type", "bytes"], "records": records, "reps": reps,
           "modes": {m: MODES[m] for m in modes}, "model": model, "params": params,
           "published": [{"mode": m, "type": k, **v} for (m, k), v in PUBLISHED.items()],
           "published_peach2_us": PEACH2, "sim_cycles": s1["cycles"] - s0["cycles"],
           "sim_wall_s": s1["wall_s"] - s0["wall_s"], "wall_s": wall}
    return _size_sweep.finish("p2p", args, records, doc, lambda path: _plot(records, modes, path))
