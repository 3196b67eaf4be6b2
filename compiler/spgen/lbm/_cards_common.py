"""What every runner of a grid on a cluster of cards shares: the result, checks, the cluster file."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._diagnostics import SpgenError
from ._grid import macroscopic
from ._layout import RECORD_BYTES

__all__ = ["RECORD_BYTES", "CardsResult", "check_cards", "check_steps", "cluster_spec", "finish",
           "open_build_info"]


@dataclass
class CardsResult:
    """A grid advanced on a cluster of cards, and how the run went.

    ``f, rho, u = result`` unpacks the grid (float32 (9, H, W)), the density and the
    velocity ``(ux, uy)`` (float64 (H, W), NaN on non-fluid cells).
    Times are simulated: the cluster clock (cycles at ``clock_mhz``) that the cards'
    DMA engines and cores and the links share.
    """

    f: np.ndarray
    rho: np.ndarray
    ux: np.ndarray
    uy: np.ndarray
    mode: str
    cards: int
    depth: int                     # cores in each card's cascade
    steps: int
    cycles: int                    # end to end: first upload request to last download done
    clock_mhz: float
    stall_rate: list[float]        # per card: at its first core's input, over its F2F runs
    runs: list[list[Any]] = field(default_factory=list)       # per card: RunResult of each run
    link_bytes: int = 0            # payload bytes sent over links (halos or streams)
    link_gbps: float = 0.0         # line rate of each link
    link_utilisation: float = 0.0  # link_bytes / (busy directed links x line rate x time)
    transfers: list[dict] = field(default_factory=list)       # RDMA operations, with cycles
    wall_s: float = 0.0            # host wall time of the simulation
    details: dict = field(default_factory=dict)                # mode-specific figures

    @property
    def seconds(self) -> float:
        return self.cycles / (self.clock_mhz * 1e6) if self.clock_mhz else 0.0

    @property
    def cell_steps_per_s(self) -> float:
        """Cell updates per simulated second, end to end (the grid's cells x steps / time)."""
        cells = self.f.shape[1] * self.f.shape[2]
        return cells * self.steps / self.seconds if self.cycles else 0.0

    def __iter__(self):
        return iter((self.f, self.rho, (self.ux, self.uy)))


def finish(f: np.ndarray, attr: np.ndarray, **kw: Any) -> CardsResult:
    """A CardsResult with the macroscopic fields of f."""
    rho, ux, uy = macroscopic(f, attr)
    return CardsResult(f=f, rho=rho, ux=ux, uy=uy, **kw)


def open_build_info(build: str | os.PathLike) -> tuple[Path, dict]:
    """The build folder and its build.json, or a clear error for anything else."""
    if not isinstance(build, (str, os.PathLike)):
        raise SpgenError(f"expected a `spgen build --cascade C --links L` folder, got {type(build).__name__}")
    b = Path(build)
    info_file = b / "build.json"
    if not info_file.is_file():
        raise SpgenError(f"{b}: not a spgen build folder (no build.json); build the card with "
                         f"`spgen build cores/lbm/lbm_d2q9.spd -P W=<width> --cascade C --links 2 -o DIR`")
    return b, json.loads(info_file.read_text())


def cluster_spec(build: Path, cards: int, link_gbps: float | None, faults: dict | None,
                 seed: int) -> dict:
    """A line of `cards` RTL cards (a 1-D mesh: card k linked to k - 1 and k + 1)."""
    spec: dict[str, Any] = {"topology": "mesh", "dims": [cards], "card": str(build), "seed": int(seed)}
    if link_gbps is not None:
        spec["line_rate_gbps"] = link_gbps
    if faults:
        spec["faults"] = dict(faults)
    return spec


def check_steps(steps: Any, depth: int, what: str) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise SpgenError(f"steps must be a non-negative integer, got {steps!r}")
    if steps < 2 * depth or steps % depth:
        raise SpgenError(f"{what}: each card's cascade of {depth} core(s) advances the grid {depth} steps "
                         f"per pass and the upload and the download are passes too: steps must be a "
                         f"multiple of {depth}, at least {2 * depth}, got {steps}")
    return int(steps)


def check_cards(cards: Any) -> int:
    if isinstance(cards, bool) or not isinstance(cards, (int, np.integer)) or not 1 <= cards <= 64:
        raise SpgenError(f"cards must be an integer 1..64 (a cluster's size), got {cards!r}")
    return int(cards)
