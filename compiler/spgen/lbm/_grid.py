"""D2Q9 grids and the 40-byte record stream of LBM.md, as numpy arrays: a thin wrapper.

The grid code is afushell/lbm.hpp (runtime/include), which C++ programs and the MPI slab
runner include and spgen.runtime._afushell binds; the record layout and the lattice come
from cores/lbm/lbm_record.json (spgen.lbm._layout). Here: numpy's side only (dtypes,
shapes, the structured record view) and errors as SpgenError.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._diagnostics import SpgenError
from ._layout import FLUID, MOVING_WALL, OPP, RECORD_DTYPE, WALL, WEIGHTS, E

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
    "native",
    "perturbed_cavity",
    "to_records",
]


def native(name: str, *args: Any) -> Any:
    """The result of afushell/lbm.hpp's function `name` (lbm_*) in the runtime's Python
    module (built on first use); its std::invalid_argument as SpgenError."""
    from ..runtime._build import load_extension
    try:
        return getattr(load_extension(), name)(*args)
    except ValueError as e:
        raise SpgenError(str(e)) from None


def closed_box(width: int, height: int) -> np.ndarray:
    """attr (H, W) uint32: fluid inside, resting walls on the outermost layer."""
    return native("lbm_closed_box", int(width), int(height))


def cavity(width: int, height: int) -> np.ndarray:
    """Lid-driven cavity: walls left, right and bottom, moving wall on the top row.

    The two top corners stay resting walls, so the lid is the top row between them.
    """
    return native("lbm_cavity", int(width), int(height))


def channel(width: int, height: int, radius: float | None = None,
            center: tuple[float, float] | None = None) -> np.ndarray:
    """Channel along x with a circular obstacle.

    Top and bottom rows are resting walls; the left and right columns are moving-wall
    cells, which with ``uw = (U, 0)`` inject and remove fluid at velocity U (the
    velocity-bounce-back inlet and outlet, as lbmpy's UBB). The obstacle (resting wall)
    has ``radius`` (default H/8) around ``center`` (default (W/4, H/2)).
    """
    r = None if radius is None else float(radius)
    c = None if center is None else (float(center[0]), float(center[1]))
    return native("lbm_channel", int(width), int(height), r, c)


def check_grid(attr: np.ndarray) -> np.ndarray:
    """Validate an attr grid (H, W); the outermost layer must be non-fluid (LBM.md).
    Returns a uint32 copy."""
    a = np.asarray(attr)
    if not np.issubdtype(a.dtype, np.integer) or (a.size and (a.min() < 0 or a.max() > 0xFFFFFFFF)):
        raise SpgenError("attr values must be unsigned 32-bit integers")
    return native("lbm_check_grid", np.array(a, dtype=np.uint32))


def initial_f(attr: np.ndarray, rho: float = 1.0) -> np.ndarray:
    """Equilibrium at rest, f_i = w_i rho, float32 (9, H, W) (LBM.md's initial state)."""
    h, w = np.shape(attr)
    return native("lbm_initial_f", h, w, float(rho))


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
    raw = native("lbm_to_records", np.asarray(f), check_grid(attr))
    return raw.view(RECORD_DTYPE)


def from_records(records: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(f (9, H, W) float32, attr (H, W) uint32) from a record stream of a W-wide grid."""
    names = RECORD_DTYPE.names
    if getattr(records, "dtype", None) is None or records.dtype.names is None \
            or any(n not in records.dtype.names for n in names):
        raise SpgenError("expected a structured array with fields f0..f8 and attr")
    if records.ndim != 1:
        raise SpgenError(f"a stream of shape {records.shape} is not a grid of width {width}")
    if records.dtype != RECORD_DTYPE:   # other field types, order or extra fields
        records = records[list(names)].astype(RECORD_DTYPE)
    return native("lbm_from_records", np.ascontiguousarray(records).view(np.uint8), int(width))


def macroscopic(f: np.ndarray, attr: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """rho, ux, uy (H, W) in float64 for analysis; non-fluid cells get NaN if attr given."""
    return native("lbm_macroscopic", np.asarray(f), None if attr is None else np.asarray(attr))
