"""Distributed counting sort over a cluster of cards, after OPTWEB (docs/sort.md).

The keys are spread over the cards' memories; each card histograms its keys by a
partition digit, the cards exchange their histograms (RDMA puts, all to all), every
card derives from them the same bin -> card map and its offsets in every destination's
receive buffer (prefix sums), groups its keys by destination (a local counting pass),
puts them straight to their place at the destinations (RDMA puts: every key crosses the
network once), and each destination sorts what it received by the remaining bits in
stable counting passes. The result is globally sorted: card 0 holds the smallest keys,
card N-1 the largest, every card's keys in order, equal keys (and their payloads) in
input order.

Where each phase runs in this version: the exchanges (`range`, `counts`, `scatter`) are
RDMA puts between the simulated cards (RTL cards or the C++ network model) and are timed
on the cluster clock; the local passes (`histogram`, `prefix`, `group`, `local sort`)
run on the host in numpy over the cards' memories and are timed by the host's clock.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._diagnostics import SpgenError

__all__ = ["KEY_TYPES", "LAYOUT", "Phase", "SortRun", "Spread", "gather", "sort", "sort_spread", "spread"]

KEY_TYPES = (np.dtype(np.uint32), np.dtype(np.uint64))
PAYLOAD_TYPE = np.dtype(np.uint32)


@dataclass(frozen=True)
class Layout:
    """Where the sort keeps its arrays in every card's memory (byte addresses)."""
    region: int = 512 << 20  # bytes per region: the most keys (or payloads) one card can hold

    @property
    def keys(self) -> int:        # input and output keys
        return 0

    @property
    def payloads(self) -> int:    # input and output payloads
        return self.region

    @property
    def counts(self) -> int:      # every card's key range and histogram, as exchanged
        return 2 * self.region

    @property
    def send_keys(self) -> int:   # keys grouped by destination card
        return 3 * self.region

    @property
    def send_payloads(self) -> int:
        return 4 * self.region

    @property
    def recv_keys(self) -> int:   # keys from every source, in source order
        return 5 * self.region

    @property
    def recv_payloads(self) -> int:
        return 6 * self.region

    @property
    def ranks(self) -> int:       # the counting core's output: ranks, then the histogram
        return 7 * self.region

    @property
    def end(self) -> int:
        return 8 * self.region


LAYOUT = Layout()
_RANGE_SLOT = 16  # bytes per card in the range exchange: min and max as uint64
_BINS = 256       # bins of the counting core (cores/sort/sort_rank_count.v)
CORE_REGS = ("lo", "sh")  # the counting core's Regs, by which a card build is recognised


@dataclass
class Spread:
    """An array spread over the cards: `counts[i]` keys on card `cards[i]` at LAYOUT.keys
    (and as many uint32 payloads at LAYOUT.payloads when `payloads`)."""
    cards: list[int]
    counts: list[int]
    dtype: np.dtype
    payloads: bool

    @property
    def n(self) -> int:
        return sum(self.counts)


@dataclass
class Phase:
    """One phase of a sort: `where` is "network" (RDMA between the simulated cards, timed
    on the cluster clock: `cycles`, `seconds`) or "host" (numpy on the host over the cards'
    memories, timed by the host's clock: `seconds`)."""
    name: str
    where: str
    seconds: float
    cycles: int = 0
    bytes_moved: int = 0   # network phases: bytes put between cards (payloads included)
    operations: int = 0    # network phases: RDMA puts


@dataclass
class SortRun:
    """The result of a distributed sort and how it went."""
    input: Spread
    output: Spread
    phases: list[Phase]
    partition_bits: int
    shift: int
    local_passes: int
    keys: np.ndarray | None = None
    payloads: np.ndarray | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def phase(self, name: str) -> Phase:
        return next(p for p in self.phases if p.name == name)

    @property
    def network_seconds(self) -> float:
        return sum(p.seconds for p in self.phases if p.where == "network")

    @property
    def host_seconds(self) -> float:
        return sum(p.seconds for p in self.phases if p.where == "host")

    @property
    def bytes_sorted(self) -> int:
        """Key bytes (OPTWEB's measure: the keys' bytes over the sort's time)."""
        return self.input.n * self.input.dtype.itemsize

    @property
    def imbalance(self) -> float:
        """Largest card's share of the output over the mean share (1.0 = even)."""
        n, c = self.output.n, len(self.output.cards)
        return max(self.output.counts) * c / n if n else 1.0


def _cards(cl) -> list[int]:
    """The cluster's present cards (a cluster file's `absent` cards hold nothing)."""
    absent = {int(w) for line in cl.description.splitlines() if line.startswith("absent ")
              for w in line.split()[1:]}
    return [c for c in range(len(cl)) if c not in absent]


def _check_keys(keys: Any, payloads: Any) -> tuple[np.ndarray, np.ndarray | None]:
    if not isinstance(keys, np.ndarray) or keys.ndim != 1:
        raise SpgenError(f"sort: keys must be a one-dimensional numpy array, got {type(keys).__name__}"
                         + (f" of {keys.ndim} dimensions" if isinstance(keys, np.ndarray) else ""))
    if keys.dtype not in KEY_TYPES:
        raise SpgenError(f"sort: keys of type {keys.dtype} are not supported: uint32 or uint64 keys "
                         "(convert signed or float keys to an order-preserving unsigned form first)")
    if payloads is None:
        return np.ascontiguousarray(keys), None
    if not isinstance(payloads, np.ndarray) or payloads.dtype != PAYLOAD_TYPE or payloads.shape != keys.shape:
        what = f"{payloads.dtype} of shape {payloads.shape}" if isinstance(payloads, np.ndarray) else \
            type(payloads).__name__
        raise SpgenError(f"sort: payloads must be a uint32 array of the keys' shape {keys.shape}, got {what}")
    return np.ascontiguousarray(keys), np.ascontiguousarray(payloads)


def spread(cl, keys: np.ndarray, payloads: np.ndarray | None = None) -> Spread:
    """Writes `keys` (and `payloads`) into the cluster's cards in equal contiguous parts
    (card i of n cards gets keys[len*i//n : len*(i+1)//n]) at LAYOUT.keys / LAYOUT.payloads."""
    keys, payloads = _check_keys(keys, payloads)
    cards = _cards(cl)
    limit = LAYOUT.region // keys.dtype.itemsize - _BINS  # room for the counting core's bin keys
    if keys.size > limit:
        raise SpgenError(f"sort: {keys.size} {keys.dtype} keys are more than this layout takes ({limit}: "
                         f"one card may receive every key, into {LAYOUT.region >> 20} MiB)")
    if LAYOUT.end > cl.sim.mem_bytes:
        raise SpgenError(f"sort: the cards' {cl.sim.mem_bytes} B memory is smaller than the sort's layout "
                         f"({LAYOUT.end} B)")
    bounds = [keys.size * i // len(cards) for i in range(len(cards) + 1)]
    for i, c in enumerate(cards):
        part = slice(bounds[i], bounds[i + 1])
        if bounds[i + 1] > bounds[i]:
            cl[c].write(LAYOUT.keys, keys[part])
            if payloads is not None:
                cl[c].write(LAYOUT.payloads, payloads[part])
    return Spread(cards, [bounds[i + 1] - bounds[i] for i in range(len(cards))], keys.dtype, payloads is not None)


def gather(cl, s: Spread) -> tuple[np.ndarray, np.ndarray | None]:
    """The spread array read back from the cards, card by card (keys, payloads or None)."""
    def part(addr: int, dtype: np.dtype) -> np.ndarray:
        chunks = [np.frombuffer(cl[c].read(addr, k * dtype.itemsize), dtype) for c, k in zip(s.cards, s.counts) if k]
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype)

    return part(LAYOUT.keys, s.dtype), part(LAYOUT.payloads, PAYLOAD_TYPE) if s.payloads else None


class _Clock:
    """Times the phases: network phases by the cluster clock, host phases by the host's."""

    def __init__(self, cl, progress: Callable[[str], None] | None) -> None:
        self.cl, self.phases, self.progress = cl, [], progress

    def host(self, name: str, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        out = fn()
        self.phases.append(Phase(name, "host", time.perf_counter() - t0))
        if self.progress:
            self.progress(name)
        return out

    def card(self, name: str, fn: Callable[[], list[int]]) -> Any:
        """A phase on the cards' cascades: `fn` returns every card's run time in ns. The
        host here starts the cards one after the other; cards run at once in hardware, so
        the phase takes the slowest card's time."""
        ns = fn()
        self.phases.append(Phase(name, "card", max(ns, default=0) * 1e-9,
                                 int(max(ns, default=0) * self.cl.sim.clock_mhz / 1e3)))
        if self.progress:
            self.progress(name)

    def network(self, name: str, puts: list[tuple[int, int, int, int, int]]) -> None:
        """Issues every put (card, dst, local, remote, bytes) at once and waits for all."""
        c0 = self.cl.now
        transfers = [self.cl[c].put_async(d, local, remote, n) for c, d, local, remote, n in puts if n]
        self.cl.wait_all(transfers)
        cycles = self.cl.now - c0
        self.phases.append(Phase(name, "network", self.cl.ns(cycles) * 1e-9, cycles,
                                 sum(p[4] for p in puts), len(transfers)))
        if self.progress:
            self.progress(name)


def _read(cl, card: int, addr: int, count: int, dtype: np.dtype) -> np.ndarray:
    if not count:
        return np.zeros(0, dtype)
    return np.frombuffer(cl[card].read(addr, count * dtype.itemsize), dtype)


def _bin_map(totals: np.ndarray, ncards: int) -> np.ndarray:
    """Bin -> card: consecutive bins, each card taking about n/N keys (a bin stays whole)."""
    n = int(totals.sum())
    before = np.concatenate([[0], np.cumsum(totals)[:-1]]).astype(np.int64)
    mid = 2 * before + totals.astype(np.int64)          # twice the bin's middle position
    return np.minimum(mid * ncards // max(2 * n, 1), ncards - 1).astype(np.int64)


def _exact_pieces(start: np.ndarray, counts: np.ndarray, bounds: np.ndarray) -> list[tuple[int, int, int, int]]:
    """A card's bins, in bin order in its send buffer, cut at the cards' output boundaries:
    (offset in the send buffer, destination index, offset in its receive buffer, keys)."""
    pieces, at = [], 0
    for g, n in zip(start.tolist(), counts.tolist()):
        while n:
            d = int(np.searchsorted(bounds, g, side="right")) - 1
            take = min(n, int(bounds[d + 1]) - g)
            pieces.append((at, d, g - int(bounds[d]), take))
            at, g, n = at + take, g + take, n - take
    return pieces


def _counting_passes(keys: np.ndarray, pays: np.ndarray | None, lo: int, bits: int, digit_bits: int,
                     ) -> tuple[np.ndarray, np.ndarray | None]:
    """Stable LSD counting passes over the `bits` bits of key - lo, `digit_bits` at a time
    (numpy's stable sort of 8- and 16-bit digits is a counting sort)."""
    rel = keys - keys.dtype.type(lo)
    digit_type = np.uint8 if digit_bits <= 8 else np.uint16
    for sh in range(0, bits, digit_bits):
        digit = ((rel >> rel.dtype.type(sh)) & rel.dtype.type((1 << digit_bits) - 1)).astype(digit_type)
        order = np.argsort(digit, kind="stable")
        keys, rel = keys[order], rel[order]
        if pays is not None:
            pays = pays[order]
    return keys, pays


class _CardCounting:
    """The counting passes on the cards' cascades: cores/sort/sort_rank.spd gives every
    key's rank within its bin; after the keys each card gets one key per bin, whose
    ranks are the histogram (the counts of the keys before them)."""

    def __init__(self, cl, cards: list[int]) -> None:
        self.cl, self.handles = cl, {}
        for c in cards:
            self.handles[c] = cl[c].open()

    def close(self) -> None:
        for h in self.handles.values():
            h.close()

    def count(self, c: int, addr: int, n: int, lo: int, sh: int) -> tuple[np.ndarray, np.ndarray, int]:
        """(ranks of the n keys at addr, histogram, the run's ns) for bins ((k - lo) >> sh) & 255."""
        nb = min(_BINS, 1 << (32 - sh))
        bin_keys = (np.arange(nb, dtype=np.uint64) << np.uint64(sh)) + np.uint64(lo)
        self.cl[c].write(addr + 4 * n, (bin_keys & np.uint64(0xFFFFFFFF)).astype(np.uint32))
        card = self.handles[c]
        card.write_reg("lo", lo)
        card.write_reg("sh", sh)
        run = card.run(addr, LAYOUT.ranks, n + nb)
        out = _read(self.cl, c, LAYOUT.ranks, n + nb, np.dtype(np.uint32))
        return out[:n], out[n:].astype(np.int64), run.elapsed_ns


def _card_counting_possible(cl, s: Spread, partition_bits: int, digit_bits: int) -> str:
    """Why the counting passes cannot run on these cards ("" when they can)."""
    if not cl.rtl:
        return "the network model has no cards to run cores on (a cluster file with \"card\" gives RTL cards)"
    info = cl._card_info(s.cards[0])
    if not all(f"reg.{r}" in info for r in CORE_REGS):
        return ("the cards do not carry the counting core (build them with "
                "`spgen build cores/sort/sort_rank.spd --links N`)")
    if s.dtype != np.uint32:
        return f"the counting core takes uint32 keys, these are {s.dtype}"
    if partition_bits > 8 or digit_bits != 8:
        return "the counting core has 256 bins: partition_bits <= 8 and digit_bits = 8"
    return ""


def _check_options(partition_bits: int, digit_bits: int, counting: str) -> None:
    if counting not in ("auto", "card", "host"):
        raise SpgenError(f"sort: counting must be 'auto', 'card' or 'host', got {counting!r}")
    if not 1 <= partition_bits <= 16:
        raise SpgenError(f"sort: partition_bits must be 1..16, got {partition_bits}")
    if digit_bits not in (4, 8, 11, 16):
        raise SpgenError(f"sort: digit_bits must be 4, 8, 11 or 16, got {digit_bits}")


def sort_spread(cl, s: Spread, *, partition_bits: int = 8, digit_bits: int = 8, counting: str = "auto",
                progress: Callable[[str], None] | None = None) -> SortRun:
    """Sorts an array spread over the cards (from `spread`) in place: afterwards the cards
    hold the sorted array (card order, then memory order) at the same addresses, with new
    per-card counts (the returned run's `output`). `counting`: "card" runs the counting
    passes (histogram and ranks) on the cards' cascades (RTL cards built from
    cores/sort/sort_rank.spd, uint32 keys), "host" in numpy, "auto" on the cards when
    they can."""
    _check_options(partition_bits, digit_bits, counting)
    why = _card_counting_possible(cl, s, partition_bits, digit_bits) if counting != "host" else "host"
    if counting == "card" and why:
        raise SpgenError(f"sort: counting on the cards is not possible: {why}")
    counter = _CardCounting(cl, s.cards) if not why else None
    try:
        return _sort_spread(cl, s, partition_bits, digit_bits, counter, progress)
    finally:
        if counter:
            counter.close()


def _sort_spread(cl, s: Spread, partition_bits: int, digit_bits: int, counter: _CardCounting | None,
                 progress: Callable[[str], None] | None) -> SortRun:
    ks, L, cards, N = s.dtype.itemsize, LAYOUT, s.cards, len(s.cards)
    B = 1 << partition_bits
    clock = _Clock(cl, progress)
    hist_addr = L.counts + N * _RANGE_SLOT  # the histograms of every source card, after the ranges

    # 1. range: local min/max, exchanged so that every card knows the keys' global range.
    def local_range() -> list[tuple[int, int]]:
        out = []
        for c, k in zip(cards, s.counts):
            keys = _read(cl, c, L.keys, k, s.dtype)
            lo, hi = (int(keys.min()), int(keys.max())) if k else ((1 << 64) - 1, 0)
            cl[c].write(L.counts + cards.index(c) * _RANGE_SLOT, np.array([lo, hi], np.uint64))
            out.append((lo, hi))
        return out

    clock.host("range (local)", local_range)
    clock.network("range exchange", [(c, d, L.counts + i * _RANGE_SLOT, L.counts + i * _RANGE_SLOT, _RANGE_SLOT)
                                     for i, c in enumerate(cards) for d in cards if d != c])

    def global_range(c: int) -> tuple[int, int]:
        r = _read(cl, c, L.counts, 2 * N, np.dtype(np.uint64)).reshape(N, 2)
        return int(r[:, 0].min()), int(r[:, 1].max())

    # 2. histogram of the partition digit, (key - min) >> shift.
    lo, hi = global_range(cards[0])
    if lo > hi:  # no keys at all
        return SortRun(s, s, clock.phases, partition_bits, 0, 0)
    span_bits = (hi - lo).bit_length()
    shift = max(0, span_bits - partition_bits)

    def bins_of(keys: np.ndarray, lo: int) -> np.ndarray:
        return ((keys - keys.dtype.type(lo)) >> keys.dtype.type(shift)).astype(np.int64)

    ranks: dict[int, np.ndarray] = {}

    for c in cards[1:]:  # every card computed the same range from its own copy
        if global_range(c) != (lo, hi):
            raise SpgenError(f"sort: card {c} holds another key range {global_range(c)} than card {cards[0]} "
                             f"{(lo, hi)} after the exchange")

    def histogram() -> None:
        for i, (c, k) in enumerate(zip(cards, s.counts)):
            h = np.bincount(bins_of(_read(cl, c, L.keys, k, s.dtype), lo), minlength=B).astype(np.uint32)
            cl[c].write(hist_addr + i * 4 * B, h)

    def histogram_on_cards() -> list[int]:
        ns = []
        for i, (c, k) in enumerate(zip(cards, s.counts)):
            ranks[c], h, t = counter.count(c, L.keys, k, lo, shift)
            cl[c].write(hist_addr + i * 4 * B, np.pad(h, (0, B - h.size)).astype(np.uint32))
            ns.append(t)
        return ns

    if counter:
        clock.card("histogram", histogram_on_cards)
    else:
        clock.host("histogram", histogram)
    # 3. the counts, all to all.
    clock.network("count exchange", [(c, d, hist_addr + i * 4 * B, hist_addr + i * 4 * B, 4 * B)
                                     for i, c in enumerate(cards) for d in cards if d != c])

    # 4. prefix sums, on every card from its own copy of the counts: bin -> card, and where
    #    this card's keys for each destination start in that destination's receive buffer.
    plans: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}

    # With shift 0 every bin holds one key value (all keys equal, or OPTWEB's few key values):
    # then every key's global position is known from the counts alone, bins may be split
    # between cards, each card receives exactly its n/N keys, already in order.
    exact = shift == 0
    bounds = np.array([s.n * d // N for d in range(N + 1)], np.int64)

    def prefix() -> None:
        for i, c in enumerate(cards):
            hists = _read(cl, c, hist_addr, N * B, np.dtype(np.uint32)).reshape(N, B).astype(np.int64)
            if exact:
                before = np.cumsum(hists, axis=0) - hists           # keys of earlier cards, per bin
                totals = hists.sum(axis=0)
                start = (np.cumsum(totals) - totals) + before[i]    # this card's first key of each bin
                plans[c] = (None, _exact_pieces(start, hists[i], bounds), int(bounds[i + 1] - bounds[i]))
                continue
            owner = _bin_map(hists.sum(axis=0), N)
            per_dest = np.zeros((N, N), np.int64)            # [source, destination] keys
            for src in range(N):
                np.add.at(per_dest[src], owner, hists[src])
            offsets = np.cumsum(per_dest, axis=0) - per_dest   # sources before this one
            plans[c] = (owner, offsets[i], int(per_dest[:, i].sum()))

    clock.host("prefix sums", prefix)

    # 5. local counting pass by destination card (stable), into the send buffers.
    runs: dict[int, np.ndarray] = {}

    def group() -> None:
        for i, (c, k) in enumerate(zip(cards, s.counts)):
            keys = _read(cl, c, L.keys, k, s.dtype)
            bins = bins_of(keys, lo)
            if not exact:
                runs[c] = np.bincount(plans[c][0][bins], minlength=N)
            # bin order, which is destination order too (a card takes consecutive bins)
            if counter:  # the card's ranks: each key's place in its bin
                hist = _read(cl, c, hist_addr + i * 4 * B, B, np.dtype(np.uint32)).astype(np.int64)
                order = np.empty(k, np.int64)
                order[(np.cumsum(hist) - hist)[bins] + ranks[c]] = np.arange(k)
            else:
                order = np.argsort(bins.astype(np.uint8 if B <= 256 else np.uint16), kind="stable")
            if k:
                cl[c].write(L.send_keys, keys[order])
                if s.payloads:
                    cl[c].write(L.send_payloads, _read(cl, c, L.payloads, k, PAYLOAD_TYPE)[order])

    clock.host("group by card", group)

    # 6. scatter: every key (and payload) straight to its place in the destination's buffer.
    puts = []
    for c in cards:
        if exact:
            pieces = plans[c][1]
        else:
            starts = np.concatenate([[0], np.cumsum(runs[c])[:-1]])
            pieces = [(int(starts[j]), j, int(plans[c][1][j]), int(runs[c][j])) for j in range(N)]
        for at, j, there, n in pieces:
            puts.append((c, cards[j], L.send_keys + at * ks, L.recv_keys + there * ks, n * ks))
            if s.payloads:
                puts.append((c, cards[j], L.send_payloads + at * 4, L.recv_payloads + there * 4, n * 4))
    clock.network("scatter", puts)
    sort_bits = 0 if exact else span_bits  # bits the local passes sort by

    # 7. local counting passes at every destination, written back to the key region.
    def local_sort() -> list[int]:
        counts = []
        for c in cards:
            k = plans[c][2]
            keys, pays = _counting_passes(_read(cl, c, L.recv_keys, k, s.dtype),
                                          _read(cl, c, L.recv_payloads, k, PAYLOAD_TYPE) if s.payloads else None,
                                          lo, sort_bits, digit_bits)
            if k:
                cl[c].write(L.keys, keys)
                if pays is not None:
                    cl[c].write(L.payloads, pays)
            counts.append(k)
        return counts

    def local_counting_on_cards() -> list[int]:
        """Per digit: the card counts (ranks and histogram), the host moves the keys."""
        ns = []
        for c in cards:
            k, t = plans[c][2], 0
            bufs = [(L.recv_keys, L.recv_payloads), (L.send_keys, L.send_payloads)]
            digits = list(range(0, sort_bits, digit_bits))
            for j, sh in enumerate(digits):
                src, dst = bufs[j % 2], (bufs[(j + 1) % 2] if j + 1 < len(digits) else (L.keys, L.payloads))
                if not k:
                    break
                r, h, dt = counter.count(c, src[0], k, lo, sh)
                t += dt
                _move(c, src, dst, k, sh, r, h)
            if k and not digits:  # every key equal: the received order is the result
                _move(c, bufs[0], (L.keys, L.payloads), k, 0, np.arange(k), np.array([k]))
            ns.append(t)
        return ns

    move_seconds = [0.0]

    def _move(c: int, src: tuple[int, int], dst: tuple[int, int], k: int, sh: int, r: np.ndarray,
              h: np.ndarray) -> None:
        t0 = time.perf_counter()
        keys = _read(cl, c, src[0], k, s.dtype)
        bins = ((keys - np.uint32(lo)) >> np.uint32(sh)) & np.uint32(_BINS - 1) if h.size > 1 else \
            np.zeros(k, np.int64)
        pos = (np.cumsum(h) - h)[bins.astype(np.int64)] + r.astype(np.int64)
        out = np.empty_like(keys)
        out[pos] = keys
        cl[c].write(dst[0], out)
        if s.payloads:
            pays = _read(cl, c, src[1], k, PAYLOAD_TYPE)
            outp = np.empty_like(pays)
            outp[pos] = pays
            cl[c].write(dst[1], outp)
        move_seconds[0] += time.perf_counter() - t0

    if counter:
        clock.card("local counting", local_counting_on_cards)
        clock.phases.append(Phase("local sort", "host", move_seconds[0]))  # the moves between the counts
        out_counts = [plans[c][2] for c in cards]
    else:
        out_counts = clock.host("local sort", local_sort)
    return SortRun(s, Spread(cards, out_counts, s.dtype, s.payloads), clock.phases, partition_bits, shift,
                   -(-sort_bits // digit_bits))


def sort(cl, keys: np.ndarray, payloads: np.ndarray | None = None, *, partition_bits: int = 8,
         digit_bits: int = 8, counting: str = "auto", progress: Callable[[str], None] | None = None) -> SortRun:
    """Sorts uint32 or uint64 `keys` (with uint32 `payloads` following their keys, stably)
    on the cluster `cl` (`spgen.runtime.rdma.cluster(...)`, RTL cards or the network model):
    spreads them over the cards, sorts them there and reads the result back into the
    run's `keys` / `payloads` (equal to numpy's stable sort)."""
    _check_options(partition_bits, digit_bits, counting)  # before anything is written to the cards
    keys, payloads = _check_keys(keys, payloads)
    if counting == "card":
        why = _card_counting_possible(cl, Spread(_cards(cl), [], keys.dtype, payloads is not None),
                                      partition_bits, digit_bits)
        if why:
            raise SpgenError(f"sort: counting on the cards is not possible: {why}")
    run = sort_spread(cl, spread(cl, keys, payloads), partition_bits=partition_bits, digit_bits=digit_bits,
                      counting=counting, progress=progress)
    run.keys, run.payloads = gather(cl, run.output)
    return run
