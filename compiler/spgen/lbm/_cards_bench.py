"""`spgen bench lbm --cards ...`: LBM across a cluster of simulated cards, measured and modelled.

For each cascade depth C, link rate, scaling (strong: one grid W x H for every card count;
weak: H rows per card, W x (H N) in all) and card count N, runs `run_cards` and checks the
result bit for bit against the emulator on the whole grid. Reports M cell-steps/s end to
end, the stall rate at each card's first core input, link utilisation, parallel efficiency
(rate_N / (N rate_1) of the same series) and the end-to-end time, beside the model:

    T(N) = P (R_N W + F) + (P - 1) X

P = steps / C passes (upload, F2F runs, download), R_N the rows of the largest slab
(own rows + 2 C halo rows), F the fixed cycles of a pass (pipeline fill, DMA set-up,
interrupt: measured on one card as T(1) / P - H W), X the cycles of one halo exchange
(the slowest put of an exchange round, median over the rounds, measured; it does not
depend on the grid's height). A card's next pass waits for its halos, so passes and
exchanges add up; exchanges of different cards overlap each other and other cards' passes.

In pipeline mode a pass moves the H W records through every card once, at the rate the
slowest stage takes them: one record per cycle (the cascade), the records a link carries,
r = min(line rate, the card's port rate) x 255/258 (STREAM packets) / (40 B x 200 MHz), or
the records the first card's PCIe link brings from host memory, p = 7.877 GB/s x 256/286
(completions of 256 bytes, 30 more on the wire) / 8 GB/s = 0.881, whichever is least:

    T(N) = P (H W / min(1, r, p) + F)      stall at each card's first core = 1 - min(1, r, p)

with F from the one-card run as T(1) / P - H W / min(1, p) (N = 1: no link, r = 1).
"""
from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._diagnostics import SpgenError
from .._plotting import finish_axes, pyplot, save
from ._cards import run_cards
from ._cards_common import RECORD_BYTES
from ._cards_slabs import slab_layout
from ._grid import perturbed_cavity

__all__ = ["CardsBench", "model_cycles", "plot", "run_bench", "table"]


@dataclass
class CardsBench:
    depths: list[int]
    cards: list[int]
    gbps: list[float]
    scalings: list[str]
    mode: str
    width: int
    height: int
    steps_per_depth: int      # passes: steps = this x C
    omega: float = 1.6
    faults: dict | None = None
    ranks: int | None = None  # slabs over MPI ranks (min(ranks, cards) processes per run)


def model_cycles(height: int, width: int, cards: int, depth: int, passes: int, fixed: float,
                 exchange: float) -> float:
    """T(N) of the module's description, in cycles."""
    rows = max(s.rows for s in slab_layout(height, cards, depth))
    return passes * (rows * width + fixed) + (passes - 1) * exchange * (cards > 1)


def pipeline_model_cycles(height: int, width: int, passes: int, fixed: float, records_per_cycle: float) -> float:
    """T(N) of pipeline mode (the module's description), in cycles."""
    return passes * (height * width / records_per_cycle + fixed)


def run_bench(cfg: CardsBench, build_for: Callable[[int], Path], core, tick: Callable[[str], None]) -> list[dict]:
    """Every configuration of cfg; rows of figures (see table())."""
    from ._run import run_emulator

    rows: list[dict] = []
    refs: dict[tuple[int, int], np.ndarray] = {}
    for depth in cfg.depths:
        tick(f"building cascade {depth} with 2 links")
        build = build_for(depth)
        steps = cfg.steps_per_depth * depth
        for gbps in cfg.gbps:
            for scaling in cfg.scalings:
                series: list[dict] = []
                for n in cfg.cards:
                    h = cfg.height if scaling == "strong" else cfg.height * n
                    f, attr = perturbed_cavity(cfg.width, h, seed=h)
                    tick(f"{cfg.mode} C={depth} {gbps:g} Gb/s {scaling} {n} card(s) {cfg.width}x{h}")
                    ranks = min(cfg.ranks, n) if cfg.ranks else None
                    try:
                        r = run_cards(build, f, attr, steps, cards=n, mode=cfg.mode, omega=cfg.omega,
                                      uw=(0.05, 0.0), link_gbps=gbps, faults=cfg.faults, ranks=ranks)
                    except SpgenError as e:
                        rows.append({"mode": cfg.mode, "cascade": depth, "link_gbps": gbps, "scaling": scaling,
                                     "cards": n, "grid": [cfg.width, h], "error": str(e)})
                        continue
                    key = (h, steps)
                    if key not in refs:
                        refs[key] = run_emulator(core, f, attr, steps=steps, omega=cfg.omega, uw=(0.05, 0.0))
                    ok = bool(np.array_equal(r.f.view(np.uint32), refs[key].view(np.uint32)))
                    puts = [t["cycles"] for t in r.transfers]
                    rounds: dict[int, int] = {}
                    for t in r.transfers:   # an exchange lasts as long as its slowest put
                        rounds[t["after_pass"]] = max(rounds.get(t["after_pass"], 0), t["cycles"])
                    row = {"mode": cfg.mode, "cascade": depth, "link_gbps": gbps, "scaling": scaling, "cards": n,
                           "grid": [cfg.width, h], "steps": steps,
                           "passes": steps // (depth * (n if cfg.mode == "pipeline" else 1)),
                           "bytes_per_card": max(s.rows for s in slab_layout(h, n, depth)) * cfg.width * RECORD_BYTES
                           if cfg.mode == "slabs" else h * cfg.width * RECORD_BYTES,
                           "cycles": r.cycles, "clock_mhz": r.clock_mhz, "e2e_us": r.seconds * 1e6,
                           "mcell_steps_per_s": r.cell_steps_per_s / 1e6,
                           "stall_rate_in": r.stall_rate, "stall_rate_max": max(r.stall_rate),
                           # pipeline mode: each card's stall from its first record on (the wait
                           # for the cascades before it to fill left out)
                           "stall_rate_flowing": r.details.get("flowing_stall_rates"),
                           "in_first_cycles": [c.get("in_first_cycles") for c in r.details["cards"]]
                           if "cards" in r.details else None,
                           "link_utilisation": r.link_utilisation, "link_bytes": r.link_bytes,
                           "halo_put_cycles": statistics.median(puts) if puts else 0,
                           "exchange_cycles": statistics.median(rounds.values()) if rounds else 0,
                           "simulated_cycles": r.details.get("simulated_cycles"),
                           "wall_s": r.wall_s, "verified": ok, "ranks": ranks or 1,
                           "port_gbps": r.details.get("port_gbps"),
                           "host_feed_records_per_cycle": r.details.get("host_feed_records_per_cycle")}
                    series.append(row)
                    rows.append(row)
                _efficiency_and_model(series, cfg.width)
    return rows


def _efficiency_and_model(series: list[dict], width: int) -> None:
    one = next((r for r in series if r["cards"] == 1), None)
    if one is None:
        return
    h1 = one["grid"][1]
    # the PCIe feed of the first card bounds a pipeline's pass on one card too
    feed = min(1.0, one.get("host_feed_records_per_cycle") or 1.0) if one["mode"] == "pipeline" else 1.0
    fixed = one["cycles"] / one["passes"] - h1 * width / feed
    for r in series:
        r["efficiency"] = r["mcell_steps_per_s"] / (r["cards"] * one["mcell_steps_per_s"])
        exchange = r["exchange_cycles"]
        if r["mode"] == "pipeline":
            rate = min(1.0, r.get("host_feed_records_per_cycle") or 1.0)
            if r["cards"] > 1:
                from ._cards_pipeline import link_records_per_cycle

                rate = min(rate, link_records_per_cycle(r["link_gbps"], r["port_gbps"] or r["link_gbps"],
                                                        r["clock_mhz"]))
            model = pipeline_model_cycles(r["grid"][1], width, r["passes"], fixed, rate)
            r["model_stall_rate"] = 1.0 - rate
        else:
            model = model_cycles(r["grid"][1], width, r["cards"], r["cascade"], r["passes"], fixed, exchange)
        r["model_cycles"] = model
        r["model_mcell_steps_per_s"] = r["grid"][0] * r["grid"][1] * r["steps"] * r["clock_mhz"] / model
        r["model_fixed_cycles"], r["model_exchange_cycles"] = fixed, exchange


def table(rows: list[dict]) -> str:
    head = (f"{'mode':>6} {'C':>2} {'Gb/s':>4} {'scaling':>7} {'N':>2} {'grid':>9} {'B/card':>10} {'steps':>5} "
            f"{'Mcell-st/s':>10} {'model':>8} {'eff.':>7} {'e2e us':>9} {'stall in':>9} {'link util':>9} "
            f"{'exchange':>8}  emulator")
    out = [head]
    for r in rows:
        if "error" in r:
            out.append(f"{r['mode']:>6} {r['cascade']:>2} {r['link_gbps']:>4g} {r['scaling']:>7} {r['cards']:>2} "
                       f"{r['grid'][0]}x{r['grid'][1]:<5} error: {r['error']}")
            continue
        out.append(f"{r['mode']:>6} {r['cascade']:>2} {r['link_gbps']:>4g} {r['scaling']:>7} {r['cards']:>2} "
                   f"{r['grid'][0]:>3}x{r['grid'][1]:<5} {r['bytes_per_card']:>10,} {r['steps']:>5} "
                   f"{r['mcell_steps_per_s']:>10.1f} {r.get('model_mcell_steps_per_s', 0):>8.1f} "
                   f"{r.get('efficiency', 0) * 100:>6.1f}% {r['e2e_us']:>9.1f} {r['stall_rate_max'] * 100:>8.3f}% "
                   f"{r['link_utilisation'] * 100:>8.2f}% {r['exchange_cycles']:>8.0f}  "
                   + (f"(model stall {r['model_stall_rate'] * 100:.1f}%) " if "model_stall_rate" in r else "") +
                   f"{'bit-exact' if r['verified'] else 'MISMATCH'}" + _per_card_stalls(r))
    out.append("Mcell-st/s: million cell-steps per simulated second, end to end (first upload to last download); "
               "model: slabs T(N) = P (R_N W + F) + (P - 1) X, pipeline T(N) = P (H W / min(1, r, p) + F) (docs/lbm.md); eff.: rate_N / (N rate_1) of the series; "
               "stall in: worst card's first-core input over its F2F runs; link util: halo bytes / (links x line "
               "rate x time); exchange: cycles of a halo exchange (its slowest put, median over the rounds); "
               "pipeline mode, per card: the first-core stall from the card's start, and once records flow "
               "(from the first record that reached its first core on)")
    return "\n".join(out)


def _per_card_stalls(r: dict) -> str:
    """A pipeline row's stall at each card's first core, from its start and once records flow."""
    flowing = r.get("stall_rate_flowing")
    if not flowing:
        return ""

    def pct(xs: list[float]) -> str:
        return " / ".join(f"{x * 100:.1f}" for x in xs) + " %"
    return f"\n{'':>8}stall from start {pct(r['stall_rate_in'])}; stall once records flow {pct(flowing)}"


def plot(rows: list[dict], path: Path) -> None:
    plt = pyplot()
    good = [r for r in rows if "error" not in r]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    keys = sorted({(r["mode"], r["cascade"], r["link_gbps"], r["scaling"]) for r in good})
    for key in keys:
        rs = sorted((r for r in good if (r["mode"], r["cascade"], r["link_gbps"], r["scaling"]) == key),
                    key=lambda r: r["cards"])
        label = f"{key[0]} C={key[1]} {key[2]:g} Gb/s {key[3]}"
        x = [r["cards"] for r in rs]
        line = a.plot(x, [r["mcell_steps_per_s"] for r in rs], marker="o", ms=3, label=label)[0]
        a.plot(x, [r.get("model_mcell_steps_per_s", np.nan) for r in rs], ls=":", color=line.get_color())
        b.plot(x, [r.get("efficiency", np.nan) * 100 for r in rs], marker="o", ms=3, label=label)
    finish_axes(((a, "throughput (dotted: model)", "M cell-steps / s"),
                 (b, "parallel efficiency", "%")), "cards")
    fig.suptitle("D2Q9 LBM across simulated cards")
    save(fig, path)


def summary(rows: list[dict]) -> dict[str, Any]:
    big = [r for r in rows if "error" not in r and r["bytes_per_card"] >= 524_160]
    return {"worst_stall_rate_at_524160B_per_card": max((r["stall_rate_max"] for r in big), default=None),
            "runs_at_524160B_per_card": len(big)}
