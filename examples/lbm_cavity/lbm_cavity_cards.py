"""Lid-driven cavity on a line of simulated cards (slabs), beside the emulator's steady state.

Runs an n x n cavity (Re = 100 by default) for --steps steps on --cards simulated cards in
slabs mode (each card a slab of rows: the bottom card holds the resting bottom wall, the
top card the moving lid, the ones between only fluid and the side walls), checks the whole
grid bit for bit against the emulator after the same steps, runs the emulator on to its
steady state, and compares both with Ghia, Ghia & Shin (1982): u on the vertical and v on
the horizontal centre line. Writes a plot and, with --json, the figures.

    python examples/lbm_cavity/lbm_cavity_cards.py --size 62 --cards 4 --steps 4000 -o cavity_cards.png
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from spgen import SpgenError
from spgen.lbm import (
    FLUID,
    MOVING_WALL,
    WALL,
    cavity,
    compile_core,
    initial_f,
    macroscopic,
    run_cards,
    run_emulator,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lbm_cavity as single


def slab_contents(attr: np.ndarray, slabs: list[tuple[int, int]]) -> list[dict[str, int]]:
    """Cells of each kind in each card's own rows."""
    return [{"rows": hi - lo, "fluid": int((attr[lo:hi] == FLUID).sum()), "wall": int((attr[lo:hi] == WALL).sum()),
             "lid": int((attr[lo:hi] == MOVING_WALL).sum())} for lo, hi in slabs]


def run(n: int = 62, cards: int = 4, steps: int = 4000, re: float = 100.0, lid: float = 0.1, cascade: int = 2,
        ranks: int | None = 1, progress=None) -> dict:
    """The card run, its bit-for-bit check, the emulator's steady state and both against Ghia."""
    from spgen.commands._bench_lbm import build_card
    from spgen.lbm import CORE_PATH

    omega = 1.0 / (3.0 * lid * n / re + 0.5)
    attr = cavity(n + 2, n + 2)
    f0 = initial_f(attr)
    build = build_card(CORE_PATH, n + 2, cascade, "fast", links=2)
    t0 = time.monotonic()
    r = run_cards(build, f0, attr, steps, cards=cards, mode="slabs", omega=omega, uw=(lid, 0.0), ranks=ranks,
                  progress=progress)
    card_wall = time.monotonic() - t0
    core = compile_core(n + 2)
    ref = run_emulator(core, f0, attr, steps=steps, omega=omega, uw=(lid, 0.0))
    exact = bool(np.array_equal(r.f.view(np.uint32), ref.view(np.uint32)))
    _, f_steady, _, steady_steps, change, _ = single.simulate(n, re, lid, 100_000, 500, 1e-4, quiet=True)
    _, ux_s, uy_s = macroscopic(f_steady, attr)
    return {"n": n, "grid": [n + 2, n + 2], "cards": cards, "ranks": ranks, "cascade": cascade, "steps": steps,
            "re": re, "lid": lid, "omega": omega, "bit_exact": exact, "card_wall_s": card_wall,
            "card_cycles": r.cycles, "card_seconds": r.seconds, "cell_steps_per_s": r.cell_steps_per_s,
            "stall_rate": r.stall_rate, "slabs": r.details["slabs"],
            "slab_contents": slab_contents(attr, r.details["slabs"]),
            "ghia_u_error_cards": single.ghia_error(r.ux, n, lid), "ghia_v_error_cards": single.ghia_v_error(r.uy, n, lid),
            "steady_steps": steady_steps, "steady_change": change,
            "ghia_u_error_steady": single.ghia_error(ux_s, n, lid), "ghia_v_error_steady": single.ghia_v_error(uy_s, n, lid),
            "_fields": (attr, r.ux, r.uy, ux_s, uy_s)}


def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _attr, ux, uy, ux_s, uy_s = res["_fields"]
    n, lid = res["n"], res["lid"]
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(15, 4.8), gridspec_kw={"width_ratios": [1.15, 1, 1]})
    speed = np.hypot(np.nan_to_num(ux), np.nan_to_num(uy))[1:-1, 1:-1] / lid
    im = a.imshow(speed, origin="lower", extent=(0, 1, 0, 1), cmap="viridis")
    cc = (np.arange(n) + 0.5) / n
    a.streamplot(cc, cc, np.nan_to_num(ux[1:-1, 1:-1]), np.nan_to_num(uy[1:-1, 1:-1]), color="white", density=1.0,
                 linewidth=0.5, arrowsize=0.6)
    for k, (lo, _hi) in enumerate(res["slabs"]):
        if lo:
            a.axhline((lo - 1) / n, color="red", lw=0.8, ls="--")
        a.text(0.02, ((lo + _hi) / 2 - 1) / n, f"card {k}", color="red", fontsize=8, va="center")
    fig.colorbar(im, ax=a, label="|u| / U")
    a.set(title=f"{res['cards']} cards, step {res['steps']:,} (slab borders dashed)", xlabel="x / L", ylabel="y / L")
    y, u = single.centreline(ux, n, lid)
    _, u_s = single.centreline(ux_s, n, lid)
    b.plot(u, y, label=f"{res['cards']} cards, step {res['steps']:,}")
    b.plot(u_s, y, label=f"emulator, steady (step {res['steady_steps']:,})")
    b.plot(single.GHIA_RE100[:, 1], single.GHIA_RE100[:, 0], "o", ms=4, label="Ghia et al. 1982")
    b.set(title="u on the vertical centre line", xlabel="u / U", ylabel="y / L")
    x, v = single.hcentreline(uy, n, lid)
    _, v_s = single.hcentreline(uy_s, n, lid)
    c.plot(x, v, label=f"{res['cards']} cards, step {res['steps']:,}")
    c.plot(x, v_s, label="emulator, steady")
    c.plot(single.GHIA_V_RE100[:, 0], single.GHIA_V_RE100[:, 1], "o", ms=4, label="Ghia et al. 1982")
    c.set(title="v on the horizontal centre line", xlabel="x / L", ylabel="v / U")
    for ax in (b, c):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"lid-driven cavity, Re = {res['re']:g}, {n} x {n} fluid cells")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", type=int, default=62, help="fluid cells per side (default 62: a 64 x 64 grid)")
    p.add_argument("--cards", type=int, default=4, help="simulated cards (default 4)")
    p.add_argument("--steps", type=int, default=4000, help="steps on the cards (default 4000)")
    p.add_argument("--cascade", type=int, default=2, help="cores per card (default 2)")
    p.add_argument("--ranks", type=int, default=1,
                   help="MPI processes simulating the cards (default 1)")
    p.add_argument("--re", type=float, default=100.0)
    p.add_argument("--lid", type=float, default=0.1, help="lid velocity in lattice units (default 0.1)")
    p.add_argument("-o", "--out", type=Path, default=Path("lbm_cavity_cards.png"))
    p.add_argument("--json", type=Path, help="write the figures as JSON")
    a = p.parse_args(argv)
    try:
        if a.size < 2 or a.cards < 1 or a.steps < 1:
            raise SpgenError("--size must be at least 2, --cards and --steps positive")
        res = run(a.size, a.cards, a.steps, a.re, a.lid, a.cascade, a.ranks)
        plot(res, a.out)
    except SpgenError as e:
        print(f"lbm_cavity_cards: error: {e}", file=sys.stderr)
        return 1
    print(f"{a.size} x {a.size} cavity, Re {a.re:g}, omega {res['omega']:.4f}, {a.cards} cards x {a.cascade} cores, "
          f"{a.steps} steps: {'bit-exact with the emulator' if res['bit_exact'] else 'MISMATCH with the emulator'}")
    for k, c in enumerate(res["slab_contents"]):
        print(f"  card {k}: rows {res['slabs'][k][0]}..{res['slabs'][k][1] - 1}: {c['fluid']} fluid, {c['wall']} wall, "
              f"{c['lid']} lid cells")
    print(f"  cards: {res['card_cycles']:,} cycles = {res['card_seconds'] * 1e3:.2f} ms simulated, "
          f"{res['cell_steps_per_s'] / 1e6:.1f} M cell-steps/s, stall {max(res['stall_rate']) * 100:.3f} %, "
          f"{res['card_wall_s']:.0f} s of wall time")
    print(f"  vs Ghia at step {a.steps}: u {res['ghia_u_error_cards']:.4f} U, v {res['ghia_v_error_cards']:.4f} U")
    print(f"  emulator steady at step {res['steady_steps']}: u {res['ghia_u_error_steady']:.4f} U, "
          f"v {res['ghia_v_error_steady']:.4f} U")
    if a.json:
        a.json.write_text(json.dumps({k: v for k, v in res.items() if not k.startswith("_")}, indent=2) + "\n")
    print(f"wrote {a.out}")
    return 0 if res["bit_exact"] else 1


if __name__ == "__main__":
    sys.exit(main())
