"""D2Q9 grids and the 40-byte record stream of LBM.md, to and from numpy arrays."""
from __future__ import annotations

import numpy as np

from .._diagnostics import SpgenError

__all__ = [
    "FLUID",
    "MOVING_WALL",
    "OPP",
    "RECORD_DTYPE",
    "WALL",
    "WEIGHTS",
    "E",
    "cavity",
    "channel",
    "check_grid",
    "closed_box",
    "from_records",
    "initial_f",
    "macroscopic",
    "perturbed_cavity",
    "to_records",
]

E = np.array([(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)])
WEIGHTS = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
OPP = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])
FLUID, WALL, MOVING_WALL = 0, 1, 2

# One stream element: f0..f8 then attr, ten little-endian 32-bit words (port 0 lowest).
RECORD_DTYPE = np.dtype([(f"f{i}", "<f4") for i in range(9)] + [("attr", "<u4")])


def _size(width: int, height: int) -> tuple[int, int]:
    if int(width) < 3 or int(height) < 3:
        raise SpgenError(f"grid {width}x{height} is too small: at least 3x3 "
                         f"(one fluid cell inside a boundary layer)")
    return int(width), int(height)


def closed_box(width: int, height: int) -> np.ndarray:
    """attr (H, W) uint32: fluid inside, resting walls on the outermost layer."""
    w, h = _size(width, height)
    attr = np.full((h, w), WALL, dtype=np.uint32)
    attr[1:-1, 1:-1] = FLUID
    return attr


def cavity(width: int, height: int) -> np.ndarray:
    """Lid-driven cavity: walls left, right and bottom, moving wall on the top row.

    The two top corners stay resting walls, so the lid is the top row between them.
    """
    attr = closed_box(width, height)
    attr[-1, 1:-1] = MOVING_WALL
    return attr


def channel(width: int, height: int, radius: float | None = None,
            center: tuple[float, float] | None = None) -> np.ndarray:
    """Channel along x with a circular obstacle.

    Top and bottom rows are resting walls; the left and right columns are moving-wall
    cells, which with ``uw = (U, 0)`` inject and remove fluid at velocity U (the
    velocity-bounce-back inlet and outlet, as lbmpy's UBB). The obstacle (resting wall)
    has ``radius`` (default H/8) around ``center`` (default (W/4, H/2)).
    """
    w, h = _size(width, height)
    attr = closed_box(w, h)
    attr[1:-1, 0] = MOVING_WALL
    attr[1:-1, -1] = MOVING_WALL
    r = h / 8 if radius is None else float(radius)
    cx, cy = (w / 4, h / 2) if center is None else center
    y, x = np.mgrid[0:h, 0:w]
    attr[(x - cx) ** 2 + (y - cy) ** 2 <= r * r] = WALL
    return attr


def check_grid(attr: np.ndarray) -> np.ndarray:
    """Validate an attr grid (H, W); the outermost layer must be non-fluid (LBM.md)."""
    a = np.asarray(attr)
    if a.ndim != 2 or a.shape[0] < 3 or a.shape[1] < 3:
        raise SpgenError(f"attr must be a 2-D (H, W) grid of at least 3x3, got shape {a.shape}")
    if not np.issubdtype(a.dtype, np.integer) or a.min() < 0 or a.max() > 0xFFFFFFFF:
        raise SpgenError("attr values must be unsigned 32-bit integers")
    a = a.astype(np.uint32)
    edge = np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]]) & 3
    if np.any(edge == FLUID):
        raise SpgenError("the outermost layer of the grid must be non-fluid cells "
                         "(the core never reads across a row end for a fluid cell)")
    return a


def initial_f(attr: np.ndarray, rho: float = 1.0) -> np.ndarray:
    """Equilibrium at rest, f_i = w_i rho, float32 (9, H, W) (LBM.md's initial state)."""
    h, w = np.shape(attr)
    return np.broadcast_to((WEIGHTS * rho).astype(np.float32)[:, None, None], (9, h, w)).copy()


def perturbed_cavity(width: int, height: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(f, attr): a cavity with an obstacle and a moving-wall cell inside, f 2 % off rest by a
    seeded normal draw; the grid the LBM benchmarks run and check bit for bit."""
    attr = cavity(width, height)
    attr[height // 2, width // 3] = WALL
    attr[1, width - 3] = MOVING_WALL
    rng = np.random.default_rng(seed)
    f = (initial_f(attr) * (1 + 0.02 * rng.standard_normal((9,) + attr.shape))).astype(np.float32)
    return f, attr


def to_records(f: np.ndarray, attr: np.ndarray) -> np.ndarray:
    """Record stream (N = H*W, row-major, x fastest) from f (9, H, W) and attr (H, W)."""
    a = check_grid(attr)
    f = np.asarray(f)
    if f.shape != (9,) + a.shape:
        raise SpgenError(f"f must have shape (9, {a.shape[0]}, {a.shape[1]}), got {f.shape}")
    rec = np.empty(a.size, dtype=RECORD_DTYPE)
    for i in range(9):
        rec[f"f{i}"] = f[i].astype(np.float32).ravel()
    rec["attr"] = a.ravel()
    return rec


def from_records(records: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(f (9, H, W) float32, attr (H, W) uint32) from a record stream of a W-wide grid."""
    names = ("attr",) + tuple(f"f{i}" for i in range(9))
    if getattr(records, "dtype", None) is None or records.dtype.names is None \
            or any(n not in records.dtype.names for n in names):
        raise SpgenError("expected a structured array with fields f0..f8 and attr")
    if records.ndim != 1 or width <= 0 or len(records) % width:
        raise SpgenError(f"a stream of {len(records)} records is not a grid of width {width}")
    h = len(records) // width
    f = np.stack([records[f"f{i}"].astype(np.float32).reshape(h, width) for i in range(9)])
    return f, records["attr"].astype(np.uint32).reshape(h, width)


def macroscopic(f: np.ndarray, attr: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """rho, ux, uy (H, W) in float64 for analysis; non-fluid cells get NaN if attr given."""
    f = np.asarray(f, dtype=np.float64)
    rho = f.sum(axis=0)
    ux = np.tensordot(E[:, 0].astype(np.float64), f, axes=1) / rho
    uy = np.tensordot(E[:, 1].astype(np.float64), f, axes=1) / rho
    if attr is not None:
        solid = (np.asarray(attr) & 3) != FLUID
        rho, ux, uy = (np.where(solid, np.nan, a) for a in (rho, ux, uy))
    return rho, ux, uy
