"""Running N steps of a grid on a cluster of simulated cards: the modes' common part.

`run_cards` dispatches to a mode's runner; every runner takes the same arguments
(``RUNNER_ARGS``) and returns a `CardsResult`:

    runner(build, f, attr, steps, *, cards=2, omega=1.0, uw=(0.0, 0.0), link_gbps=None,
           faults=None, seed=1, progress=None) -> CardsResult

``slabs`` is `spgen.lbm._cards_mpi.run_slabs_mpi` (the cards' host drivers as one CSR state
machine, in one process or split over MPI ranks: one host schedule, so every rank count
gives the same figures); ``pipeline`` is `spgen.lbm._cards_pipeline.run_pipeline` where that
module is part of the build.
"""
from __future__ import annotations

import importlib
import os
from collections.abc import Callable

import numpy as np

from .._diagnostics import SpgenError
from ._cards_common import CardsResult
from ._grid import check_grid

__all__ = ["MODES", "CardsResult", "run_cards"]

MODES = ("slabs", "pipeline")


def _runner(mode: str) -> Callable[..., CardsResult]:
    if mode == "pipeline":
        try:
            mod = importlib.import_module("spgen.lbm._cards_pipeline")
        except ModuleNotFoundError as e:
            if e.name != "spgen.lbm._cards_pipeline":
                raise
            raise SpgenError("pipeline mode is not in this build (spgen.lbm._cards_pipeline is missing); "
                             "use mode=\"slabs\"") from None
        return mod.run_pipeline
    raise SpgenError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")


def run_cards(build: str | os.PathLike, f: np.ndarray, attr: np.ndarray, steps: int, *, cards: int = 2,
              mode: str = "slabs", omega: float = 1.0, uw: tuple[float, float] = (0.0, 0.0),
              link_gbps: float | None = None, faults: dict | None = None, seed: int = 1,
              progress: Callable[[str], None] | None = None, ranks: int | None = None) -> CardsResult:
    """Advances f (9, H, W) by ``steps`` on ``cards`` simulated cards of a ``spgen build
    --cascade C --links L`` of the LBM core, in ``mode`` "slabs" (each card a slab of
    rows, halos exchanged by RDMA) or "pipeline" (the record stream card to card).

    ``link_gbps`` sets every link's line rate (default: the cluster file's, 40);
    ``faults`` are the cluster file's ``faults`` (``{"per": 1e-4, "drop": 1e-3, ...}``,
    docs/rdma.md) on every link; ``progress`` is called with short notes as the run goes.
    Slabs run the tool ``lbm-slabs-mpi`` (`spgen.lbm._cards_mpi`) in one process, or with
    ``ranks=K`` split over K MPI processes (`mpirun`); every K gives the same grid, cycles
    and counters.
    Returns a `CardsResult` (``f, rho, u = result``).
    """
    check_grid(attr)
    if ranks is not None and mode != "slabs":
        raise SpgenError(f"MPI ranks run mode \"slabs\" only, not {mode!r}")
    if mode == "slabs":
        from ._cards_mpi import run_slabs_mpi

        return run_slabs_mpi(build, f, attr, steps, cards=cards, ranks=1 if ranks is None else ranks, omega=omega,
                             uw=uw, link_gbps=link_gbps, faults=faults, seed=seed, progress=progress)
    return _runner(mode)(build, f, attr, steps, cards=cards, omega=omega, uw=uw, link_gbps=link_gbps,
                         faults=faults, seed=seed, progress=progress)
