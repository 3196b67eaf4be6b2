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

Where each phase runs: the exchanges (`range`, `counts`, `scatter`) are RDMA puts between
the simulated cards (RTL cards or the C++ network model), timed on the cluster clock. On
RTL cards with the scatter writer (`spgen build --sort-scatter`) the range, histogram,
grouping and local passes run on the cards too, timed on the card's clock, and only the
prefix sums run on the host; on cards with the counting core the counting runs on the
cards and the moves on the host; elsewhere the local passes run on the host over the
cards' memories, timed by the host's clock.

Where the code lives: the planning and, except on the scatter writer, the whole sequence
of phases are C++ (runtime/sort/include/afushell/sort.hpp and sort_spread.hpp), the same
functions the C++ sort runs, here over the Python cluster's own simulator; this module
checks the arguments, spreads and gathers, and drives the scatter writer's sequence.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._diagnostics import SpgenError
from ._sort_writer import ScatterWriter as _ScatterWriter
from ._sort_writer import per_card as _per_card
from .runtime.rdma import RDMAError

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

    # DDR bank B (card addresses from 4 GiB): the scatter writer's passes read one bank and
    # write the other, so a pass's reads and writes do not share one bank's bus
    bank_b: int = 1 << 32

    @property
    def send_b(self) -> int:      # keys grouped by destination, in bank B
        return self.bank_b

    @property
    def recv_b(self) -> int:      # keys from every source, in bank B
        return self.bank_b + self.region


LAYOUT = Layout()
_RANGE_SLOT = 16  # bytes per card in the range exchange: min and max as uint64
_BINS = 256       # bins of the counting core (cores/sort/sort_rank_count.v)
CORE_REGS = ("lo", "sh")  # the counting core's Regs, by which a card build is recognised


@dataclass
class Spread:
    """An array spread over the cards: `counts[i]` keys on card `cards[i]` at LAYOUT.keys
    (and as many uint32 payloads at LAYOUT.payloads when `payloads`; with `pairs` each
    uint32 key is followed by its payload at LAYOUT.keys instead, the layout in which the
    cards' scatter writers move payloads)."""
    cards: list[int]
    counts: list[int]
    dtype: np.dtype
    payloads: bool
    pairs: bool = False

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


def spread(cl, keys: np.ndarray, payloads: np.ndarray | None = None, *, pairs: bool = False) -> Spread:
    """Writes `keys` (and `payloads`) into the cluster's cards in equal contiguous parts
    (card i of n cards gets keys[len*i//n : len*(i+1)//n]) at LAYOUT.keys / LAYOUT.payloads,
    or with `pairs` (uint32 keys with payloads) as (key, payload) pairs at LAYOUT.keys."""
    keys, payloads = _check_keys(keys, payloads)
    if pairs and (payloads is None or keys.dtype != np.uint32):
        raise SpgenError("sort: pairs are uint32 keys with their payloads")
    cards = _cards(cl)
    limit = LAYOUT.region // (8 if pairs else keys.dtype.itemsize) - _BINS  # room for the counting core's bin keys
    if keys.size > limit:
        raise SpgenError(f"sort: {keys.size} {keys.dtype} keys are more than this layout takes ({limit}: "
                         f"one card may receive every key, into {LAYOUT.region >> 20} MiB)")
    if LAYOUT.end > cl.sim.mem_bytes:
        raise SpgenError(f"sort: the cards' {cl.sim.mem_bytes} B memory is smaller than the sort's layout "
                         f"({LAYOUT.end} B)")
    bounds = [keys.size * i // len(cards) for i in range(len(cards) + 1)]
    for i, c in enumerate(cards):
        part = slice(bounds[i], bounds[i + 1])
        if bounds[i + 1] > bounds[i] and pairs:
            cl[c].write(LAYOUT.keys, np.stack([keys[part], payloads[part]], axis=1))
        elif bounds[i + 1] > bounds[i]:
            cl[c].write(LAYOUT.keys, keys[part])
            if payloads is not None:
                cl[c].write(LAYOUT.payloads, payloads[part])
    return Spread(cards, [bounds[i + 1] - bounds[i] for i in range(len(cards))], keys.dtype, payloads is not None,
                  pairs)


def gather(cl, s: Spread) -> tuple[np.ndarray, np.ndarray | None]:
    """The spread array read back from the cards, card by card (keys, payloads or None)."""
    def part(addr: int, dtype: np.dtype) -> np.ndarray:
        chunks = [np.frombuffer(cl[c].read(addr, k * dtype.itemsize), dtype) for c, k in zip(s.cards, s.counts) if k]
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype)

    if s.pairs:
        both = part(LAYOUT.keys, np.dtype((np.uint32, 2)))
        return both[:, 0].copy(), both[:, 1].copy()
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
        """Issues every put (card, dst, local, remote, bytes) at once, in the order of
        sort.hpp's issue_order (each card starts with its next peer), and waits for all."""
        puts = [puts[i] for i in _native().sort_issue_order([(p[0], p[1]) for p in puts])]
        c0 = self.cl.now
        transfers = [self.cl[c].put_async(d, local, remote, n) for c, d, local, remote, n in puts if n]
        self.cl.wait_all(transfers)
        cycles = self.cl.now - c0
        if self.cl.rtl and transfers:
            # RTL cards: from the first put's issue to the last one's completion. While cards
            # of the cluster are open its clock runs in a thread of its own, and where it stands
            # when this thread reads it depends on the machine's load (docs/runtime.md "Host time")
            times = [t.status() for t in transfers]
            cycles = max(s[3] for s in times) - min(s[2] for s in times)
        self.phases.append(Phase(name, "network", self.cl.ns(cycles) * 1e-9, cycles,
                                 sum(p[4] for p in puts), len(transfers)))
        if self.progress:
            self.progress(name)


def _read(cl, card: int, addr: int, count: int, dtype: np.dtype) -> np.ndarray:
    if not count:
        return np.zeros(0, dtype)
    return np.frombuffer(cl[card].read(addr, count * dtype.itemsize), dtype)


def _native():
    """The C++ side of the sort (runtime/sort/include/afushell/sort.hpp, bound in
    spgen.runtime._afushell): planning, the order of the puts, the digit width."""
    from .runtime._build import load_extension

    return load_extension()


def _plan(hists: np.ndarray, i: int, exact: bool) -> tuple[list[tuple[int, int, int, int]], int, tuple | None]:
    """Card i's pieces (offset in its send buffer, destination index, offset in that card's
    receive buffer, keys), the keys it receives and its first and last bin (or None), from
    every card's counts [source, bin] (sort.hpp's plan: consecutive bins to each card, about
    n/N keys each; with `exact`, one key value per bin, bins cut at the cards' boundaries)."""
    return _native().sort_plan(hists, i, exact)


def _card_mode(cl, s: Spread, partition_bits: int, digit_bits: int) -> tuple[str, str]:
    """("scatter" (the cards' scatter writers move the keys), "rank" (the counting core
    counts, the host moves) or "", and why the passes cannot run on these cards)."""
    if not cl.rtl:
        return "", "the network model has no cards to run cores on (a cluster file with \"card\" gives RTL cards)"
    info = cl._card_info(s.cards[0])
    if "sort_scatter" in info:
        mode = "scatter"
        if s.payloads and not s.pairs:
            return mode, ("the scatter writer moves payloads interleaved with their keys: "
                          "sort.spread(..., pairs=True), as sort.sort does")
    elif all(f"reg.{r}" in info for r in CORE_REGS):
        mode = "rank"
    else:
        return "", ("the cards carry neither the scatter writer (`spgen build --loopback --links N --sort-scatter`) "
                    "nor the counting core (`spgen build cores/sort/sort_rank.spd --links N`)")
    if s.dtype != np.uint32:
        return mode, f"the cards take uint32 keys, these are {s.dtype}"
    widest = (cl[s.cards[0]].read_csr("SORT_STATUS") >> 8) & 0xF if mode == "scatter" else 0
    if partition_bits > 8 or digit_bits not in (None, 8) and digit_bits > widest:
        return mode, ("the cards count 256 bins: partition_bits <= 8 and digit_bits = 8"
                      + (f" (or up to {widest}: their writer has {1 << widest} bins)" if widest else ""))
    return mode, ""


def _check_options(partition_bits: int, digit_bits: int | None, counting: str) -> None:
    if counting not in ("auto", "card", "host"):
        raise SpgenError(f"sort: counting must be 'auto', 'card' or 'host', got {counting!r}")
    if not 1 <= partition_bits <= 16:
        raise SpgenError(f"sort: partition_bits must be 1..16, got {partition_bits}")
    if digit_bits not in (None, 4, 8, 11, 16):
        raise SpgenError(f"sort: digit_bits must be 4, 8, 11 or 16, got {digit_bits}")


def _check_key_range(key_range: Any, dtype: np.dtype) -> tuple[int, int] | None:
    if key_range is None:
        return None
    top = int(np.iinfo(dtype).max)
    try:
        lo, hi = (int(x) for x in key_range)
    except (TypeError, ValueError):
        raise SpgenError(f"sort: key_range must be (lo, hi), got {key_range!r}") from None
    if not 0 <= lo <= hi <= top:
        raise SpgenError(f"sort: key_range must satisfy 0 <= lo <= hi <= {top} for {dtype} keys, got ({lo}, {hi})")
    return lo, hi


def sort_spread(cl, s: Spread, *, partition_bits: int = 8, digit_bits: int | None = None, counting: str = "auto",
                progress: Callable[[str], None] | None = None, key_range: tuple[int, int] | None = None) -> SortRun:
    """Sorts an array spread over the cards (from `spread`) in place: afterwards the cards
    hold the sorted array (card order, then memory order) at the same addresses, with new
    per-card counts (the returned run's `output`). `counting`: "card" runs the counting
    passes (histogram and ranks) on the cards' cascades (RTL cards built from
    cores/sort/sort_rank.spd, uint32 keys), "host" in numpy, "auto" on the cards when
    they can. `digit_bits`: the local passes' digit (None: 8 on the host and the counting
    core; on writers of a beat a cycle the width that makes the fewest cycles).
    `key_range`: (lo, hi), every key known to lie in [lo, hi] (OPTWEB's 64 key values:
    (0, 63)); cards with the scatter writer then skip the range pass and its exchange, and
    refuse keys outside it; elsewhere the range is found as usual."""
    _check_options(partition_bits, digit_bits, counting)
    key_range = _check_key_range(key_range, s.dtype)
    mode, why = _card_mode(cl, s, partition_bits, digit_bits) if counting != "host" else ("", "host")
    if counting == "card" and why:
        raise SpgenError(f"sort: counting on the cards is not possible: {why}")
    if s.pairs and mode != "scatter":
        raise SpgenError("sort: keys and payloads in pairs sort on cards with the scatter writer only "
                         f"(here: {why})")
    if mode == "scatter" and not why:
        writer = _ScatterWriter(cl, s.cards, s.pairs)
        try:
            return _sort_on_cards(cl, s, writer, digit_bits, progress, key_range)
        finally:
            writer.close()
    return _sort_spread(cl, s, partition_bits, digit_bits or 8, not why, progress)


def _sort_spread(cl, s: Spread, partition_bits: int, digit_bits: int, count_on_cards: bool,
                 progress: Callable[[str], None] | None) -> SortRun:
    """The sort with the host's counting passes, or the counting core's (`count_on_cards`):
    its sequence of phases is sort.hpp's sort_spread, the one the C++ sort runs, here over
    the cluster's own simulator (the model or RTL cards): range, range exchange, histogram,
    count exchange, prefix sums, group by card, scatter, local sort (docs/sort.md)."""
    failed, code, error, counts, phases, shift, passes, dump = _native().sort_spread(
        cl.sim, s.cards, s.counts, s.dtype.itemsize, s.payloads, partition_bits, digit_bits, count_on_cards,
        progress)
    if failed and code:   # a transfer failed: the engine's status, with the dump of a timeout on RTL cards
        raise RDMAError(code, cl.ext.error_text(code) + (f"\n{dump}" if code == 3 and dump else "")
                        if code != 100 else "still in flight after the wait")
    if failed:
        raise SpgenError(f"sort: {error}")
    return SortRun(s, Spread(s.cards, list(counts), s.dtype, s.payloads), [Phase(*p) for p in phases],
                   partition_bits, shift, passes)


def _sort_on_cards(cl, s: Spread, writer: _ScatterWriter, digit_bits: int | None,
                   progress: Callable[[str], None] | None, key_range: tuple[int, int] | None = None) -> SortRun:
    """The sort with every key (and payload, in pairs) moved by the cards: the scatter writers count, find the
    range and write every key to its place in each card's memory, RDMA puts move the keys
    between cards, and the host only computes the prefix sums from the exchanged counts and
    issues the passes and the puts. Passes over the keys per card: range and histogram
    (fused when the keys span the top digit's 256 values; else a histogram pass follows),
    the grouping by destination, then a count of the first digit and one scatter per digit,
    each counting the next digit's bins as it goes."""
    L, cards, N, B = LAYOUT, s.cards, len(s.cards), _BINS
    es = 8 if s.pairs else 4                # bytes per element: a key, or a key and its payload
    clock = _Clock(cl, progress)
    dump = L.ranks                          # the writer's range line and 256 counts
    hist_addr = L.counts + N * _RANGE_SLOT  # every source card's counts, after the ranges
    top = 32 - 8                            # the shift of the top digit

    def on_cards(name: str, per_card: Callable[[int, int, int], int]) -> None:
        clock.card(name, lambda: [per_card(i, c, k) for i, (c, k) in enumerate(zip(cards, s.counts))])

    # Writers that count by destination copy the keys to bank B in the first pass (a scatter
    # into one bin), for a grouping pass from bank B before an odd number of digits
    copy_b = (0, 32, L.send_b) if writer.dest else None
    if key_range is None:
        # 1. range, and the histogram of the top digit beside it
        on_cards("range", lambda i, c, k: writer.run(c, L.keys, k, count=(0, top), dump=dump,
                                                     scatter=copy_b))
        clock.network("range exchange", [(c, d, dump, L.counts + i * _RANGE_SLOT, _RANGE_SLOT)
                                         for i, c in enumerate(cards) for d in cards])
        ranges = {c: _read(cl, c, L.counts, 2 * N, np.dtype(np.uint64)).reshape(N, 2) for c in cards}
        lo, hi = int(ranges[cards[0]][:, 0].min()), int(ranges[cards[0]][:, 1].max())
        for c in cards[1:]:
            if (int(ranges[c][:, 0].min()), int(ranges[c][:, 1].max())) != (lo, hi):
                raise SpgenError(f"sort: card {c} holds another key range than card {cards[0]} after the exchange")
        if lo > hi:
            return SortRun(s, s, clock.phases, 8, 0, 0)
    else:   # the caller knows the range: no range pass, no range exchange
        lo, hi = key_range
    shift = _native().sort_aligned_shift(lo, hi, 8)
    fused = key_range is None and shift == top   # the range pass's counts are the partition's
    base = 0 if shift == top else lo >> shift << shift   # bins (key - base) >> shift, all < 256
    if not fused:   # with key_range the first pass over the keys: it makes the copy
        on_cards("histogram", lambda i, c, k: writer.run(c, L.keys, k, count=(base, shift), dump=dump,
                                                         scatter=copy_b if key_range is not None and shift else None))
    if key_range is not None:   # the histogram pass found every card's range beside the counts
        for c, k in zip(cards, s.counts):
            kmin, kmax = (int(x) for x in _read(cl, c, dump, 2, np.dtype(np.uint64)))
            if k and not lo <= kmin <= kmax <= hi:
                raise SpgenError(f"sort: card {c} holds keys {kmin}..{kmax}, outside key_range {lo}..{hi}")
    clock.network("count exchange", [(c, d, dump + 64, hist_addr + i * 4 * B, 4 * B)
                                     for i, c in enumerate(cards) for d in cards])

    # 2. prefix sums on the host, from each card's copy of the counts
    exact = shift == 0
    plans: dict[int, tuple[list[tuple[int, int, int, int]], int]] = {}
    spans: dict[int, tuple[int, int]] = {}   # the keys' range each card receives
    mines: dict[int, tuple[int, int]] = {}   # ... and its bins

    def prefix() -> None:
        for i, c in enumerate(cards):
            pieces, received, mine = _plan(_read(cl, c, hist_addr, N * B, np.dtype(np.uint32)).reshape(N, B), i, exact)
            plans[c] = (pieces, received)
            if mine:
                mines[i] = mine
                spans[i] = (max(lo, base + (mine[0] << shift)), min(hi, base + ((mine[1] + 1) << shift) - 1))

    clock.host("prefix sums", prefix)
    sort_bits = 0 if exact else (hi - lo).bit_length()
    if sort_bits and copy_b and digit_bits is None:   # a width given applies to every digit: counted below
        by_dest = _sort_by_dest(s, writer, clock, on_cards, plans, mines, spans, (base, shift, fused))
        if by_dest is not None:
            return by_dest

    # 4., 5. local counting passes (below): count the first digit, then one scatter per
    #    digit, each counting the next; each pass reads one bank and writes the other, the
    #    last one into the keys' region (bank A), so the keys arrive in bank A before an even
    #    number of digits and in bank B before an odd one. Where every card's keys span less
    #    than 2^31 values the count is also a copy to the other bank (a scatter into one
    #    bin, (key - the card's smallest) >> 31 = 0), so the keys arrive in bank A always
    copy = writer.wide and all(b - a < 1 << 31 for a, b in spans.values())
    bits = digit_bits or writer.digit_bits(sort_bits, max(p[1] for p in plans.values()), odd_penalty=not copy)
    digits = list(range(0, sort_bits, bits))
    copy = copy and len(digits) % 2 == 1
    if not writer.wide:
        recv, other = L.recv_keys, (L.send_keys, L.recv_keys)
    else:
        recv = L.recv_b if len(digits) % 2 and not copy else L.recv_keys
        other = (L.recv_keys, L.send_b)   # (bank A, bank B) scratch, free once the puts are done
    # 3. grouping by destination: a scatter pass in bin order (destination order too). On
    #    writers of a beat a cycle the send buffer sits in the bank the puts do not write:
    #    a card's engine reading one bank while its peers' puts write the same bank runs at
    #    a fraction of the line (the bank's bus turns round between reads and writes), so
    #    before an odd number of digits the grouping writes bank A, from bank A
    target = L.keys if exact else recv
    send = L.send_keys if not writer.wide or target >= L.bank_b else L.send_b
    on_cards("group by card", lambda i, c, k: writer.run(c, L.keys, k, count=(lo, 0),
                                                          scatter=(base, shift, send)))
    #    every key to its destination: with one key value per bin straight to its final place
    clock.network("scatter", [(c, cards[j], send + es * at, target + es * there, es * n)
                              for c in cards for at, j, there, n in plans[c][0]])

    def local(i: int, c: int, k: int) -> int:
        k = plans[c][1]
        if not digits or not k:
            return 0
        if copy:
            ns = writer.run(c, recv, k, count=(lo, 0), scatter=(spans[i][0], 31, L.send_b), bits=bits)
            src = L.send_b
        else:
            ns = writer.run(c, recv, k, count=(lo, 0), bits=bits)
            src = recv
        for j, sh in enumerate(digits):
            if j + 1 == len(digits):
                dst = L.keys
            elif writer.wide:
                dst = other[0] if src >= L.bank_b else other[1]
            else:
                dst = other[j % 2]
            ns += writer.run(c, src, k, count=(lo, sh + bits if sh + bits < 32 else 0),
                             scatter=(lo, sh, dst), bits=bits)
            src = dst
        return ns

    on_cards("local counting", local)
    run = SortRun(s, Spread(cards, [plans[c][1] for c in cards], s.dtype, s.payloads, s.pairs), clock.phases, 8, shift,
                  len(digits))
    run.extra.update(fused=fused, card_passes=max(writer.passes.values()), moved_by="cards", digit_bits=bits, copy=copy,
                     writer_bytes=64 if writer.wide else 4, banks=2 if writer.wide else 1, by_dest=False,
                     per_card=_per_card(cards, writer, plans, es))
    return run


def _sort_by_dest(s: Spread, writer: _ScatterWriter, clock: _Clock, on_cards, plans: dict, mines: dict,
                  spans: dict, partition: tuple[int, int, bool]) -> SortRun | None:
    """The rest of `_sort_on_cards` where the grouping pass counts every destination's first
    digit (writers with SORT_STATUS.DEST, sort.hpp's dest_count_plan): grouping, the puts of
    the keys, then of the counts, then per destination a load of its sources' counts and one
    scatter per digit (no count pass). The first pass over the keys copied them to bank B:
    before an odd number of digits the grouping reads that copy and writes bank A, the puts
    deliver to bank B, and the digits end in the keys' region (bank A). None where the plan
    is not possible (the caller then counts the first digit on the destinations)."""
    L, cards, N = LAYOUT, s.cards, len(s.cards)
    none = (1, 0)
    plan = _native().sort_dest_plan(writer.max_bits, 0, [mines.get(i, none) for i in range(N)],
                                    [spans.get(i, none) for i in range(N)])
    if plan is None:
        return None
    first, bits, ndig, dests, bases = plan
    es, dump, (base, shift, fused) = (8 if s.pairs else 4), L.ranks, partition
    block = 4 << first                                        # one destination's counts from one source
    loads = L.recv_keys + L.region   # every source's counts of the destination's first digit
    odd = ndig % 2 == 1
    src, send, recv = (L.send_b, L.send_keys, L.recv_b) if odd else (L.keys, L.send_b, L.recv_keys)
    on_cards("group by card", lambda i, c, k: writer.run(c, src, k, count=(0, 0), scatter=(base, shift, send),
                                                          dump=dump, count_bits=first, dests=dests))
    clock.network("scatter", [(c, cards[j], send + es * at, recv + es * there, es * n)
                              for c in cards for at, j, there, n in plans[c][0]])
    # after the keys: among their puts these small ones held the keys' puts back by a third
    clock.network("digit counts", [(c, d, dump + 64 + j * block, loads + i * block, block)
                                   for i, c in enumerate(cards) for j, d in enumerate(cards)])

    def local(i: int, c: int, k: int) -> int:
        k = plans[c][1]
        if not k:
            return 0
        ns = writer.run(c, loads, N << first, count=(0, 0), bits=first, load=True)
        at, sh, b = recv, 0, first
        for j in range(ndig):
            dst = L.keys if j + 1 == ndig else (L.recv_keys if at >= L.bank_b else L.send_b)
            nxt = sh + b
            ns += writer.run(c, at, k, count=(bases[i], nxt if nxt < 32 else 0), scatter=(bases[i], sh, dst),
                             bits=b, count_bits=bits)
            at, sh, b = dst, nxt, bits
        return ns

    on_cards("local counting", local)
    run = SortRun(s, Spread(cards, [plans[c][1] for c in cards], s.dtype, s.payloads, s.pairs), clock.phases, 8, shift,
                  ndig)
    run.extra.update(fused=fused, card_passes=max(writer.passes.values()), moved_by="cards", digit_bits=bits, first_digit_bits=first,
                     copy=odd, writer_bytes=64, banks=2, by_dest=True, per_card=_per_card(cards, writer, plans, es))
    return run



def sort(cl, keys: np.ndarray, payloads: np.ndarray | None = None, *, partition_bits: int = 8,
         digit_bits: int | None = None, counting: str = "auto", progress: Callable[[str], None] | None = None,
         key_range: tuple[int, int] | None = None) -> SortRun:
    """Sorts uint32 or uint64 `keys` (with uint32 `payloads` following their keys, stably)
    on the cluster `cl` (`spgen.runtime.rdma.cluster(...)`, RTL cards or the network model):
    spreads them over the cards, sorts them there and reads the result back into the
    run's `keys` / `payloads` (equal to numpy's stable sort)."""
    _check_options(partition_bits, digit_bits, counting)  # before anything is written to the cards
    keys, payloads = _check_keys(keys, payloads)
    key_range = _check_key_range(key_range, keys.dtype)
    if key_range and keys.size and not key_range[0] <= int(keys.min()) <= int(keys.max()) <= key_range[1]:
        raise SpgenError(f"sort: keys {keys.min()}..{keys.max()} lie outside key_range {key_range[0]}..{key_range[1]}")
    mode, why = _card_mode(cl, Spread(_cards(cl), [], keys.dtype, payloads is not None, payloads is not None),
                           partition_bits, digit_bits) if counting != "host" else ("", "host")
    if counting == "card" and why:
        raise SpgenError(f"sort: counting on the cards is not possible: {why}")
    pairs = mode == "scatter" and not why and payloads is not None  # the layout the writers move payloads in
    run = sort_spread(cl, spread(cl, keys, payloads, pairs=pairs), partition_bits=partition_bits,
                      digit_bits=digit_bits, counting=counting, progress=progress, key_range=key_range)
    run.keys, run.payloads = gather(cl, run.output)
    return run
