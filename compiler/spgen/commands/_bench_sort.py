"""`spgen bench sort`: the distributed counting sort (spgen.sort) on 2..N simulated cards,
time per phase, the OPTWEB throughput model with this platform's parameters, a CPU baseline."""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from .._diagnostics import SpgenError
from ..shellgen import card_clock_mhz

__all__ = ["HELP", "OPTWEB", "add_arguments", "model", "run"]

HELP = "Distributed counting sort over 2..8 simulated cards: GB/s and time per phase vs the OPTWEB model and a CPU."
# OPTWEB (8 Stratix 10 MX cards, full mesh): T = N * min(W*M*C/A, B/m), its final design.
OPTWEB = {"gbps": 243, "model_gbps": 307, "N": 8, "W_bytes": 32, "M": 8, "C_mhz": 150, "A": 1,
          "B_gbps": 50, "m": 1, "key_values": 64, "keys": 2 ** 27, "key_bytes": 4}
CLOCK_MHZ = float(card_clock_mhz())  # the card's clock (shell, cores, RDMA block)
BUS_BYTES = 64         # the shell's 512-bit Avalon-MM masters
WRITER_BYTES = 4       # the first scatter writer took one 32-bit key per cycle (cards that report no MAX_BITS)
MEM_CHANNELS = 1       # one read and one write master serve a pass
RTL_ENGINE_GBPS = BUS_BYTES * CLOCK_MHZ / 1e3  # the RTL engine moves a 64-byte line per cycle
MODEL_ENGINE_GBPS = 64 * 390.625e6 / 1e9  # the network model's engine: a 64 B packet per cycle
PAYLOAD_EFF = 64 / 72  # payload bytes per wire byte of the model's full data packet
RTL_PAYLOAD_EFF = 1024 / 1032  # ... of the RTL cards' bulk packets (1 KiB)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cards", default="2,4,8", help="card counts, comma-separated (default 2,4,8)")
    p.add_argument("--keys", type=int, default=1 << 16, help="keys per card (default 65536)")
    p.add_argument("--dtype", choices=["u32", "u64"], default="u32", help="key type (default u32)")
    p.add_argument("--payloads", action="store_true", help="a uint32 payload with every key")
    p.add_argument("--key-values", type=int, default=0, metavar="K",
                   help="keys drawn from K values 0..K-1 (OPTWEB: 64); default: the whole key range")
    p.add_argument("--line-gbps", type=float, default=40.0,
                   help="line rate of the network model's links (default 40: the PAC's QSFP+)")
    p.add_argument("--rtl", type=Path, metavar="CARD",
                   help="RTL cards from `spgen build [cores/sort/sort_rank.spd] --links 4 [--sort-scatter]` in CARD "
                        "instead of the network model (a full mesh up to 5 cards, a 2 x N/2 torus above: a card has "
                        "4 link ports); cards built from the counting core run the counting passes, cards with the "
                        "scatter writer move every key (uint32 keys without payloads)")
    p.add_argument("--faults", type=float, default=0.0, metavar="PER", help="packet error rate on every link")
    p.add_argument("--reps", type=int, default=3, help="runs per card count; medians are reported (default 3)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path, help="write the results as JSON")
    p.add_argument("--plot", type=Path, help="write a plot (PNG)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _topology(n: int, rtl: Path | None) -> dict:
    if rtl is None or n <= 5:
        return {"topology": "fullmesh", "cards": n}
    if n % 2:
        raise SpgenError(f"--rtl: {n} cards need a full mesh of {n - 1} ports (a card has 4) or an even count "
                         "for a 2 x N/2 torus")
    return {"topology": "torus", "dims": [2, n // 2]}


def node_gbps(n: int, spec: dict, line_gbps: float, rtl: bool) -> tuple[float, float]:
    """(B, the payload bandwidth one card's links can send, GB/s; the bandwidth of its RDMA
    engine, which every key of the card passes, local ones included, GB/s)."""
    ports = n - 1 if spec["topology"] == "fullmesh" else 4
    if rtl:
        return ports * line_gbps / 8 * RTL_PAYLOAD_EFF, RTL_ENGINE_GBPS
    return ports * line_gbps / 8 * PAYLOAD_EFF, MODEL_ENGINE_GBPS


def model(n: int, passes: float, links_gbps: float, engine_gbps: float, factor: float,
          width: int = BUS_BYTES) -> dict:
    """OPTWEB's T = N * min(W*M*C/A, B/m) with this platform's W, M, C (GB/s of keys).
    `factor`: bytes moved per key byte (payloads); of them (N-1)/N cross the links, all pass
    the card's RDMA engine, so B/m = min(links / (factor (N-1)/N), engine / factor).
    `width`: W, the bytes a pass moves per cycle (the bus, or the scatter writer's key)."""
    mem = width * MEM_CHANNELS * CLOCK_MHZ * 1e6 / 1e9
    m = factor * (n - 1) / n
    net = min(links_gbps / m, engine_gbps / factor)
    return {"N": n, "W_bytes": width, "M": MEM_CHANNELS, "C_mhz": CLOCK_MHZ, "A": passes, "B_gbps": links_gbps,
            "engine_gbps": engine_gbps, "m": m, "memory_gbps": n * mem / passes, "network_gbps": n * net,
            "gbps": n * min(mem / passes, net)}


def _keys(n: int, dtype, seed: int, values: int = 0) -> np.ndarray:
    top = values - 1 if values else np.iinfo(dtype).max
    return np.random.default_rng(seed).integers(0, top, n, dtype=dtype, endpoint=True)


def _cpu(keys: np.ndarray, payloads: np.ndarray | None, reps: int) -> dict:
    """numpy on this machine: np.sort of the keys; with payloads a stable argsort and gathers."""
    def timed(fn) -> float:
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        return float(np.median(ts))

    nbytes = keys.nbytes
    t_sort = timed(lambda: np.sort(keys))
    out = {"numpy_sort_s": t_sort, "numpy_sort_gbps": nbytes / t_sort / 1e9, "cores": os.cpu_count(),
           "cpu": platform.processor() or platform.machine()}
    if payloads is not None:
        def with_payloads() -> None:
            o = np.argsort(keys, kind="stable")
            keys[o], payloads[o]
        t = timed(with_payloads)
        out.update(numpy_stable_payload_s=t, numpy_stable_payload_gbps=nbytes / t / 1e9)
    return out


def _one(n: int, args: argparse.Namespace, dtype, bar) -> dict:
    from spgen import sort
    from spgen.runtime import rdma

    spec = _topology(n, args.rtl)
    if args.rtl is not None:
        spec["card"] = str(args.rtl)
    else:
        spec["line_rate_gbps"] = args.line_gbps
    if args.faults:
        spec["faults"] = {"per": args.faults}
    reps = []
    for rep in range(args.reps):
        cl = rdma.cluster(spec)
        keys = _keys(n * args.keys, dtype, args.seed + rep, args.key_values)
        pays = np.arange(keys.size, dtype=np.uint32) if args.payloads else None
        bar.set_postfix_str(f"{n} cards")
        r = sort.sort(cl, keys, pays, progress=lambda ph: bar.set_postfix_str(f"{n} cards: {ph}"))
        order = np.argsort(keys, kind="stable")
        ok = bool(np.array_equal(r.keys, keys[order]) and (pays is None or np.array_equal(r.payloads, pays[order])))
        reps.append((r, ok))
        bar.update(1)
    runs = [r for r, _ in reps]
    med = lambda xs: float(np.median(xs))
    first = runs[0]
    ks, ps = first.input.dtype.itemsize, 4 if args.payloads else 0
    factor = (ks + ps) / ks  # bytes moved per key byte
    moved = first.extra.get("moved_by") == "cards"
    if moved:   # the writer's passes over the keys on a card, and the network's scatter
        passes = first.extra["card_passes"] + 1
    else:       # range, histogram, group, scatter + the local passes
        passes = (4 + first.local_passes) * factor
    links, engine = node_gbps(n, spec, args.line_gbps, args.rtl is not None)
    net = med([r.network_seconds for r in runs])
    host = med([r.host_seconds for r in runs])
    nbytes = first.bytes_sorted
    phases = {ph.name: {"where": ph.where, "seconds": med([r.phase(ph.name).seconds for r in runs]),
                        "cycles": int(med([r.phase(ph.name).cycles for r in runs])), "bytes": ph.bytes_moved}
              for ph in first.phases}
    card_s = sum(p["seconds"] for p in phases.values() if p["where"] == "card")
    mod = model(n, passes, links, engine, factor, first.extra.get("writer_bytes", WRITER_BYTES) if moved else BUS_BYTES)
    return {"cards": n, "backend": "rtl" if args.rtl else "model", "topology": spec["topology"],
            "dims": spec.get("dims"), "keys": first.input.n, "dtype": str(first.input.dtype),
            "payloads": args.payloads, "bytes": nbytes, "phases": phases, "network_s": net, "host_s": host,
            "card_s": card_s, "gbps": nbytes / (net + host + card_s) / 1e9, "network_gbps": nbytes / net / 1e9,
            "counting": "card" if card_s else "host", "moved_by": "cards" if moved else "host",
            "fused": bool(first.extra.get("fused")), "digit_bits": first.extra.get("digit_bits"),
            "card_passes": first.extra.get("card_passes"), "banks": first.extra.get("banks"),
            "model": mod, "model_gbps": mod["gbps"], "model_network_gbps": mod["network_gbps"],
            "network_vs_model": nbytes / net / 1e9 / mod["network_gbps"],
            "local_passes": first.local_passes, "key_values": args.key_values, "imbalance": max(r.imbalance for r in runs),
            "correct": all(ok for _, ok in reps), "reps": args.reps,
            "line_gbps": args.line_gbps}


def _phase_names(rows: list[dict]) -> list[str]:
    names: list[str] = []
    for r in rows:
        names += [p for p in r["phases"] if p not in names]
    return names


def _table(rows: list[dict]) -> str:
    names = _phase_names(rows)
    head = ("| cards | net | keys | " + " | ".join(names) +
            " | network GB/s (model N·B/m) | end-to-end GB/s (model T) | correct |")
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        net = f"{r['backend']} {r['topology']}" + (f" {'x'.join(map(str, r['dims']))}" if r["dims"] else "")
        ph = [f"{r['phases'][p]['seconds'] * 1e6:.1f} µs ({r['phases'][p]['where']})" if p in r["phases"] else "--"
              for p in names]
        out.append(f"| {r['cards']} | {net} | {r['keys']} {r['dtype']} | " + " | ".join(ph) +
                   f" | {r['network_gbps']:.2f} ({r['model_network_gbps']:.2f}) | {r['gbps']:.3f} "
                   f"({r['model_gbps']:.2f}, A={r['model']['A']:g}) | {'yes' if r['correct'] else 'NO'} |")
    return "\n".join(out)


def _plot(rows: list[dict], cpu: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cards = [r["cards"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    a.plot(cards, [r["network_gbps"] for r in rows], "o-", label="exchanges, measured (simulated cards)")
    a.plot(cards, [r["model_network_gbps"] for r in rows], "o--", label="network term N·B/m")
    a.plot(cards, [r["gbps"] for r in rows], "s-", label="end to end (host phases at this host's speed)")
    if any(r["card_s"] for r in rows):
        a.plot(cards, [r["bytes"] / (r["card_s"] + r["network_s"]) / 1e9 for r in rows], "^-",
               label="cards and links (card and network phases)")
    a.plot(cards, [r["model_gbps"] for r in rows], "s--", label="model T = N·min(W·M·C/A, B/m)")
    a.axhline(cpu["numpy_sort_gbps"], color="gray", ls=":", label=f"numpy sort, this host ({cpu['cores']} cores)")
    a.set_yscale("log")
    a.set_xlabel("cards")
    a.set_ylabel("GB/s of keys sorted")
    a.set_xticks(cards)
    a.grid(True, alpha=0.3)
    a.legend(fontsize=7)
    bottom = np.zeros(len(rows))
    for ph in _phase_names(rows):  # the simulated phases; the host's are in the table
        where = next(r["phases"][ph]["where"] for r in rows if ph in r["phases"])
        if where == "host":
            continue
        v = np.array([r["phases"][ph]["seconds"] * 1e6 if ph in r["phases"] else 0.0 for r in rows])
        b.bar([str(c) for c in cards], v, bottom=bottom, label=f"{ph} ({where})", hatch=".." if where == "card" else "")
        bottom += v
    b.set_xlabel("cards")
    b.set_ylabel("µs per sort (simulated phases)")
    b.set_title(f"{rows[0]['keys'] // rows[0]['cards']} {rows[0]['dtype']} keys per card, {rows[0]['backend']}; host phases: see the table",
                fontsize=9)
    b.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    try:
        counts = [int(c) for c in args.cards.split(",")]
    except ValueError:
        raise SpgenError(f"--cards: a comma-separated list of card counts, got {args.cards!r}") from None
    if any(not 2 <= c <= 64 for c in counts):
        raise SpgenError("--cards: every count must be 2..64")
    if args.keys < 1 or args.reps < 1:
        raise SpgenError("--keys and --reps must be at least 1")
    if args.key_values < 0 or args.key_values > 2 ** (32 if args.dtype == "u32" else 64):
        raise SpgenError(f"--key-values: 0 (the whole range) or 1..2^{32 if args.dtype == 'u32' else 64}")
    if args.rtl is not None and not args.rtl.exists():
        raise SpgenError(f"--rtl {args.rtl}: no such card build (spgen build --loopback --links 4 -o {args.rtl})")
    dtype = np.uint32 if args.dtype == "u32" else np.uint64
    t0 = time.monotonic()
    bar = tqdm(total=len(counts) * args.reps, unit="sort", file=sys.stderr, disable=args.no_progress,
               desc="bench sort")
    rows = [_one(n, args, dtype, bar) for n in counts]
    bar.close()
    big = _keys(max(counts) * args.keys, dtype, args.seed, args.key_values)
    cpu = _cpu(big, np.arange(big.size, dtype=np.uint32) if args.payloads else None, max(args.reps, 3))
    print(_table(rows))
    print(f"\nCPU baseline on this host ({cpu['cores']} cores, {cpu['cpu']}): numpy.sort of {big.size} "
          f"{big.dtype} keys {cpu['numpy_sort_s'] * 1e3:.2f} ms = {cpu['numpy_sort_gbps']:.3f} GB/s"
          + (f"; stable argsort + payload gather {cpu['numpy_stable_payload_gbps']:.3f} GB/s"
             if args.payloads else "") + " (no parallel radix sort library: numpy only)")
    o = OPTWEB
    print(f"OPTWEB (published): {o['gbps']} GB/s on {o['N']} Stratix 10 MX cards, full mesh, model {o['model_gbps']}"
          f" GB/s with W={o['W_bytes']} B, M={o['M']}, C={o['C_mhz']} MHz, A={o['A']}, B={o['B_gbps']} GB/s, "
          f"m={o['m']}, {o['key_values']} key values (6 bits, one pass). Here: W={BUS_BYTES} B, M={MEM_CHANNELS},"
          f" C={CLOCK_MHZ:g} MHz, A = 4 + local passes (x payload factor), B as in the table, full 32/64-bit keys;"
          f" keys moved by the cards' scatter writers: W={BUS_BYTES} B (a beat a cycle; {WRITER_BYTES} B on writers of"
          " a key a cycle), A = the writer's passes + the network scatter.")
    wall = time.monotonic() - t0
    print(f"wall {wall:.1f} s")
    if args.json:
        doc = {"benchmark": "sort", "runs": rows, "cpu": cpu, "optweb": OPTWEB, "wall_s": wall,
               "machine": {"cpu": cpu["cpu"], "cores": cpu["cores"], "python": platform.python_version()},
               "date": time.strftime("%Y-%m-%d", time.gmtime()),
               "parameters": {"W_bytes": BUS_BYTES, "M": MEM_CHANNELS, "C_mhz": CLOCK_MHZ,
                              "rtl_engine_gbps": RTL_ENGINE_GBPS, "model_engine_gbps": MODEL_ENGINE_GBPS,
                              "payload_efficiency": RTL_PAYLOAD_EFF if args.rtl else PAYLOAD_EFF}}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    if args.plot:
        _plot(rows, cpu, args.plot)
    if not all(r["correct"] for r in rows):
        print("spgen bench sort: error: a sort's result differs from numpy's", file=sys.stderr)
        return 1
    return 0
