"""Plain numpy float32 models of the heat9 and stencil7_3d cores (grid indexing, core's op order)."""
from __future__ import annotations

import numpy as np

__all__ = ["heat9", "stencil7_3d"]

f32 = np.float32


def heat9(u: np.ndarray, attr: np.ndarray, r: float) -> np.ndarray:
    """One step on a (H, W) grid; cells with attr != 0 (the outermost layer must be) are fixed."""
    c = u[1:-1, 1:-1]
    west, east, south, north = u[1:-1, :-2], u[1:-1, 2:], u[:-2, 1:-1], u[2:, 1:-1]
    edge = ((west + east) + south) + north
    corner = ((u[:-2, :-2] + u[:-2, 2:]) + u[2:, :-2]) + u[2:, 2:]
    lap = ((f32(4) * edge + corner) - f32(20) * c) * (f32(1) / f32(6))
    out = u.copy()
    out[1:-1, 1:-1] = np.where(attr[1:-1, 1:-1] == 0, c + f32(r) * lap, c)
    return out


def stencil7_3d(u: np.ndarray, attr: np.ndarray, c0: float, c1: float) -> np.ndarray:
    """One step on a (NZ, NY, NX) grid; attr != 0 cells (the outermost layer must be) are fixed."""
    c = u[1:-1, 1:-1, 1:-1]
    sx = u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]
    sy = u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
    sz = u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]
    out = u.copy()
    new = f32(c0) * c + f32(c1) * ((sx + sy) + sz)
    out[1:-1, 1:-1, 1:-1] = np.where(attr[1:-1, 1:-1, 1:-1] == 0, new, c)
    return out
