"""Slabs across cards, the runner of `run_cards(..., mode="slabs")`, in one process or K MPI ranks.

`runtime/rdma/lbm_slabs_mpi.cpp` (the tool ``lbm-slabs-mpi``, built with mpicxx against the
runtime and cached by content) runs the slabs and halo exchange of docs/lbm.md with the
host side of every card as a CSR driver on the cluster clock: it polls the RX engine's
``DONE_COUNT`` with posted MMIO reads and acts once per look-ahead window (L cycles, the
shortest link latency), where the hosts learn every card's progress. That is the one host
schedule of slabs mode: 1 and K ranks (``mpirun -np K``, each rank a contiguous block of
the cards) give the same grid, the same cycles and the same counters.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .._diagnostics import SpgenError
from ._cards_common import (
    RECORD_BYTES,
    CardsResult,
    check_cards,
    check_steps,
    cluster_spec,
    finish,
    open_build_info,
)
from ._cards_slabs import slab_layout
from ._grid import RECORD_DTYPE, check_grid, from_records, to_records

__all__ = ["build_slabs_tool", "mpirun_env", "run_slabs_mpi"]


def build_slabs_tool() -> Path:
    """The ``lbm-slabs-mpi`` executable (runtime/rdma/lbm_slabs_mpi.cpp), built against the
    runtime library, cached by content."""
    from ..runtime._build import repo_root
    from ..runtime.rdma import build_mpi_program

    root = repo_root()
    return build_mpi_program("lbm-slabs-mpi", root / "runtime" / "rdma" / "lbm_slabs_mpi.cpp",
                             (root / "runtime" / "rdma" / "rtl_mpi_window.hpp", root / "runtime" / "sim" / "cluster.hpp",
                              root / "runtime" / "sim" / "card.hpp", root / "shell" / "include" / "afushell_csr.h",
                              *sorted((root / "runtime" / "include" / "afushell").glob("lbm*.hpp"))))


def mpirun_env() -> dict[str, str]:
    """mpirun's environment: root allowed (containers), more ranks than cores allowed, and a
    rank waiting in a collective yields its core (the ranks meet once per look-ahead window,
    and on a machine with fewer free cores than ranks a spinning rank slows the others)."""
    return dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1")


def run_slabs_mpi(build, f: np.ndarray, attr: np.ndarray, steps: int, *, cards: int = 2, ranks: int = 1,
                  omega: float = 1.0, uw: tuple[float, float] = (0.0, 0.0), link_gbps: float | None = None,
                  faults: dict | None = None, seed: int = 1, progress: Callable[[str], None] | None = None,
                  timeout_s: float | None = None) -> CardsResult:
    """`run_cards(..., mode="slabs", ranks=K)`: the slabs on `cards` cards in `ranks` MPI
    processes (1..cards). The runners' common arguments and result; ``cycles`` is
    the cluster clock from the first upload's request to the window in which the last card's
    download was seen done (identical for every rank count), ``details["ranks"]`` the ranks."""
    a = check_grid(attr)
    h, w = a.shape
    cards = check_cards(cards)
    if isinstance(ranks, bool) or not isinstance(ranks, (int, np.integer)) or not 1 <= ranks <= cards:
        raise SpgenError(f"ranks must be an integer 1..cards ({cards}): each rank simulates at least one card, "
                         f"got {ranks!r}")
    path, info = open_build_info(build)
    depth = int(info.get("params", {}).get("N_CORES", 0) or 0)
    if depth < 1:
        raise SpgenError(f"{path}: a build without cores (cascade {depth}); build the LBM core with --cascade C")
    if cards > 1 and int(info.get("links", 0) or 0) < 2:
        raise SpgenError(f"{path}: slabs on {cards} cards need 2 link ports per card (one to each neighbour), "
                         f"the build has {info.get('links', 0)}: rebuild with --links 2")
    built_w = info.get("core_params", {}).get("W")
    if built_w is not None and int(built_w) != w:
        raise SpgenError(f"{path}: its cores were built for grids {built_w} cells wide (Param W), the grid is "
                         f"{w} wide: rebuild with -P W={w}")
    steps = check_steps(steps, depth, f"slabs on {cards} card(s)")
    layout = slab_layout(h, cards, depth)
    exe = build_slabs_tool()
    if progress:
        progress(f"slabs over {ranks} MPI rank(s): {steps // depth} passes on {cards} card(s)")
    t_wall = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="spgen-slabs-mpi-") as tmp:
        d = Path(tmp)
        spec = cluster_spec(path.resolve(), cards, link_gbps, faults, seed)
        (d / "cluster.json").write_text(json.dumps(spec))
        to_records(f, a).tofile(d / "in.rec")
        cmd = ["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "none", str(exe), str(d / "cluster.json"),
               str(d / "in.rec"), str(d / "out.rec"), str(w), str(depth), str(steps), repr(float(omega)),
               repr(float(uw[0])), repr(float(uw[1]))]
        if not shutil.which("mpirun"):
            raise SpgenError("MPI ranks need OpenMPI's mpirun: apt-get install libopenmpi-dev openmpi-bin "
                             "(scripts/ensure-system-packages.sh)")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=mpirun_env(), timeout=timeout_s,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise SpgenError(f"slabs over {ranks} MPI rank(s) did not finish within {timeout_s:.0f} s") from None
        if proc.returncode != 0:
            msg = [ln for ln in proc.stderr.splitlines() if "lbm-slabs-mpi:" in ln] or proc.stderr.splitlines()[-20:]
            raise SpgenError(f"slabs over {ranks} MPI rank(s) failed (exit {proc.returncode}): " + "\n".join(msg))
        rep = json.loads(proc.stdout.strip().splitlines()[-1])
        out = np.fromfile(d / "out.rec", dtype=RECORD_DTYPE)
    clock = float(rep["clock_mhz"])
    by_card = sorted(rep["card_list"], key=lambda c: c["card"])
    stall = [(c["in_total_cycles"] - c["in_moved_cycles"]) / c["in_total_cycles"] if c["in_total_cycles"] else 0.0
             for c in by_card]
    transfers = sorted(rep["transfers"], key=lambda t: (t["issued"], t["from"], t["to"]))
    link_bytes = sum(t["bytes"] for t in transfers)
    gbps = float(link_gbps if link_gbps is not None else 40.0)
    cycles = int(rep["cycles"])
    directed = 2 * (cards - 1)
    util = link_bytes / (directed * gbps / 8 * 1e9 * cycles / (clock * 1e6)) if directed and cycles else 0.0
    return finish(from_records(out, w)[0], a, mode="slabs", cards=cards, depth=depth, steps=steps, cycles=cycles,
                  clock_mhz=clock, stall_rate=stall, runs=[], link_bytes=link_bytes, link_gbps=gbps,
                  link_utilisation=util, transfers=transfers, wall_s=time.monotonic() - t_wall,
                  details={"slabs": [(s.lo, s.hi) for s in layout], "halo_rows": depth, "passes": steps // depth,
                           "ranks": ranks, "window_cycles": rep["window"], "link_stats": rep["links"],
                           "simulated_cycles": cycles, "mpi_wall_s": rep["wall_s"],
                           "pass_cycles": [c["passes"] for c in by_card], "row_bytes": w * RECORD_BYTES})
