"""Slabs with halo exchange driven through the runtime, one host thread per card.

`spgen.lbm.run_cards` in slabs mode runs `spgen.lbm._cards_mpi` (the documented host
schedule of docs/lbm.md, the same in any number of MPI ranks); `run_slabs` here is the same
algorithm as an ordinary host program on the runtime's API, the Python counterpart of
`afushell::lbm::run_slabs`: each card's thread calls `cl[k].open()` (transfers, runs,
interrupts) and declares its waits for the other threads to the host time model
(docs/runtime.md "Host time"), so its figures repeat to the cycle too, but they are those of
another host program (interrupts instead of polls, no shared look-ahead window).

Each card of a line of RTL cards holds a slab of rows.

Card k holds its own rows ``[lo_k, hi_k)`` of the H x W grid plus halo rows of depth
D (the cascade depth) on each side that has a neighbour, as one record stream in
its memory. Every pass through its cascade (the upload H2F, each F2F run between
memories A and B, the download F2H) advances the slab D steps; a D2Q9 step reads
one row up and one down, so after D steps the cells within D rows of the stream's
ends are wrong (they saw the end of the stream) and every own row is right. After a
pass each card puts its D edge rows into its neighbours' halo rows of the memory the
pass wrote (RDMA block-stride puts, one block per row), and the next pass reads them.

Overlap: there is no barrier. A card starts its next pass as soon as both its
neighbours' halo puts into it have landed, while its own outgoing puts may still be
in flight (they read the rows the pass reads; it writes the other memory). A put
into a card's memory waits until that card's pass writing it has ended.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
from ._grid import RECORD_DTYPE, check_grid, from_records, to_records

__all__ = ["Slab", "critical_path", "run_slabs", "slab_layout"]

MEM = (0x0, 1 << 32)      # memories A and B: passes alternate between them
WAIT_S = 600.0            # wall seconds a card thread waits for a neighbour before giving up


@dataclass(frozen=True)
class Slab:
    """Rows of one card: own rows [lo, hi) of the grid; its stream holds [first, last)."""

    lo: int
    hi: int
    first: int
    last: int

    @property
    def rows(self) -> int:
        return self.last - self.first


def slab_layout(height: int, cards: int, depth: int) -> list[Slab]:
    """Own rows as equal as possible (the first cards one more), halos of depth rows."""
    base, extra = divmod(height, cards)
    if base < depth or base < 1:
        raise SpgenError(f"a grid of {height} rows cannot be cut into {cards} slabs of at least {max(depth, 1)} "
                         f"rows each (a card sends its {depth} edge rows, the cascade depth, to each "
                         f"neighbour after every pass): use at most {max(height // max(depth, 1), 1)} cards "
                         f"or a grid of at least {cards * max(depth, 1)} rows")
    out, lo = [], 0
    for k in range(cards):
        hi = lo + base + (k < extra)
        out.append(Slab(lo, hi, max(lo - depth, 0), min(hi + depth, height)))
        lo = hi
    return out


def run_slabs(build, f: np.ndarray, attr: np.ndarray, steps: int, *, cards: int = 2, omega: float = 1.0,
              uw: tuple[float, float] = (0.0, 0.0), link_gbps: float | None = None, faults: dict | None = None,
              seed: int = 1, progress: Callable[[str], None] | None = None) -> CardsResult:
    """`spgen.lbm.run_cards` in mode "slabs" (see the module's description)."""
    from ..runtime import rdma

    a = check_grid(attr)
    h, w = a.shape
    cards = check_cards(cards)
    path, info = open_build_info(build)
    depth = int(info.get("params", {}).get("N_CORES", 0) or 0)
    links = int(info.get("links", 0) or 0)
    if depth < 1:
        raise SpgenError(f"{path}: a build without cores (cascade {depth}); build the LBM core with --cascade C")
    if cards > 1 and links < 2:
        raise SpgenError(f"{path}: slabs on {cards} cards need 2 link ports per card (one to each neighbour), "
                         f"the build has {links}: rebuild with --links 2")
    steps = check_steps(steps, depth, f"slabs on {cards} card(s)")
    layout = slab_layout(h, cards, depth)
    rec = to_records(f, a)
    row_b = w * RECORD_BYTES
    passes = steps // depth             # upload, steps/depth - 2 F2F runs, download

    t_wall = time.monotonic()
    cl = rdma.cluster(cluster_spec(path, cards, link_gbps, faults, seed))
    handles = [cl[k].open() for k in range(cards)]
    built_w = handles[0].core_param("W")
    if built_w is not None and built_w != w:
        for card in handles:
            card.close()
        raise SpgenError(f"{path}: its cores were built for grids {built_w} cells wide (Param W), the grid is "
                         f"{w} wide: rebuild with -P W={w}")
    for card in handles:
        for name, value in (("omega", omega), ("uw_x", uw[0]), ("uw_y", uw[1])):
            card.write_reg(name, float(value))

    # done[k][p]: the host cycle at which card k's pass p had written its memory (None: not
    # yet); inbox[k][p]: puts into card k after pass p (sender, Transfer, host cycle of the
    # issue), appended by the neighbours' threads
    cond = threading.Condition()
    done: list[list[int | None]] = [[None] * passes for _ in range(cards)]
    inbox: list[list[list[Any]]] = [[[] for _ in range(passes)] for _ in range(cards)]
    # Deterministic host time (docs/runtime.md "Host time"): a thread waiting for another's
    # fact holds no clock back; the thread that makes the fact true hands the waiter the
    # fact's host cycle, so where it resumes does not depend on the machine's load.
    hosted = handles[0].sim_host_time() is not None
    waiting: dict[int, tuple[Callable[[], int | None], str]] = {}
    errors: list[BaseException] = []
    runs: list[list[Any]] = [[] for _ in range(cards)]
    t_start: list[int] = [0] * cards
    t_end: list[int] = [0] * cards
    pass_ns: list[list[int]] = [[0] * passes for _ in range(cards)]   # request to interrupt
    transfers: list[dict] = []
    out = np.empty(h * w, dtype=RECORD_DTYPE)
    neighbours = [[j for j in (k - 1, k + 1) if 0 <= j < cards] for k in range(cards)]

    def wait_for(k: int, at: Callable[[], int | None], what: str) -> None:
        """Card k's thread waits until at() gives the host cycle of what it waits for."""
        with cond:
            t = at()
            if t is not None or errors:
                if hosted and t is not None:
                    handles[k].sim_host_time("sync", t)
            elif hosted:
                handles[k].sim_host_time("block")
                waiting[k] = (at, what)
                if not cond.wait_for(lambda: k not in waiting, timeout=WAIT_S):
                    del waiting[k]
                    handles[k].sim_host_time("wake", 0)
                    raise SpgenError(f"slabs: {what} did not happen within {WAIT_S:.0f} s")
            elif not cond.wait_for(lambda: at() is not None or bool(errors), timeout=WAIT_S):
                raise SpgenError(f"slabs: {what} did not happen within {WAIT_S:.0f} s")
            if errors:
                raise SpgenError("slabs: another card failed")

    def changed() -> None:
        """A fact was set (cond held): waiters it completes resume at its host cycle."""
        for j, (at, _) in list(waiting.items()):
            t = at() if not errors else 0
            if t is not None:
                del waiting[j]
                handles[j].sim_host_time("wake", t)
        cond.notify_all()

    def put_done_at(k: int, p: int) -> int | None:
        got = inbox[k][p]
        return max((t for _, _, t in got), default=0) if len(got) == len(neighbours[k]) else None

    def halo_puts(k: int, p: int) -> None:
        """Card k's edge rows after pass p into its neighbours' halos (memory of pass p)."""
        s, m = layout[k], MEM[p % 2]
        for j in neighbours[k]:
            wait_for(k, lambda j=j: done[j][p], f"pass {p} of card {j}")
            t = layout[j]
            if j > k:   # my top own rows -> j's bottom halo (its first rows)
                src, dst = s.hi - depth - s.first, 0
            else:       # my bottom own rows -> j's top halo (its last rows)
                src, dst = s.lo - s.first, t.rows - depth
            tr = cl[k].put_strided_async(j, m + src * row_b, m + dst * row_b, row_b, depth, row_b, row_b)
            with cond:
                inbox[j][p].append((k, tr, tr.status()[2]))
                changed()

    t_host0 = handles[0].sim_host_time() if hosted else 0
    started = [0]

    def card_thread(k: int) -> None:
        card, s = handles[k], layout[k]
        try:
            if hosted:  # the thread starts at the host time of the one that started it
                card.sim_host_time("sync", t_host0)
            with cond:
                started[0] += 1
                cond.notify_all()
            buf = card.alloc(s.rows * row_b)
            buf[:] = rec[s.first * w:s.last * w].view(np.uint8)
            n = s.rows * w
            t_start[k] = card.sim_stats()["now_ns"]
            pass_ns[k][0] = card.dma(MEM[0], buf, s.rows * row_b, "H2F")
            for p in range(1, passes):
                with cond:
                    done[k][p - 1] = card.sim_host_time() if hosted else 0
                    changed()
                halo_puts(k, p - 1)
                wait_for(k, lambda p=p: put_done_at(k, p - 1), f"halo puts into card {k}")
                for peer, tr, _ in inbox[k][p - 1]:
                    cycles = tr.wait()
                    _, _, issued, finished = tr.status()
                    with cond:
                        transfers.append({"from": peer, "to": k, "after_pass": p - 1, "bytes": depth * row_b,
                                          "cycles": cycles, "issued": issued, "done": finished})
                if progress:
                    progress(f"card {k} pass {p + 1}/{passes}")
                if p < passes - 1:
                    runs[k].append(card.run(MEM[(p - 1) % 2], MEM[p % 2], n))
                    pass_ns[k][p] = runs[k][-1].elapsed_ns
                else:
                    t0 = card.sim_stats()["now_ns"]
                    ns = card.dma(buf, MEM[(p - 1) % 2], s.rows * row_b, "F2H")
                    t_end[k] = t0 + ns
                    pass_ns[k][p] = ns
                    own = buf.view(RECORD_DTYPE)[(s.lo - s.first) * w:(s.hi - s.first) * w]
                    out[s.lo * w:s.hi * w] = own
        except BaseException as e:  # noqa: BLE001 -- handed to the caller's thread
            with cond:
                errors.append(e)
                changed()
        finally:
            if hosted:  # done: its host time holds the others' clock no more
                card.sim_host_time("leave")

    threads = [threading.Thread(target=card_thread, args=(k,), name=f"slab-card-{k}") for k in range(cards)]
    try:
        for t in threads:
            t.start()
        with cond:  # every thread has taken over its card's host time: this one leaves
            cond.wait_for(lambda: started[0] == cards or bool(errors), timeout=WAIT_S)
        if hosted:
            handles[0].sim_host_time("leave")
        for t in threads:
            t.join()
    finally:
        for card in handles:
            card.close()
    if errors:
        first = next((e for e in errors if not (isinstance(e, SpgenError) and "another card failed" in str(e))),
                     errors[0])
        if isinstance(first, SpgenError):
            raise first
        raise SpgenError(f"slabs: {type(first).__name__}: {first}") from first
    clock = cl.sim.clock_mhz
    simulated = round((max(t_end) - min(t_start)) * clock / 1000.0)
    cycles = critical_path(pass_ns, transfers, neighbours, clock)
    stall = []
    for rs in runs[:]:
        total = sum(r.in_total_cycles for r in rs)
        stall.append((total - sum(r.in_moved_cycles for r in rs)) / total if total else 0.0)
    link_bytes = sum(t["bytes"] for t in transfers)
    gbps = float(link_gbps if link_gbps is not None else 40.0)
    directed = 2 * (cards - 1)
    util = link_bytes / (directed * gbps / 8 * 1e9 * cycles / (clock * 1e6)) if directed and cycles else 0.0
    return finish(from_records(out, w)[0], a, mode="slabs", cards=cards, depth=depth, steps=steps,
                  cycles=cycles, clock_mhz=clock, stall_rate=stall, runs=runs, link_bytes=link_bytes,
                  link_gbps=gbps, link_utilisation=util, transfers=sorted(transfers, key=lambda t: (t["issued"], t["from"], t["to"])),
                  wall_s=time.monotonic() - t_wall,
                  details={"slabs": [(s.lo, s.hi) for s in layout], "halo_rows": depth,
                           "passes": passes, "link_stats": cl.stats(), "simulated_cycles": simulated,
                           "pass_ns": pass_ns})


def critical_path(pass_ns: list[list[int]], transfers: list[dict], neighbours: list[list[int]],
                  clock_mhz: float) -> int:
    """End-to-end cycles with the host reacting at once: each pass as long as the card took
    for it (request to interrupt), each halo put as long as it took (host call to
    completion), chained by what waits for what. The simulation itself also counts the
    host threads' wake-up latency on the machine running it (wall time during which the
    clock runs on), which says nothing about the cards."""
    cards, passes = len(pass_ns), len(pass_ns[0])
    put = {(t["from"], t["to"], t["after_pass"]): t["cycles"] for t in transfers}
    end = [pass_ns[k][0] * clock_mhz / 1000.0 for k in range(cards)]
    for p in range(1, passes):
        ready = [max([end[k]] + [max(end[k], end[j]) + put[(j, k, p - 1)] for j in neighbours[k]])
                 for k in range(cards)]
        end = [ready[k] + pass_ns[k][p] * clock_mhz / 1000.0 for k in range(cards)]
    return round(max(end))
