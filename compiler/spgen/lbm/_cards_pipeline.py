"""LBM on a chain of simulated cards in pipeline mode (as CIRCUS): the record stream flows
card to card over links, each card's cascade of C cores adds C steps, so one pass through
N cards advances the grid N x C steps (docs/lbm.md, "Pipeline across cards")."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .._diagnostics import SpgenError
from ._grid import RECORD_DTYPE, check_grid, from_records, to_records

__all__ = ["pipeline_card", "run_pipeline"]

RECORD_BYTES = RECORD_DTYPE.itemsize  # 40: f0..f8 and attr


_BUILT: dict[tuple, Path] = {}  # pipeline cards built by this process


def pipeline_card(width: int, cascade: int, *, link_gbps: int = 40, core: str | Path | None = None) -> Path:
    """The build folder of a card for pipeline mode: the LBM core (or the .spd `core`)
    compiled for grids `width` cells wide, a cascade of `cascade` cores (the fast core
    model), 2 link ports. Built once per process into a temporary folder; the simulated
    card itself comes from the build cache (SPGEN_CACHE) while its sources stay the same."""
    import atexit
    import io
    import shutil
    from contextlib import redirect_stderr, redirect_stdout

    from ..cli import main
    from ._run import CORE_PATH

    spd = Path(core or CORE_PATH).resolve()
    if not spd.is_file():
        raise SpgenError(f"{spd}: no such core (.spd)")
    key = (str(spd), int(width), int(cascade), int(link_gbps))
    if key not in _BUILT:
        out = Path(tempfile.mkdtemp(prefix=f"spgen-pipeline-{spd.stem}-"))
        atexit.register(shutil.rmtree, out, True)
        log = io.StringIO()
        with redirect_stdout(log), redirect_stderr(log):
            rc = main(["build", str(spd), "-P", f"W={width}", "--cascade", str(cascade), "--links", "2",
                       "--link-gbps", str(link_gbps), "--core-model", "fast", "-o", str(out)])
        if rc:
            raise SpgenError(f"building the pipeline card failed:\n{log.getvalue()[-2000:]}")
        _BUILT[key] = out
    return _BUILT[key]


def _card_facts(build: Path) -> dict[str, Any]:
    try:
        summary = json.loads((build / "build.json").read_text())
    except (OSError, ValueError) as e:
        raise SpgenError(f"{build}: not a spgen build folder ({e})") from None
    if not summary.get("links"):
        raise SpgenError(f"{build}: a card without links; build it with --links 2")
    return summary


def run_pipeline(core: str | Path | None, f: np.ndarray, attr: np.ndarray, steps: int, *, cards: int = 2,
                 cascade: int | None = None, link_gbps: int = 40, faults: dict | None = None,
                 omega: float = 1.0, uw: tuple[float, float] = (0.0, 0.0), back_pressure: tuple[int, int] | None = None,
                 seed: int = 1) -> tuple[np.ndarray, dict[str, Any]]:
    """Advance f (9, H, W) by `steps` time steps on a ring of `cards` simulated cards in
    pipeline mode: card 0's TX DMA streams the grid into its cascade, each card's cascade
    output goes over a link into the next card's cascade, the last card's RX DMA writes
    the grid back; a pass advances it cards x cascade steps, so `steps` must be a positive
    multiple of that.

    `core`: a `spgen build ... --links 2` folder of the LBM core (its cascade and width
    are taken from it), or None / a .spd path: built for this grid (`cascade` cores, the
    fast core model) on first use. `faults`: the cluster file's "faults" (e.g. ``{"per":
    1e-3, "drop": 1e-3}``), applied to every link; retransmission hides them.
    `back_pressure`: (max_chunk, max_gap): the host feeds both ends in random descriptors
    of 1..max_chunk records, 0..max_gap cycles apart. Returns the new f and the run's
    figures: cycles, stall rate at every card's first core, link and payload utilisation,
    cell updates per second at the card clock, and the link rate the stream would need.
    """
    from ..runtime import rdma

    a = check_grid(attr)
    if not isinstance(cards, int) or not 2 <= cards <= 64:
        raise SpgenError(f"cards must be 2..64 for a pipeline across cards, got {cards!r}")
    if core is None or Path(core).suffix == ".spd":
        if cascade is None or not 1 <= int(cascade) <= 255:
            raise SpgenError(f"cascade must be 1..255 when the card is built here, got {cascade!r}")
        build = pipeline_card(a.shape[1], int(cascade), link_gbps=link_gbps, core=core)
    else:
        build = Path(core)
    facts = _card_facts(build)
    c = int(facts["params"]["N_CORES"])
    if cascade is not None and int(cascade) != c:
        raise SpgenError(f"{build}: a cascade of {c} cores, not {cascade}")
    width = facts.get("core_params", {}).get("W")
    if width is not None and int(width) != a.shape[1]:
        raise SpgenError(f"{build}: its cores were built for grids {width} cells wide (Param W), the grid "
                         f"is {a.shape[1]} wide")
    per_pass = cards * c
    if not isinstance(steps, (int, np.integer)) or steps < per_pass or steps % per_pass:
        raise SpgenError(f"{cards} cards of {c} cores advance the grid {per_pass} steps per pass: steps must "
                         f"be a positive multiple of {per_pass}, got {steps!r}")
    spec: dict[str, Any] = {"topology": "ring", "dims": [cards], "card": str(build), "seed": int(seed),
                            "line_rate_gbps": int(link_gbps)}
    if faults:
        spec["faults"] = dict(faults)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.json"
        path.write_text(json.dumps(spec))
        cl = rdma.cluster(path)
    for k in range(cards):
        for name, value in (("omega", omega), ("uw_x", uw[0]), ("uw_y", uw[1])):
            cl[k].write_reg(name, float(value))
    chunk, gap = back_pressure or (0, 0)
    out, run = cl.pipeline(list(range(cards)), to_records(f, a), passes=int(steps) // per_pass,
                           max_chunk=chunk, max_gap=gap, seed=seed)
    stats = run.as_dict()
    cell_steps = a.size * int(steps)
    stats.update(cards_n=cards, cascade=c, steps=int(steps), link_gbps=link_gbps, record_bytes=RECORD_BYTES,
                 mcell_steps_per_s=cell_steps / run.seconds / 1e6 if run.seconds else 0.0,
                 needed_link_gbps=needed_link_gbps(run.clock_mhz))
    return from_records(out, a.shape[1])[0], stats


def needed_link_gbps(clock_mhz: float = 200.0, record_bytes: int = RECORD_BYTES) -> dict[str, float]:
    """The link rate a pipeline needs so that every card's first core takes one record per
    cycle: the records' payload alone, and with the STREAM packet format of the links
    (a packet of 15 data words carries a header, a control word and a CRC: 15/18)."""
    payload = record_bytes * 8 * clock_mhz * 1e6 / 1e9
    return {"payload": payload, "on_link": payload * 18 / 15}
