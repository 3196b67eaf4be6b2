"""Plain numpy float32 model of one D2Q9 time step exactly as LBM.md states it.

Independent of the SPD core: it works on 2-D arrays and reads neighbours by grid
index, not through stream shifts. The float32 operations follow the core's order
(cores/lbm/*.spd) so the two agree bit for bit:

- rho* = f0 + f1 + ... + f8, left to right;
- moving wall: fin_i = f_opp(i) + (6 w_i rho*) * (e_i . uw), with e_i . uw formed by
  sign flips of uw_x, uw_y, uw_x + uw_y, uw_x - uw_y (IEEE negation is exact);
- rho = fin0 + ... + fin8; j = sum of +-fin_i in direction order; u = j * (1 / rho);
- feq_i = (w_i rho) * ((base + 4.5 (e_i.u)^2) + 3 e_i.u) with base = 1 - 1.5 u.u,
  feq_0 = (w_0 rho) * base;
- f_i' = fin_i - omega (fin_i - feq_i).
"""
from __future__ import annotations

import numpy as np

__all__ = ["OPP", "E", "W", "equilibrium", "macroscopic", "run", "step"]

f32 = np.float32
E = ((0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))
OPP = (0, 3, 4, 1, 2, 7, 8, 5, 6)
# Weights as the float32 roundings of 4/9, 1/9, 1/36.
W = (f32(4) / f32(9),) + (f32(1) / f32(9),) * 4 + (f32(1) / f32(36),) * 4


def _dot(i: int, ax, ay, apb, amb):
    """e_i . a, given a_x, a_y, a_x + a_y and a_x - a_y (only exact sign flips)."""
    return (None, ax, ay, -ax, -ay, apb, -amb, -apb, amb)[i]


def equilibrium(rho, ux, uy):
    """feq_i for i = 0..8 in the core's operation order (float32 arrays)."""
    uu = ux * ux + uy * uy
    base = f32(1) - f32(1.5) * uu
    upp = ux + uy
    # The core forms e_6.u as uy - ux and e_8.u as its negation.
    dots = (None, ux, uy, -ux, -uy, upp, uy - ux, -upp, -(uy - ux))
    feq = [(W[0] * rho) * base]
    for i in range(1, 9):
        c = dots[i]
        feq.append((W[i] * rho) * ((base + f32(4.5) * (c * c)) + f32(3) * c))
    return feq


def macroscopic(f):
    """rho, ux, uy of distributions ``f`` (sequence of nine arrays), core's order."""
    rho = f[0]
    for i in range(1, 9):
        rho = rho + f[i]
    jx = ((((f[1] - f[3]) + f[5]) - f[6]) - f[7]) + f[8]
    jy = ((((f[2] - f[4]) + f[5]) + f[6]) - f[7]) - f[8]
    ri = f32(1) / rho
    return rho, jx * ri, jy * ri


def step(f: np.ndarray, attr: np.ndarray, omega: float, uw=(0.0, 0.0)) -> np.ndarray:
    """One time step: ``f`` float32 (9, H, W), ``attr`` uint32 (H, W); returns new f."""
    f = np.asarray(f, dtype=np.float32)
    kind = np.asarray(attr, dtype=np.uint32) & 3
    H, Wd = kind.shape
    if H < 3 or Wd < 3:
        raise ValueError("grid must be at least 3 x 3")
    edge = np.ones_like(kind, dtype=bool)
    edge[1:-1, 1:-1] = False
    if np.any(kind[edge] == 0):
        raise ValueError("the outermost layer must be non-fluid (LBM.md)")
    om = f32(omega)
    uwx, uwy = f32(uw[0]), f32(uw[1])
    uwpp, uwmm = uwx + uwy, uwx - uwy

    def interior(a):
        return a[1:-1, 1:-1]

    def nb(a, i):
        """a at the neighbour x - e_i of every interior cell."""
        ex, ey = E[i]
        return a[1 - ey:H - 1 - ey, 1 - ex:Wd - 1 - ex]

    own = [interior(f[i]) for i in range(9)]
    rs = own[0]
    for i in range(1, 9):
        rs = rs + own[i]
    fin = [own[0]]
    for i in range(1, 9):
        k = nb(kind, i)
        bounce = own[OPP[i]]
        moving = bounce + ((f32(6) * W[i]) * rs) * _dot(i, uwx, uwy, uwpp, uwmm)
        fin.append(np.where(k == 0, nb(f[i], i), np.where(k == 2, moving, bounce)))
    rho, ux, uy = macroscopic(fin)
    feq = equilibrium(rho, ux, uy)
    out = f.copy()
    fluid = interior(kind) == 0
    for i in range(9):
        new = fin[i] - om * (fin[i] - feq[i])
        out[i, 1:-1, 1:-1] = np.where(fluid, new, own[i])
    return out


def run(f: np.ndarray, attr: np.ndarray, omega: float, uw=(0.0, 0.0), steps: int = 1) -> np.ndarray:
    for _ in range(steps):
        f = step(f, attr, omega, uw)
    return f
