"""The slab layout of LBM across cards: which rows each card holds.

The split is afushell/lbm.hpp's ``slab_layout``. The host programs that run it are
`lbm-slabs-mpi` (runtime/rdma/lbm_slabs_mpi.cpp, behind
`spgen.lbm.run_cards(mode="slabs")`) and `afushell::lbm::run_slabs`
(runtime/include/afushell/lbm_card.hpp, one thread per card on the runtime's API).

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

from dataclasses import dataclass

from ._grid import native

__all__ = ["Slab", "slab_layout"]


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
    """Own rows as equal as possible (the first cards one more), halos of depth rows
    (afushell/lbm.hpp's slab_layout, which the C++ runners use too)."""
    rows = native("lbm_slab_layout", int(height), int(cards), int(depth))
    return [Slab(*r) for r in rows]
