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

Where the code lives: the planning and the whole sequence of phases are C++
(runtime/sort/include/afushell/sort.hpp, sort_spread.hpp and, on the scatter writer,
sort_writer.hpp), the same functions the C++ sort runs, here over the Python cluster's own
simulator; this module checks the arguments, spreads and gathers, and builds the SortRun.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._diagnostics import SpgenError
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
_BINS = 256       # bins of the counting core (cores/sort/sort_rank_count.v)
CORE_REGS = ("lo", "sh")  # the counting core's Regs, by which a card build is recognised


@dataclass
class Spread:
    """An array spread over the cards: `counts[i]` keys on card `cards[i]` at LAYOUT.keys
    (and as many uint32 payloads at LAYOUT.payloads when `payloads`; with `pairs` each
    key is followed by its payload at LAYOUT.keys instead, the layout in which the cards'
    scatter writers move payloads: a uint32 key and its payload, 8 bytes; a uint64 key, its
    payload and a zero word, 16 bytes). After OPTWEB's single pass the cards' elements lie in
    `segments` instead: per card, (byte address, elements) runs in order."""
    cards: list[int]
    counts: list[int]
    dtype: np.dtype
    payloads: bool
    pairs: bool = False
    segments: list[list[tuple[int, int]]] | None = None

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


def _pair_words(dtype: np.dtype) -> int:
    """32-bit words of a key with its payload on the scatter writer: 2, or 4 for uint64 keys."""
    return 4 if dtype == np.uint64 else 2


def _pairs(keys: np.ndarray, payloads: np.ndarray) -> np.ndarray:
    """Keys and payloads as the scatter writer's elements: (key, payload) words, or for uint64
    keys (key low, key high, payload, 0)."""
    out = np.zeros((keys.size, _pair_words(keys.dtype)), np.uint32)
    out[:, :out.shape[1] // 2] = keys.view(np.uint32).reshape(keys.size, -1)
    out[:, out.shape[1] // 2] = payloads
    return out


def spread(cl, keys: np.ndarray, payloads: np.ndarray | None = None, *, pairs: bool = False) -> Spread:
    """Writes `keys` (and `payloads`) into the cluster's cards in equal contiguous parts
    (card i of n cards gets keys[len*i//n : len*(i+1)//n]) at LAYOUT.keys / LAYOUT.payloads,
    or with `pairs` (keys with payloads) as (key, payload) elements at LAYOUT.keys (Spread)."""
    keys, payloads = _check_keys(keys, payloads)
    if pairs and payloads is None:
        raise SpgenError("sort: pairs are keys with their payloads")
    cards = _cards(cl)
    size = _pair_words(keys.dtype) * 4 if pairs else keys.dtype.itemsize
    limit = LAYOUT.region // size - _BINS  # room for the counting core's bin keys
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
            cl[c].write(LAYOUT.keys, _pairs(keys[part], payloads[part]))
        elif bounds[i + 1] > bounds[i]:
            cl[c].write(LAYOUT.keys, keys[part])
            if payloads is not None:
                cl[c].write(LAYOUT.payloads, payloads[part])
    return Spread(cards, [bounds[i + 1] - bounds[i] for i in range(len(cards))], keys.dtype, payloads is not None,
                  pairs)


def gather(cl, s: Spread) -> tuple[np.ndarray, np.ndarray | None]:
    """The spread array read back from the cards, card by card (keys, payloads or None)."""
    def part(addr: int, dtype: np.dtype) -> np.ndarray:
        runs = ([(c, a, k) for c, segs in zip(s.cards, s.segments) for a, k in segs] if s.segments is not None
                else [(c, addr, k) for c, k in zip(s.cards, s.counts)])
        chunks = [np.frombuffer(cl[c].read(a, k * dtype.itemsize), dtype) for c, a, k in runs if k]
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype)

    if s.pairs:
        words = _pair_words(s.dtype)
        both = part(LAYOUT.keys, np.dtype((np.uint32, words)))
        keys = np.ascontiguousarray(both[:, :words // 2]).view(s.dtype).reshape(-1)
        return keys, both[:, words // 2].copy()
    return part(LAYOUT.keys, s.dtype), part(LAYOUT.payloads, PAYLOAD_TYPE) if s.payloads else None


def _native():
    """The C++ side of the sort (runtime/sort/include/afushell/sort.hpp, bound in
    spgen.runtime._afushell): planning, the order of the puts, the digit width."""
    from .runtime._build import load_extension

    return load_extension()


def _card_mode(cl, s: Spread, partition_bits: int, digit_bits: int) -> tuple[str, str]:
    """("scatter" (the cards' scatter writers move the keys), "rank" (the counting core
    counts, the host moves) or "", and why the passes cannot run on these cards)."""
    if not cl.rtl:
        return "", "the network model has no cards to run cores on (a cluster file with \"card\" gives RTL cards)"
    info = cl._card_info(s.cards[0])
    if "sort_scatter" in info:
        mode = "scatter"
        if s.dtype == np.uint64 and not cl[s.cards[0]].read_csr("SORT_STATUS") >> (14 if s.payloads else 13) & 1:
            return mode, (f"their scatter writer takes {'uint64 keys without payloads' if s.payloads else 'uint32 keys'}"
                          " only (an older build: `spgen build --loopback --links N --sort-scatter`)")
        if s.payloads and not s.pairs:
            return mode, ("the scatter writer moves payloads interleaved with their keys: "
                          "sort.spread(..., pairs=True), as sort.sort does")
    elif all(f"reg.{r}" in info for r in CORE_REGS):
        mode = "rank"
    else:
        return "", ("the cards carry neither the scatter writer (`spgen build --loopback --links N --sort-scatter`) "
                    "nor the counting core (`spgen build cores/sort/sort_rank.spd --links N`)")
    if s.dtype != np.uint32 and mode != "scatter":
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


def _check_bin_capacity(bin_capacity: Any) -> None:
    if bin_capacity is not None and (isinstance(bin_capacity, bool) or not isinstance(bin_capacity, (int, np.integer))
                                     or bin_capacity < 1):
        raise SpgenError(f"sort: bin_capacity must be a positive number of keys, got {bin_capacity!r}")


def sort_spread(cl, s: Spread, *, partition_bits: int = 8, digit_bits: int | None = None, counting: str = "auto",
                progress: Callable[[str], None] | None = None, key_range: tuple[int, int] | None = None,
                bin_capacity: int | None = None, single_pass: bool = False) -> SortRun:
    """Sorts an array spread over the cards (from `spread`) in place: afterwards the cards
    hold the sorted array (card order, then memory order) at the same addresses, with new
    per-card counts (the returned run's `output`). `counting`: "card" runs the counting
    passes (histogram and ranks) on the cards' cascades (RTL cards built from
    cores/sort/sort_rank.spd, uint32 keys) or every pass on their scatter writers (uint32
    or uint64 keys, with payloads in pairs), "host" in numpy, "auto" on the cards
    when they can. `digit_bits`: the local passes' digit (None: 8 on the host and the counting
    core; on writers of a beat a cycle the width that makes the fewest cycles).
    `key_range`: (lo, hi), every key known to lie in [lo, hi] (OPTWEB's 64 key values:
    (0, 63)); cards with the scatter writer then skip the range pass and its exchange, and
    refuse keys outside it; elsewhere the range is found as usual. `bin_capacity`: with at
    most 256 key values on cards with the scatter writer, the keys each bin of the single
    grouping pass may hold on a card (None: as many as fit 1 GiB of bank B, at most the
    card's keys); a fuller bin makes the cards group again (`extra["regrouped"]`).
    `single_pass`: with at most 64 key values and `key_range` on cards with the scatter writer, OPTWEB's
    single pass (each key read once and written once, at its destination, docs/sort.md);
    the cards' result then lies in segments, one per key value and source card (the
    output's `segments`), and a bin past its region makes the cards sort the two-pass way
    (`extra["spilled"]`)."""
    _check_options(partition_bits, digit_bits, counting)
    key_range = _check_key_range(key_range, s.dtype)
    _check_bin_capacity(bin_capacity)
    mode, why = _card_mode(cl, s, partition_bits, digit_bits) if counting != "host" else ("", "host")
    if counting == "card" and why:
        raise SpgenError(f"sort: counting on the cards is not possible: {why}")
    if s.pairs and mode != "scatter":
        raise SpgenError("sort: keys and payloads in pairs sort on cards with the scatter writer only "
                         f"(here: {why})")
    if mode == "scatter" and not why:
        return _sort_on_cards(cl, s, digit_bits, progress, key_range, bin_capacity or 0, bool(single_pass))
    return _sort_spread(cl, s, partition_bits, digit_bits or 8, not why, progress)


def _raise(cl, failed: bool, code: int, error: str, dump: str) -> None:
    """A failed C++ sort as the exception Python raises for it."""
    if failed and code:   # a transfer failed: the engine's status, where (a card's put), the dump of a timeout
        where = f" ({error})" if error else ""
        raise RDMAError(code, cl.ext.error_text(code) + where + (f"\n{dump}" if code == 3 and dump else "")
                        if code != 100 else "still in flight after the wait")
    if failed:
        raise SpgenError(f"sort: {error}")


def _sort_spread(cl, s: Spread, partition_bits: int, digit_bits: int, count_on_cards: bool,
                 progress: Callable[[str], None] | None) -> SortRun:
    """The sort with the host's counting passes, or the counting core's (`count_on_cards`):
    its sequence of phases is sort.hpp's sort_spread, the one the C++ sort runs, here over
    the cluster's own simulator (the model or RTL cards): range, range exchange, histogram,
    count exchange, prefix sums, group by card, scatter, local sort (docs/sort.md)."""
    failed, code, error, counts, phases, shift, passes, dump = _native().sort_spread(
        cl.sim, s.cards, s.counts, s.dtype.itemsize, s.payloads, partition_bits, digit_bits, count_on_cards,
        progress)
    _raise(cl, failed, code, error, dump)
    return SortRun(s, Spread(s.cards, list(counts), s.dtype, s.payloads), [Phase(*p) for p in phases],
                   partition_bits, shift, passes)


def _sort_on_cards(cl, s: Spread, digit_bits: int | None, progress: Callable[[str], None] | None,
                   key_range: tuple[int, int] | None, bin_capacity: int, single_pass: bool = False) -> SortRun:
    """The sort with every key (and payload, in pairs) moved by the cards' scatter writers:
    its sequence of passes and puts is sort_writer.hpp's sort_on_cards, the one the C++ sort
    runs, here over the cluster's own simulator (docs/sort.md, "The scatter writer"); the
    run's `extra` holds the writers' figures, `extra["per_card"]` what each card moved."""
    result, extra = _native().sort_on_cards(cl.sim, s.cards, s.counts, s.pairs, digit_bits or 0, key_range,
                                            progress, s.dtype.itemsize, int(bin_capacity), single_pass)
    failed, code, error, counts, phases, shift, passes, dump = result
    _raise(cl, failed, code, error, dump)
    segments = [[(int(a), int(k)) for a, k in card] for card in extra.pop("segments")] if "segments" in extra else None
    run = SortRun(s, Spread(s.cards, list(counts), s.dtype, s.payloads, s.pairs, segments),
                  [Phase(*p) for p in phases], 8, shift, passes)
    run.extra.update(extra)
    return run


def sort(cl, keys: np.ndarray, payloads: np.ndarray | None = None, *, partition_bits: int = 8,
         digit_bits: int | None = None, counting: str = "auto", progress: Callable[[str], None] | None = None,
         key_range: tuple[int, int] | None = None, bin_capacity: int | None = None,
         single_pass: bool = False) -> SortRun:
    """Sorts uint32 or uint64 `keys` (with uint32 `payloads` following their keys, stably)
    on the cluster `cl` (`spgen.runtime.rdma.cluster(...)`, RTL cards or the network model):
    spreads them over the cards, sorts them there and reads the result back into the
    run's `keys` / `payloads` (equal to numpy's stable sort)."""
    _check_options(partition_bits, digit_bits, counting)  # before anything is written to the cards
    keys, payloads = _check_keys(keys, payloads)
    key_range = _check_key_range(key_range, keys.dtype)
    _check_bin_capacity(bin_capacity)
    if key_range and keys.size and not key_range[0] <= int(keys.min()) <= int(keys.max()) <= key_range[1]:
        raise SpgenError(f"sort: keys {keys.min()}..{keys.max()} lie outside key_range {key_range[0]}..{key_range[1]}")
    mode, why = _card_mode(cl, Spread(_cards(cl), [], keys.dtype, payloads is not None, payloads is not None),
                           partition_bits, digit_bits) if counting != "host" else ("", "host")
    if counting == "card" and why:
        raise SpgenError(f"sort: counting on the cards is not possible: {why}")
    pairs = mode == "scatter" and not why and payloads is not None  # the layout the writers move payloads in
    run = sort_spread(cl, spread(cl, keys, payloads, pairs=pairs), partition_bits=partition_bits,
                      digit_bits=digit_bits, counting=counting, progress=progress, key_range=key_range,
                      bin_capacity=bin_capacity, single_pass=single_pass)
    run.keys, run.payloads = gather(cl, run.output)
    return run
