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
# Its CPU baseline: an 8-node InfiniBand cluster, 57x slower (243 / 57 GB/s).
OPTWEB = {"gbps": 243, "model_gbps": 307, "N": 8, "W_bytes": 32, "M": 8, "C_mhz": 150, "A": 1,
          "B_gbps": 50, "m": 1, "key_values": 64, "keys": 2 ** 27, "key_bytes": 4, "cpu_cluster_gbps": 4.26,
          "keys_per_card": 2 ** 24}
CLOCK_MHZ = float(card_clock_mhz())  # the card's clock (shell, cores, RDMA block)
BUS_BYTES = 64         # the shell's 512-bit Avalon-MM masters
WRITER_BYTES = 4       # the first scatter writer took one 32-bit key per cycle (cards that report no MAX_BITS)
MEM_CHANNELS = 1       # one read and one write master serve a pass
RTL_ENGINE_GBPS = BUS_BYTES * CLOCK_MHZ / 1e3  # the RTL engine moves a 64-byte line per cycle
MODEL_ENGINE_GBPS = 64 * 390.625e6 / 1e9  # the network model's engine: a 64 B packet per cycle
PAYLOAD_EFF = 64 / 72  # payload bytes per wire byte of the model's full data packet
RTL_PAYLOAD_EFF = 1024 / 1032  # ... of the RTL cards' bulk packets (1 KiB)
DDR_GBPS = BUS_BYTES * CLOCK_MHZ / 1e3  # one DDR4 bank's bus as a pass uses it (reads, or writes)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cards", default="2,4,8", help="card counts, comma-separated (default 2,4,8)")
    p.add_argument("--keys", default="65536",
                   help="keys per card, comma-separated for several sizes (default 65536)")
    p.add_argument("--extrapolate", type=int, default=0, metavar="K",
                   help="also give each card count's figures at K keys per card (OPTWEB: 16777216, 64 MiB), from a "
                        "straight line through each phase's simulated time at the two largest --keys sizes")
    p.add_argument("--dtype", choices=["u32", "u64"], default="u32", help="key type (default u32)")
    p.add_argument("--payloads", action="store_true", help="a uint32 payload with every key")
    p.add_argument("--key-values", type=int, default=0, metavar="K",
                   help="keys drawn from K values 0..K-1 (OPTWEB: 64); default: the whole key range")
    p.add_argument("--known-range", action="store_true",
                   help="tell the sort the keys' range (0..K-1 with --key-values K, else the key type's): cards "
                        "with the scatter writer skip the range pass (OPTWEB's keys are known to be 6-bit)")
    p.add_argument("--single-pass", action="store_true",
                   help="OPTWEB's single pass where the keys span at most 64 values (with --known-range, on cards "
                        "built with --sort-scatter): each key read once and written once, at its destination")
    p.add_argument("--line-gbps", type=float, default=40.0,
                   help="line rate of the links (default 40: the PAC's QSFP+; 100 with RTL cards built with "
                        "--link-gbps 100)")
    p.add_argument("--rtl", type=Path, metavar="CARD",
                   help="RTL cards from `spgen build [cores/sort/sort_rank.spd] --links 4 [--sort-scatter]` in CARD "
                        "instead of the network model (a full mesh up to 5 cards, a 2 x N/2 torus above: a card has "
                        "4 link ports); cards built from the counting core run the counting passes, cards with the "
                        "scatter writer move every key (uint32 or uint64 keys, with payloads in pairs)")
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


def _utilisation(run, spec: dict, line_gbps: float, sim_s: float) -> list[dict]:
    """Per card moved by its writer: its DDR use over its passes (the bytes read and
    written over the passes' time, against a bank's bus reading and the other's writing,
    2 x DDR_GBPS) and over the whole sort on cards and links; its links' use during the
    scatter (bytes it sent to other cards over the phase's time, against its ports' line)."""
    per = run.extra.get("per_card")
    if not per:
        return []
    scatter = run.phase("single pass" if run.extra.get("single_pass") else "scatter").seconds
    ports = len(run.input.cards) - 1 if spec["topology"] == "fullmesh" else 4
    out = []
    for p in per:
        ddr = p["ddr_read"] + p["ddr_write"]
        out.append({**p, "ddr_passes": ddr / max(p["pass_ns"], 1) / (2 * DDR_GBPS),
                    "ddr_sort": ddr / sim_s / 1e9 / (2 * DDR_GBPS) if sim_s else 0.0,
                    "links_scatter": p["link_sent"] / scatter / 1e9 / (ports * line_gbps / 8) if scatter else 0.0})
        if p.get("stage_cycles"):  # the single pass: where its stage's cycles went
            out[-1].update({f"stage_{k}": p[k] / p["stage_cycles"]
                            for k in ("engine_reads", "engine_gaps", "writer_waits")})
    return out


def _stage_cycles(rows: list[dict]) -> str:
    """A line per single-pass run: the share of the pass's cycles in which the engine read a
    line of the stage, read none with lines put unread, and the writer waited on a full ring
    (the cards' range)."""
    out = []
    for r in rows:
        per = [p for p in r.get("per_card") or [] if "stage_engine_reads" in p]
        if per:
            out.append(f"single pass, {r['cards']} cards x {r['keys_per_card']} keys, the stage's cycles: engine "
                       f"reading {_spread([p['stage_engine_reads'] for p in per])}, engine gaps "
                       f"{_spread([p['stage_engine_gaps'] for p in per])}, writer waiting on a full ring "
                       f"{_spread([p['stage_writer_waits'] for p in per])}")
        if r.get("sequencer_host_s"):
            out.append(f"single pass run by the cards' sequencers: {r['phases']['single pass']['seconds'] * 1e6:.1f} µs "
                       f"by the cards' counts, {r['sequencer_host_s'] * 1e6:.1f} µs as the host saw it (its starts and "
                       f"polls included): host / cards {r['sequencer_host_s'] / r['phases']['single pass']['seconds']:.3f}")
    return "\n".join(out)


def _one(n: int, per: int, args: argparse.Namespace, dtype, bar) -> dict:
    from spgen import sort
    from spgen.runtime import rdma

    spec = _topology(n, args.rtl)
    spec["line_rate_gbps"] = args.line_gbps
    if args.rtl is not None:
        spec["card"] = str(args.rtl)
    if args.faults:
        spec["faults"] = {"per": args.faults}
    reps = []
    for rep in range(args.reps):
        cl = rdma.cluster(spec)
        keys = _keys(n * per, dtype, args.seed + rep, args.key_values)
        pays = np.arange(keys.size, dtype=np.uint32) if args.payloads else None
        bar.set_postfix_str(f"{n} cards")
        known = (0, (args.key_values or 1 << (8 * keys.itemsize)) - 1) if args.known_range else None
        r = sort.sort(cl, keys, pays, progress=lambda ph: bar.set_postfix_str(f"{n} cards: {ph}"), key_range=known,
                      single_pass=args.single_pass)
        order = np.argsort(keys, kind="stable")
        ok = bool(np.array_equal(r.keys, keys[order]) and (pays is None or np.array_equal(r.payloads, pays[order])))
        reps.append((r, ok))
        bar.update(1)
    runs = [r for r, _ in reps]
    med = lambda xs: float(np.median(xs))
    first = runs[0]
    moved = first.extra.get("moved_by") == "cards"
    ks, ps = first.input.dtype.itemsize, 4 if args.payloads else 0
    if moved and args.payloads and ks == 8:
        ps = 8   # the writers move a uint64 key's payload in a 16-byte element (a zero word with it)
    factor = (ks + ps) / ks  # bytes moved per key byte
    if moved and first.extra.get("single_pass"):   # one pass: read on the source, written on the destination
        passes = factor
    elif moved:   # the writer's passes over the keys on a card, and the network's scatter (x payload factor)
        passes = (first.extra["card_passes"] + 1) * factor
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
    sim_s = net + card_s
    return {"keys_per_card": per, "sim_s": sim_s, "sim_gbps": nbytes / sim_s / 1e9 if sim_s else 0.0,
            "host_over_cards": (sim_s + host) / sim_s if sim_s else 0.0,
            "per_card": _utilisation(first, spec, args.line_gbps, sim_s), "cards": n,
            "backend": "rtl" if args.rtl else "model", "topology": spec["topology"],
            "dims": spec.get("dims"), "keys": first.input.n, "dtype": str(first.input.dtype),
            "payloads": args.payloads, "bytes": nbytes, "phases": phases, "network_s": net, "host_s": host,
            "card_s": card_s, "gbps": nbytes / (net + host + card_s) / 1e9,
            # the single pass has no network phase of the host's: its puts are the cards'
            "network_gbps": nbytes / net / 1e9 if net else 0.0,
            "counting": "card" if card_s else "host", "moved_by": "cards" if moved else "host",
            "fused": bool(first.extra.get("fused")), "digit_bits": first.extra.get("digit_bits"),
            "card_passes": first.extra.get("card_passes"), "banks": first.extra.get("banks"),
            "model": mod, "model_gbps": mod["gbps"], "model_network_gbps": mod["network_gbps"],
            "network_vs_model": nbytes / net / 1e9 / mod["network_gbps"] if net else 0.0,
            "local_passes": first.local_passes, "key_values": args.key_values, "imbalance": max(r.imbalance for r in runs),
            "correct": all(ok for _, ok in reps), "reps": args.reps,
            "line_gbps": args.line_gbps, "engine_gbps": engine, "known_range": bool(args.known_range),
            "single_pass": bool(first.extra.get("single_pass")),
            # the single pass from the cards' sequencers: its time as the host saw it
            "sequencer_host_s": med([r.extra.get("host_ns", 0) for r in runs]) * 1e-9}


def _phase_names(rows: list[dict]) -> list[str]:
    names: list[str] = []
    for r in rows:
        names += [p for p in r["phases"] if p not in names]
    return names


def _spread(xs: list[float]) -> str:
    return "--" if not xs else f"{min(xs):.0%}" if min(xs) == max(xs) else f"{min(xs):.0%}-{max(xs):.0%}"


def _table(rows: list[dict]) -> str:
    names = _phase_names(rows)
    head = ("| cards | net | keys per card | " + " | ".join(names) +
            " | network GB/s (model N·B/m) | cards and links GB/s: total (per card) | model T (A) | DDR use, "
            "passes (cards) | links use, scatter (cards) | end-to-end GB/s | end to end / cards and links | correct |")
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        net = f"{r['backend']} {r['topology']}" + (f" {'x'.join(map(str, r['dims']))}" if r["dims"] else "")
        net += f" {r['line_gbps']:g} Gb/s"
        ph = [f"{r['phases'][p]['seconds'] * 1e6:.1f} µs ({r['phases'][p]['where']})" if p in r["phases"] else "--"
              for p in names]
        per = r.get("per_card") or []
        extra = (" (extrapolated" + ("; scatter at the engine's and ports' bound" if r.get("scatter_floor") else "")
                 + ")") if r.get("extrapolated") else ""
        out.append(f"| {r['cards']} | {net} | {r['keys_per_card']}{extra} {r['dtype']} | " + " | ".join(ph) +
                   f" | {_net_gbps(r)} ({r['model_network_gbps']:.2f}) | {r['sim_gbps']:.2f} "
                   f"({r['sim_gbps'] / r['cards']:.2f}) | {r['model_gbps']:.2f} (A={r['model']['A']:g}) | "
                   f"{_spread([p['ddr_passes'] for p in per])} | {_spread([p['links_scatter'] for p in per])} | "
                   f"{r['gbps']:.3f} | {r['host_over_cards']:.3f} | "
                   f"{'--' if r.get('extrapolated') else 'yes' if r['correct'] else 'NO'} |")
    return "\n".join(out)


def _net_gbps(r: dict) -> str:
    """The network phases' rate, "--" where the host ran none (the single pass: its puts are the cards')."""
    return f"{r['network_gbps']:.2f}" if r["network_s"] else "--"


def _extrapolate(rows: list[dict], k: int) -> list[dict]:
    """Per card count, the figures at k keys per card: each card and network phase's time
    on the straight line through the two largest measured sizes (fixed costs and the
    per-key cost), the host phases as at the largest (they work on the counts, whose size
    does not grow with the keys). A model of the runs, not a run."""
    out = []
    for n in dict.fromkeys(r["cards"] for r in rows):
        pts = sorted((r for r in rows if r["cards"] == n and not r.get("extrapolated")),
                     key=lambda r: r["keys_per_card"])[-2:]
        if len(pts) < 2 or pts[0]["keys_per_card"] == pts[1]["keys_per_card"]:
            continue
        a, b = pts
        if (a["digit_bits"], a["card_passes"]) != (b["digit_bits"], b["card_passes"]):
            continue   # another digit width or pass count: no straight line through them
        phases, floored = {}, False
        for name, pb in b["phases"].items():
            pa = a["phases"].get(name, pb)
            if pb["where"] == "host":
                t = pb["seconds"]
            else:
                # no faster with more keys: a falling line is the noise of latency-bound phases
                slope = max(0.0, (pb["seconds"] - pa["seconds"]) / (b["keys_per_card"] - a["keys_per_card"]))
                t = pb["seconds"] + slope * (k - b["keys_per_card"])
            if name == "scatter":   # not below what a card's engine and ports can move
                es = b["bytes"] // b["keys"] * (2 if b["payloads"] else 1)
                floor = max(es * k / b["engine_gbps"] / 1e9, es * k * (n - 1) / n / b["model"]["B_gbps"] / 1e9)
                floored, t = t < floor, max(t, floor)
            phases[name] = {**pb, "seconds": t}
        card_s = sum(p["seconds"] for p in phases.values() if p["where"] == "card")
        net = sum(p["seconds"] for p in phases.values() if p["where"] == "network")
        host = sum(p["seconds"] for p in phases.values() if p["where"] == "host")
        nbytes = b["bytes"] // b["keys_per_card"] * k
        per = [{**p, "ddr_passes": p["ddr_passes"], "links_scatter": p["links_scatter"]} for p in b["per_card"]]
        for p in per:   # the passes' and the scatter's bytes grow with the keys, their time as fitted
            f = k / b["keys_per_card"]
            p["ddr_passes"] *= f * b["card_s"] / card_s
            p["links_scatter"] *= f * b["phases"]["scatter"]["seconds"] / phases["scatter"]["seconds"]
        out.append({**b, "keys_per_card": k, "keys": k * n, "bytes": nbytes, "phases": phases, "card_s": card_s,
                    "network_s": net, "host_s": host, "sim_s": card_s + net, "sim_gbps": nbytes / (card_s + net) / 1e9,
                    "gbps": nbytes / (card_s + net + host) / 1e9, "network_gbps": nbytes / net / 1e9 if net else 0.0,
                    "host_over_cards": (card_s + net + host) / (card_s + net), "per_card": per,
                    "extrapolated": True, "from_keys_per_card": [a["keys_per_card"], b["keys_per_card"]],
                    "scatter_floor": floored})
    return out


def _side_by_side(rows: list[dict], cpu: dict) -> str:
    """The sort on the cards beside OPTWEB, its CPU cluster and numpy on this machine."""
    o = OPTWEB
    most = max(r["cards"] for r in rows)
    lines = [f"Side by side, GB/s of keys: OPTWEB {o['gbps']} (8 cards, 64 key values, 64 MiB a card) | "
             f"OPTWEB's 8-node CPU cluster {o['cpu_cluster_gbps']} | numpy.sort on this host "
             + f"{cpu['numpy_sort_gbps']:.3f}"]
    for r in rows:
        if r["cards"] == most:
            tag = "extrapolated" if r.get("extrapolated") else "simulated"
            lines.append(f"  here, {r['cards']} cards, {r['keys_per_card']} keys a card ({tag}): cards and links "
                         f"{r['sim_gbps']:.2f}, end to end {r['gbps']:.2f}; memory bound of its {r['model']['A']:g} "
                         f"passes {r['model']['memory_gbps']:.1f} ({r['sim_gbps'] / r['model']['memory_gbps']:.0%})")
    return "\n".join(lines)


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
    try:
        sizes = [int(k) for k in args.keys.split(",")]
    except ValueError:
        raise SpgenError(f"--keys: a comma-separated list of keys per card, got {args.keys!r}") from None
    if any(not 2 <= c <= 64 for c in counts):
        raise SpgenError("--cards: every count must be 2..64")
    if min(sizes) < 1 or args.reps < 1 or args.extrapolate < 0:
        raise SpgenError("--keys and --reps must be at least 1, --extrapolate at least 0")
    if args.extrapolate and len(set(sizes)) < 2:
        raise SpgenError("--extrapolate: give two sizes or more in --keys (a straight line through the two largest)")
    if args.key_values < 0 or args.key_values > 2 ** (32 if args.dtype == "u32" else 64):
        raise SpgenError(f"--key-values: 0 (the whole range) or 1..2^{32 if args.dtype == 'u32' else 64}")
    if args.rtl is not None and not args.rtl.exists():
        raise SpgenError(f"--rtl {args.rtl}: no such card build (spgen build --loopback --links 4 -o {args.rtl})")
    dtype = np.uint32 if args.dtype == "u32" else np.uint64
    t0 = time.monotonic()
    bar = tqdm(total=len(counts) * len(sizes) * args.reps, unit="sort", file=sys.stderr, disable=args.no_progress,
               desc="bench sort")
    rows = [_one(n, k, args, dtype, bar) for n in counts for k in sizes]
    bar.close()
    if args.extrapolate:
        rows += _extrapolate(rows, args.extrapolate)
    # numpy on as many keys as the largest sort here (up to 2^27, OPTWEB's 8 x 64 MiB)
    big = _keys(min(max(r["keys"] for r in rows), 1 << 27), dtype, args.seed, args.key_values)
    cpu = _cpu(big, np.arange(big.size, dtype=np.uint32) if args.payloads else None, max(args.reps, 3))
    print(_table(rows))
    if stage := _stage_cycles(rows):
        print(stage)
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
    print(_side_by_side(rows, cpu))
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
        _plot([r for r in rows if r["keys_per_card"] == sizes[-1] and not r.get("extrapolated")], cpu, args.plot)
    if not all(r["correct"] for r in rows):
        print("spgen bench sort: error: a sort's result differs from numpy's", file=sys.stderr)
        return 1
    return 0
