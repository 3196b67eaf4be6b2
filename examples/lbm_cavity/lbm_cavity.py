"""Lid-driven cavity with the D2Q9 SPD core in the emulator: run to steady state, draw the flow."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from spgen import SpgenError
from spgen.lbm import cavity, compile_core, initial_f, macroscopic, run_emulator

# Ghia, Ghia & Shin, J. Comput. Phys. 48 (1982), Table I: u / U on the vertical
# centre line of the cavity at Re = 100, against y / L.
GHIA_RE100 = np.array([
    (1.0000, 1.00000), (0.9766, 0.84123), (0.9688, 0.78871), (0.9609, 0.73722),
    (0.9531, 0.68717), (0.8516, 0.23151), (0.7344, 0.00332), (0.6172, -0.13641),
    (0.5000, -0.20581), (0.4531, -0.21090), (0.2813, -0.15662), (0.1719, -0.10150),
    (0.1016, -0.06434), (0.0703, -0.04775), (0.0625, -0.04192), (0.0547, -0.03717),
    (0.0000, 0.00000)])
# Ghia, Ghia & Shin (1982), Table II: v / U on the horizontal centre line at Re = 100,
# against x / L.
GHIA_V_RE100 = np.array([
    (1.0000, 0.00000), (0.9688, -0.05906), (0.9609, -0.07391), (0.9531, -0.08864),
    (0.9453, -0.10313), (0.9063, -0.16914), (0.8594, -0.22445), (0.8047, -0.24533),
    (0.5000, 0.05454), (0.2344, 0.17527), (0.2266, 0.17507), (0.1563, 0.16077),
    (0.0938, 0.12317), (0.0781, 0.10890), (0.0703, 0.10091), (0.0625, 0.09233),
    (0.0000, 0.00000)])


def centreline(ux: np.ndarray, n: int, lid: float) -> tuple[np.ndarray, np.ndarray]:
    """(y / L, u / U) on the vertical centre line, walls half-way between cells."""
    y = (np.arange(1, n + 1) - 0.5) / n
    mid = ux[1:-1, 1 + (n - 1) // 2] if n % 2 else 0.5 * (ux[1:-1, n // 2] + ux[1:-1, n // 2 + 1])
    return y, mid / lid


def hcentreline(uy: np.ndarray, n: int, lid: float) -> tuple[np.ndarray, np.ndarray]:
    """(x / L, v / U) on the horizontal centre line."""
    x, v = centreline(uy.T, n, lid)
    return x, v


def ghia_error(ux: np.ndarray, n: int, lid: float) -> float:
    """Largest |u/U - Ghia| at Ghia's interior points (interpolated in y)."""
    y, u = centreline(ux, n, lid)
    pts = GHIA_RE100[1:-1]
    return float(np.abs(np.interp(pts[:, 0], y, u) - pts[:, 1]).max())


def ghia_v_error(uy: np.ndarray, n: int, lid: float) -> float:
    """Largest |v/U - Ghia| at Ghia's interior points of Table II (interpolated in x)."""
    x, v = hcentreline(uy, n, lid)
    pts = GHIA_V_RE100[1:-1][::-1]
    return float(np.abs(np.interp(pts[:, 0], x, v) - pts[:, 1]).max())


def simulate(n: int, re: float, lid: float, max_steps: int, chunk: int, tol: float,
             quiet: bool = False):
    """Run an n x n cavity until the velocity changes less than ``tol`` (of U) per chunk."""
    if re <= 0 or lid <= 0:
        raise SpgenError("--re and --lid must be positive")
    nu = lid * n / re
    omega = 1.0 / (3.0 * nu + 0.5)
    if not 0.0 < omega < 2.0:
        raise SpgenError(f"Re = {re} on {n} x {n} cells needs omega = {omega:.3f}, outside (0, 2)")
    attr = cavity(n + 2, n + 2)
    core = compile_core(n + 2)
    f = initial_f(attr)
    steps, change = 0, np.inf
    prev = np.zeros(attr.shape)
    t0 = time.perf_counter()
    while steps < max_steps:
        f = run_emulator(core, f, attr, steps=chunk, omega=omega, uw=(lid, 0.0))
        steps += chunk
        _, ux, uy = macroscopic(f, attr)
        speed = np.nan_to_num(np.hypot(ux, uy))
        change = float(np.abs(speed - prev).max() / lid)
        prev = speed
        if not quiet:
            print(f"step {steps:7d}: max change {change:.2e} U", flush=True)
        if change < tol:
            break
    wall = time.perf_counter() - t0
    return attr, f, omega, steps, change, wall


def plot(path: Path, attr: np.ndarray, f: np.ndarray, n: int, lid: float, re: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, ux, uy = macroscopic(f, attr)
    ux, uy = ux[1:-1, 1:-1] / lid, uy[1:-1, 1:-1] / lid
    c = (np.arange(n) + 0.5) / n
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 5), gridspec_kw={"width_ratios": [1.25, 1]})
    im = a.imshow(np.hypot(ux, uy), origin="lower", extent=(0, 1, 0, 1), cmap="viridis")
    a.streamplot(c, c, ux, uy, color="white", density=1.2, linewidth=0.6, arrowsize=0.7)
    a.set(title=f"lid-driven cavity, Re = {re:g}, {n} x {n} cells", xlabel="x / L",
          ylabel="y / L")
    fig.colorbar(im, ax=a, label="|u| / U")
    y, u = centreline(np.pad(ux * lid, 1), n, lid)
    b.plot(u, y, label="SPD core (emulator)")
    if re == 100:
        b.plot(GHIA_RE100[:, 1], GHIA_RE100[:, 0], "o", label="Ghia et al. 1982")
    b.set(title="u on the vertical centre line", xlabel="u / U", ylabel="y / L")
    b.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--size", type=int, default=64, help="fluid cells per side (default 64)")
    p.add_argument("--re", type=float, default=100.0, help="Reynolds number U L / nu (default 100)")
    p.add_argument("--lid", type=float, default=0.1, help="lid velocity in lattice units")
    p.add_argument("--max-steps", type=int, default=100_000)
    p.add_argument("--chunk", type=int, default=500, help="steps between convergence checks")
    p.add_argument("--tol", type=float, default=1e-4, help="steady when the speed changes "
                   "less than this (fraction of U) over a chunk")
    p.add_argument("-o", "--out", type=Path, default=Path("lbm_cavity.png"))
    p.add_argument("-q", "--quiet", action="store_true")
    a = p.parse_args(argv)
    try:
        if a.size < 2 or a.chunk < 1 or a.max_steps < 1:
            raise SpgenError("--size must be at least 2, --chunk and --max-steps positive")
        attr, f, omega, steps, change, wall = simulate(a.size, a.re, a.lid, a.max_steps,
                                                       a.chunk, a.tol, a.quiet)
        plot(a.out, attr, f, a.size, a.lid, a.re)
    except SpgenError as e:
        print(f"lbm_cavity: error: {e}", file=sys.stderr)
        return 1
    _, ux, _ = macroscopic(f, attr)
    state = "steady" if change < a.tol else f"not steady after {steps} steps"
    cells = a.size * a.size * steps
    print(f"{a.size} x {a.size} cavity, Re {a.re:g}, omega {omega:.4f}: {state} at step {steps} "
          f"({cells / wall / 1e6:.1f} M fluid-cell updates/s in the emulator)")
    if a.re == 100:
        _, _, uy = macroscopic(f, attr)
        print(f"centre-line u vs Ghia et al. (1982): max |error| = {ghia_error(ux, a.size, a.lid):.4f} U, "
              f"v: {ghia_v_error(uy, a.size, a.lid):.4f} U")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
