"""LBM on a chain of simulated cards in pipeline mode (as CIRCUS): the record stream flows
card to card over links, each card's cascade of C cores adds C steps, so one pass through
N cards advances the grid N x C steps (docs/lbm.md, "Pipeline across cards")."""
from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .._card import CLOCK_MHZ
from .._diagnostics import SpgenError
from ..runtime._build import link_bits
from ._cards_common import (
    RECORD_BYTES,
    CardsResult,
    check_cards,
    cluster_spec,
    finish,
    open_build_info,
)
from ._grid import check_grid, from_records, to_records

__all__ = ["host_feed_records_per_cycle", "pipeline_card", "run_pipeline", "sim_params"]



_BUILT: dict[tuple, Path] = {}  # pipeline cards built by this process


def pipeline_card(width: int, cascade: int, *, link_gbps: int = 40, core: str | Path | None = None) -> Path:
    """The build folder of a card for pipeline mode: the LBM core (or the .spd `core`)
    compiled for grids `width` cells wide, a cascade of `cascade` cores (the fast core
    model), 2 link ports. Built once per process into a temporary folder; the simulated
    card itself comes from the build cache (SPGEN_CACHE) while its sources stay the same."""
    import atexit
    import shutil

    from .._afu_build import build
    from ._run import CORE_PATH

    spd = Path(core or CORE_PATH).resolve()
    if not spd.is_file():
        raise SpgenError(f"{spd}: no such core (.spd)")
    key = (str(spd), int(width), int(cascade), int(link_gbps))
    if key not in _BUILT:
        out = Path(tempfile.mkdtemp(prefix=f"spgen-pipeline-{spd.stem}-"))
        atexit.register(shutil.rmtree, out, True)
        build(spd, out, params={"W": int(width)}, cascade=int(cascade), links=2,
              link_gbps=int(link_gbps), core_model="fast")
        _BUILT[key] = out
    return _BUILT[key]


def run_pipeline(build: str | Path | None, f: np.ndarray, attr: np.ndarray, steps: int, *, cards: int = 2,
                 omega: float = 1.0, uw: tuple[float, float] = (0.0, 0.0), link_gbps: float | None = None,
                 faults: dict | None = None, seed: int = 1, progress: Callable[[str], None] | None = None,
                 cascade: int | None = None, back_pressure: tuple[int, int] | None = None) -> CardsResult:
    """`spgen.lbm.run_cards` in mode "pipeline": advance f (9, H, W) by `steps` time steps
    on a line of `cards` simulated cards. Card 0's TX DMA streams the grid into its
    cascade, each card's cascade output goes over a link into the next card's cascade,
    the last card's RX DMA writes the grid back; a pass advances it cards x C steps, so
    `steps` must be a positive multiple of that (one card: its own cascade, C steps).

    `build`: a `spgen build ... --cascade C --links 2` folder of the LBM core, or None / a
    .spd path: a card is built for this grid (`cascade` cores, the fast core model) on
    first use. `faults`: the cluster file's "faults" on every link (retransmission hides
    them). `back_pressure` = (max_chunk, max_gap): the host feeds both ends in random
    descriptors of 1..max_chunk records, 0..max_gap cycles apart. Returns a `CardsResult`;
    its ``details`` hold the stream's figures per card and link (``stall_rates`` from each
    card's start, ``flowing_stall_rates`` once records flow, ``link_utilisation`` in words on
    the cable per cycle, ``payload_utilisation``,
    ``needed_link_gbps``, the raw counters).
    """
    from ..runtime import rdma

    a = check_grid(attr)
    cards = check_cards(cards)
    if build is None or Path(build).suffix == ".spd":
        if cascade is None or not 1 <= int(cascade) <= 255:
            raise SpgenError(f"cascade must be 1..255 when the card is built here, got {cascade!r}")
        build = pipeline_card(a.shape[1], int(cascade), link_gbps=int(link_gbps or 40), core=build)
    path, info = open_build_info(build)
    depth = int(info.get("params", {}).get("N_CORES", 0) or 0)
    if depth < 1:
        raise SpgenError(f"{path}: a build without cores (cascade {depth}); build the LBM core with --cascade C")
    if cascade is not None and int(cascade) != depth:
        raise SpgenError(f"{path}: a cascade of {depth} cores, not {cascade}")
    if cards > 1 and int(info.get("links", 0) or 0) < 2:
        raise SpgenError(f"{path}: a pipeline on {cards} cards needs 2 link ports per card (one to each "
                         f"neighbour), the build has {info.get('links', 0)}: rebuild with --links 2")
    width = info.get("core_params", {}).get("W")
    if width is not None and int(width) != a.shape[1]:
        raise SpgenError(f"{path}: its cores were built for grids {width} cells wide (Param W), the grid is "
                         f"{a.shape[1]} wide: rebuild with -P W={a.shape[1]}")
    per_pass = cards * depth
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < per_pass or steps % per_pass:
        raise SpgenError(f"pipeline on {cards} card(s): each pass advances the grid {per_pass} steps ({cards} "
                         f"card(s) x {depth} core(s)): steps must be a positive multiple of {per_pass}, got {steps!r}")
    t_wall = time.monotonic()
    cl = rdma.cluster(cluster_spec(path, cards, link_gbps, faults, seed))
    for k in range(cards):
        for name, value in (("omega", omega), ("uw_x", uw[0]), ("uw_y", uw[1])):
            cl[k].write_reg(name, float(value))
    chunk, gap = back_pressure or (0, 0)
    passes = int(steps) // per_pass
    if progress:
        progress(f"pipeline: {passes} pass(es) through {cards} card(s)")
    out, run = cl.pipeline(list(range(cards)), to_records(f, a), passes=passes, max_chunk=chunk,
                           max_gap=gap, seed=seed)
    details = run.as_dict()
    feed = host_feed_records_per_cycle(sim_params(cl), RECORD_BYTES)
    details.update(needed_link_gbps=needed_link_gbps(run.clock_mhz), record_bytes=RECORD_BYTES,
                   host_feed_records_per_cycle=feed, host_feed_stall_rate=max(0.0, 1.0 - feed),
                   simulated_cycles=run.cycles,
                   # the stream endpoints' rate: a beat of the link port per cycle (a word in
                   # word-wide builds)
                   port_gbps=link_bits(info.get("params", {})) * run.clock_mhz / 1e3)
    gbps = float(link_gbps if link_gbps is not None else 40.0)
    link_bytes = 4 * sum(c["stream_tx_words"] for c in run.cards)
    directed = cards - 1
    util = link_bytes / (directed * gbps / 8 * 1e9 * run.seconds) if directed and run.cycles else 0.0
    return finish(from_records(out, a.shape[1])[0], a, mode="pipeline", cards=cards, depth=depth,
                  steps=int(steps), cycles=run.cycles, clock_mhz=run.clock_mhz, stall_rate=run.stall_rates,
                  runs=[], link_bytes=link_bytes, link_gbps=gbps, link_utilisation=util,
                  wall_s=time.monotonic() - t_wall, details=details)


def sim_params(cl) -> dict[str, float]:
    """The model parameters of a cluster's RTL cards (docs/runtime.md), as numbers."""
    out = {}
    for line in cl.sim.sim_params().splitlines():
        k, _, v = line.partition("=")
        out[k] = float(v)
    return out


def host_feed_records_per_cycle(params: dict[str, float], record_bytes: int = RECORD_BYTES) -> float:
    """Records per cycle the first card's TX DMA can take from host memory: PCIe's raw rate
    per direction in completions of `pcie_mps` payload bytes, each with its TLP overhead and
    DLLP share (docs/runtime.md), over the record size. With the defaults (Gen3 x8, 7.877 GB/s
    raw, 256-byte completions, 30 bytes each on top) 7.05 GB/s of records, 0.881 a cycle at
    200 MHz: the cascade's 8 GB/s is more than the link to the host carries."""
    mps = params["pcie_mps"]
    payload = params["pcie_gbytes_per_s"] * 1e9 * mps / (mps + params["pcie_tlp_overhead"]
                                                         + params["pcie_dllp_bytes"])
    return payload / (record_bytes * params["clock_mhz"] * 1e6)


# record words per word on the cable (a packet's header, control word and CRC): the line-wide
# endpoints' bulk STREAM packets, and the word-wide endpoints' 15-word packets
STREAM_EFFICIENCY = 255 / 258
WORD_STREAM_EFFICIENCY = 15 / 18


def link_records_per_cycle(line_gbps: float, port_gbps: float, clock_mhz: float = CLOCK_MHZ,
                           record_bytes: int = RECORD_BYTES) -> float:
    """Records per cycle a link carries: the slower of its line and the card's port, times the
    STREAM packets' efficiency, over the record size (at 200 MHz, 1.0 needs 8 GB/s of records).
    A port of a word a cycle is a word-wide build's, with its short packets."""
    eff = WORD_STREAM_EFFICIENCY if port_gbps <= 32 * clock_mhz / 1e3 else STREAM_EFFICIENCY
    payload_bytes_per_s = min(line_gbps, port_gbps) * 1e9 / 8 * eff
    return payload_bytes_per_s / (record_bytes * clock_mhz * 1e6)


def needed_link_gbps(clock_mhz: float = CLOCK_MHZ, record_bytes: int = RECORD_BYTES) -> dict[str, float]:
    """The link rate a pipeline needs so that every card's first core takes one record per
    cycle: the records' payload alone, and with the STREAM packet format of the links
    (a packet of 255 data words carries a header, a control word and a CRC)."""
    payload = record_bytes * 8 * clock_mhz * 1e6 / 1e9
    return {"payload": payload, "on_link": payload / STREAM_EFFICIENCY}
