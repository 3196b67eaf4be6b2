"""The sort's scatter writer on every card, as the host drives it (spgen.sort)."""
from __future__ import annotations

from ._diagnostics import SpgenError

__all__ = ["ScatterWriter", "per_card"]


class ScatterWriter:
    """The scatter writer on every card (shell/shell_sort_scatter.v, SORT_* registers,
    cards from `spgen build --sort-scatter`): each pass streams keys from the card's memory
    through it (a DMA from card memory to card memory whose RX side the writer takes over),
    counting them per bin and, when scattering, writing each to its place."""

    def __init__(self, cl, cards: list[int], pairs: bool = False) -> None:
        self.cl, self.handles, self.pairs = cl, {c: cl[c].open() for c in cards}, pairs
        self.passes: dict[int, int] = dict.fromkeys(cards, 0)   # passes over the keys per card
        # per card: bytes its passes read and wrote in card memory, and their ns
        self.moved: dict[int, list[int]] = {c: [0, 0, 0] for c in cards}
        # the widest digit: 0 on writers of one key a cycle (256 bins), else a beat a cycle
        self.max_bits = min((h.read_reg_bits("SORT_STATUS") >> 8) & 0xF for h in self.handles.values()) if cards else 0
        self.wide = self.max_bits > 0
        # counts by destination and loads counts (SORT_STATUS.DEST): no count pass at the destinations
        self.dest = bool(cards) and all(h.read_reg_bits("SORT_STATUS") >> 12 & 1 for h in self.handles.values())

    def digit_bits(self, sort_bits: int, elements: int, odd_penalty: bool = True) -> int:
        """The digit width of the local passes over `sort_bits` bits of `elements` keys per
        card (sort.hpp's choose_digit_bits: the fewest cycles of the card's clock)."""
        from .runtime._build import load_extension

        return load_extension().sort_digit_bits(self.max_bits, self.pairs, sort_bits, elements, odd_penalty)

    def close(self) -> None:
        for h in self.handles.values():
            h.close()

    def run(self, c: int, src: int, n: int, *, count: tuple[int, int], scatter: tuple[int, int, int] | None = None,
            dump: int | None = None, bits: int = 8, count_bits: int = 0, dests: int | None = None,
            load: bool = False) -> int:
        """One pass over the n keys (with `pairs` key-payload pairs) at src on card c; returns
        its ns. `count`: (lo, shift) of the bins counted; `scatter`: (lo, shift, destination)
        to write every key at its place by the bins counted in the card's previous pass (a
        shift of 32: every key in one bin, a copy); `dump`: where the range and the counts go
        afterwards; `bits`: the bins' width, `count_bits` the counted bins' where it differs;
        `dests` (SORT_DESTS): count by destination; `load`: the n words at src are counts
        to add to the card's counters (no pass over the keys)."""
        card = self.cl[c]
        (clo, csh), (slo, ssh, dst) = count, scatter or (0, 0, 0)
        pairs = self.pairs and not load
        card.write_csr("SORT_CFG", 1 | (2 if scatter else 0) | (4 if dump is not None else 0) | (8 if pairs else 0)
                       | (16 if dests is not None else 0) | (32 if load else 0))
        card.write_csr("SORT_BINS", (slo & 0xFFFFFFFF) | (clo & 0xFFFFFFFF) << 32)
        card.write_csr("SORT_SHIFT", ssh | csh << 8 | (bits if self.wide else 0) << 16 | count_bits << 20)
        if dests is not None:
            card.write_csr("SORT_DESTS", dests)
        card.write_csr("SORT_DST", dst)
        card.write_csr("SORT_HIST", dump or 0)
        card.write_csr("SORT_N", n)
        card.write_csr("SORT_CTRL", 1)
        # Status reads go through the open card, at the thread's host time: a read through the
        # cluster enters where the cluster's clock thread happens to be (docs/runtime.md "Host time")
        h, ns = self.handles[c], 0
        try:
            if n:   # the RX destination is not written: the writer takes the stream
                ns = h.dma(src, src, (8 if pairs else 4) * n, "F2F")
            t0 = h.sim_stats()["now_ns"]
            while not (status := h.read_reg_bits("SORT_STATUS")) & 2:   # with no keys: flush and dump
                if h.sim_stats()["now_ns"] - t0 > 500_000:
                    raise SpgenError(f"sort: card {c}'s scatter writer did not finish a pass (status {status:#x})")
        finally:
            card.write_csr("SORT_CFG", 0)   # the RX engine writes as usual again
        if status & 4 or status >> 32 != n:
            raise SpgenError(f"sort: card {c}'s scatter writer took {status >> 32} keys of {n}"
                             + (" and dropped words past them" if status & 4 else ""))
        self.passes[c] += not load
        ns = ns or h.sim_stats()["now_ns"] - t0
        es = (8 if pairs else 4) * n
        self.moved[c][0] += es
        self.moved[c][1] += es if scatter else 0
        self.moved[c][2] += ns
        return ns


def per_card(cards: list[int], writer: ScatterWriter, plans: dict, es: int) -> list[dict[str, int]]:
    """What each card moved: its writer passes' bytes read and written in card memory and
    their ns, and the scatter's bytes it sent to other cards and received from them."""
    sent = {c: sum(n for _, j, _, n in plans[c][0] if cards[j] != c) * es for c in cards}
    got = dict.fromkeys(cards, 0)
    for c in cards:
        for _, j, _, n in plans[c][0]:
            if cards[j] != c:
                got[cards[j]] += n * es
    return [{"card": c, "ddr_read": writer.moved[c][0], "ddr_write": writer.moved[c][1], "pass_ns": writer.moved[c][2],
             "passes": writer.passes[c], "link_sent": sent[c], "link_received": got[c]} for c in cards]
