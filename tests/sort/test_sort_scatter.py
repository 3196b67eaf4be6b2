"""The sort's scatter writer (shell/shell_sort_scatter.v, docs/sort.md "The scatter writer"):
its passes on one card against numpy, and the distributed sort with every key moved by the
cards, equal to numpy's sort on RTL cards, with faults."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sort_cases import KINDS, _check, _inputs
from spgen import SpgenError, sort
from spgen.cli import main
from spgen.runtime import rdma

pytestmark = pytest.mark.xdist_group("sort")


@pytest.fixture(scope="module")
def scatter_card(tmp_path_factory) -> Path:
    """A loop-back card with the scatter writer and 4 link ports."""
    out = tmp_path_factory.mktemp("cards") / "scatter4"
    assert main(["build", "--loopback", "--links", "4", "--sort-scatter", "--op-timeout", "100000",
                 "-o", str(out)]) == 0
    return out


def _bins(keys: np.ndarray, lo: int, sh: int) -> np.ndarray:
    return (((keys - np.uint32(lo)) >> np.uint32(sh)) & np.uint32(255)).astype(np.int64)


def _bins64(keys: np.ndarray, lo: int, sh: int, bits: int) -> np.ndarray:
    return (((keys - np.uint64(lo)) >> np.uint64(sh)) & np.uint64((1 << bits) - 1)).astype(np.int64)


def _dump(cl, card: int, addr: int) -> tuple[np.ndarray, np.ndarray]:
    raw = np.frombuffer(cl[card].read(addr, 17 * 64), np.uint32)
    return raw[:16], raw[16:].astype(np.int64)


@pytest.mark.parametrize("pairs", [False, True])
def test_writer_passes(scatter_card: Path, pairs: bool) -> None:
    """A count pass, then a scatter pass that counts the next digit: the keys (and with
    pairs their payloads) land at their stable counting-sort places from an address that
    is no line start, the bytes around them stay as they were, the dumps hold the range
    and the counts."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "card": str(scatter_card)})
    rng = np.random.default_rng(3)
    n, lo, src, dst, dump = 4099, 0x01000000, 0, 1 << 20, 2 << 20
    keys = rng.integers(lo, lo + (1 << 24), n, dtype=np.uint32)
    keys[500:900] = keys[499]                          # back-to-back keys of one bin
    keys[2000:2100] = np.arange(100, dtype=np.uint32) * 512 + np.uint32(lo)
    pays = np.arange(n, dtype=np.uint32) * 3 + 1
    elems = np.stack([keys, pays], axis=1).ravel() if pairs else keys
    w = elems.size // n                                # words per element
    cl[0].write(src, elems)
    guard = np.full(w * n + 48, 0xA5A5A5A5, np.uint32)
    at = dst + (24 if pairs else 12)                   # mid-line: partial first and last lines
    cl[0].write(at - 64, guard)
    writer = sort._native().SortScatterWriter(cl.sim, [0], pairs)
    try:
        writer.run(0, src, n, count=(lo, 16), dump=dump)
        line, counts = _dump(cl, 0, dump)
        assert (line[0], line[2], line[4]) == (keys.min(), keys.max(), n) and line[1] == line[3] == 0
        assert np.array_equal(counts, np.bincount(_bins(keys, lo, 16), minlength=256))
        writer.run(0, src, n, count=(lo, 8), scatter=(lo, 16, at), dump=dump)
    finally:
        writer.close()
    order = np.argsort(_bins(keys, lo, 16), kind="stable")
    out = np.frombuffer(cl[0].read(at - 64, 4 * guard.size), np.uint32)
    assert np.array_equal(out[16:16 + w * n], elems.reshape(n, w)[order].ravel())
    assert (out[:16] == 0xA5A5A5A5).all() and (out[16 + w * n:] == 0xA5A5A5A5).all()
    _, counts = _dump(cl, 0, dump)
    assert np.array_equal(counts, np.bincount(_bins(keys, lo, 8), minlength=256))
    lines = cl[0].read_csr("SORT_LINES")
    full, partial = lines & 0xFFFFFFFF, lines >> 32
    used = np.count_nonzero(np.bincount(_bins(keys, lo, 16), minlength=256))
    assert partial <= 2 * used and full * 16 + partial <= w * n and full * 16 >= w * n - 30 * used
    assert n * w / 16 <= cl[0].read_csr("SORT_CYCLES") < n    # a beat (16 words) a cycle at most


def test_writer_passes_uint64(scatter_card: Path) -> None:
    """CFG.U64 on a card: uint64 keys, 8 a beat, with a 64-bit low; the range line holds
    the 64-bit range, the counts bins of a digit across the keys' two words, the scatter
    pass writes a stable counting sort of them and leaves the bytes around them alone."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "card": str(scatter_card)})
    rng = np.random.default_rng(4)
    n, src, dst, dump, lo = 3001, 0, 1 << 20, 2 << 20, (7 << 40) - 12345
    keys = np.uint64(lo) + rng.integers(0, 1 << 44, n, dtype=np.uint64)
    keys[100:400] = keys[99]
    cl[0].write(src, keys)
    guard = np.full(2 * n + 32, 0xA5A5A5A5, np.uint32)
    at = dst + 24
    cl[0].write(at - 64, guard)
    writer = sort._native().SortScatterWriter(cl.sim, [0], u64=True)
    try:
        writer.run(0, src, n, count=(lo, 30), dump=dump, bits=11)
        line = np.frombuffer(cl[0].read(dump, 24), np.uint64)
        assert line.tolist() == [keys.min(), keys.max(), n]
        counts = np.frombuffer(cl[0].read(dump + 64, 4 << 11), np.uint32)
        assert np.array_equal(counts, np.bincount(_bins64(keys, lo, 30, 11), minlength=1 << 11))
        writer.run(0, src, n, count=(lo, 41), scatter=(lo, 30, at), dump=dump, bits=11)
    finally:
        writer.close()
    out = np.frombuffer(cl[0].read(at - 64, 4 * guard.size), np.uint32)
    assert np.array_equal(out[16:16 + 2 * n].view(np.uint64), keys[np.argsort(_bins64(keys, lo, 30, 11), kind="stable")])
    assert (out[:16] == 0xA5A5A5A5).all() and (out[16 + 2 * n:] == 0xA5A5A5A5).all()
    counts = np.frombuffer(cl[0].read(dump + 64, 4 << 11), np.uint32)
    assert np.array_equal(counts, np.bincount(_bins64(keys, lo, 41, 11), minlength=1 << 11))
    assert (cl[0].read_csr("SORT_RANGE_HI"), cl[0].read_csr("SORT_CFG")) == (
        int(keys.max()) >> 32 << 32 | int(keys.min()) >> 32, 0)


def test_writer_counts_by_destination_and_loads_counts(scatter_card: Path) -> None:
    """DEST: the counted bin is (destination << COUNT_BITS) | digit, the destination from the
    scatter bin and the DESTS bytes, all 2^11 counts in the dump; a BIN_SHIFT of 32 copies;
    LOAD adds the stream's words to the counters, whose prefix sums the next scatter pass
    takes, with COUNT_BITS wider than the scatter's bins."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "card": str(scatter_card)})
    assert cl[0].read_csr("SORT_STATUS") >> 12 & 1
    rng = np.random.default_rng(5)
    n, send, dump, cnt, out = 3001, 1 << 20, 2 << 20, 3 << 20, 4 << 20
    keys = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    cl[0].write(0, keys)
    last = [40, 40, 200] + [255] * 5                   # destination 1 has no bins, 3 takes 201..255
    dests = sum(b << 8 * j for j, b in enumerate(last))
    writer = sort._native().SortScatterWriter(cl.sim, [0], False)
    try:
        writer.run(0, 0, n, count=(0, 0), scatter=(0, 32, send), dump=dump)       # a copy
        assert np.array_equal(np.frombuffer(cl[0].read(send, 4 * n), np.uint32), keys)
        writer.run(0, send, n, count=(0, 0), scatter=(0, 24, out), dump=dump, count_bits=9, dests=dests)
        counts = np.frombuffer(cl[0].read(dump + 64, 4 * 2048), np.uint32)
        dest = np.searchsorted(np.array(last[:3]), keys >> 24, side="left")
        assert np.array_equal(counts, np.bincount(dest * 512 + (keys & 511), minlength=2048))
        # the counts of destination 3 as two sources would send them, summed by a LOAD pass
        mine = keys[dest == 3]
        halves = [np.bincount(mine[:k] & 511, minlength=512) for k in (500, mine.size)]
        halves[1] -= halves[0]
        cl[0].write(cnt, np.concatenate(halves).astype(np.uint32))
        cl[0].write(send, mine)
        writer.run(0, cnt, 1024, count=(0, 0), bits=9, load=True)
        assert writer.passes(0) == 2                    # a load is no pass over the keys
        writer.run(0, send, mine.size, count=(0, 9), scatter=(0, 0, out), bits=9, count_bits=11, dump=dump)
    finally:
        writer.close()
    got = np.frombuffer(cl[0].read(out, 4 * mine.size), np.uint32)
    assert np.array_equal(got, mine[np.argsort(mine & 511, kind="stable")])
    counts = np.frombuffer(cl[0].read(dump + 64, 4 * 2048), np.uint32)
    assert np.array_equal(counts, np.bincount((mine >> 9) & 2047, minlength=2048))


def test_writer_refuses_extra_words_and_steps_aside(scatter_card: Path) -> None:
    """Words past N are dropped and reported (never a hang); disabled, the RX engine
    writes as usual."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "card": str(scatter_card)})
    keys = np.arange(40, dtype=np.uint32)[::-1].copy()
    cl[1].write(0, keys)
    card = cl[1].open()
    try:
        cl[1].write_csr("SORT_CFG", 1)
        cl[1].write_csr("SORT_N", 10)
        cl[1].write_csr("SORT_CTRL", 1)
        card.dma(4096, 0, 4 * keys.size, "F2F")
        status = cl[1].read_csr("SORT_STATUS")
        assert status & 0b110 == 0b110 and status >> 32 == 10        # DONE, OVERRUN, 10 keys
        assert cl[1].read_csr("SORT_RANGE") == (39 << 32) | 30         # max, min of the 10 taken
        assert not np.frombuffer(cl[1].read(4096, 4 * keys.size), np.uint32).any()
        cl[1].write_csr("SORT_CFG", 0)
        card.dma(4096, 0, 4 * keys.size, "F2F")
        assert np.array_equal(np.frombuffer(cl[1].read(4096, 4 * keys.size), np.uint32), keys)
    finally:
        card.close()


def _moved_by_cards(run: sort.SortRun) -> None:
    assert run.extra["moved_by"] == "cards"
    assert [p.name for p in run.phases if p.where == "host"] == ["prefix sums"]
    assert run.phase("group by card").where == "card" and run.phase("local counting").where == "card"
    # every put of the network phases was issued by the cards' sequencers
    puts = sum(p.operations for p in run.phases if p.where == "network")
    assert puts > 0 and run.extra["card_puts"] == puts


@pytest.mark.parametrize("cards", [2, 4])
def test_sort_moved_by_cards(scatter_card: Path, cards: int) -> None:
    """Keys alone, and keys with payloads (moved as pairs): equal to numpy's stable sort."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": cards, "card": str(scatter_card)})
    for i, kind in enumerate(KINDS if cards == 4 else ["random", "reverse"]):
        run = _check(cl, _inputs(kind, 1003, np.uint32), with_payloads=i % 2 == 0, counting="card")
        if kind != "equal":
            _moved_by_cards(run)
        if kind in ("random", "sorted", "reverse"):   # full range: the range pass gave the histogram
            assert run.extra["fused"] and "histogram" not in [p.name for p in run.phases]
            # the grouping counted the first digit by destination: range, group, 3 digits (A = 6)
            assert run.extra["by_dest"] and run.extra["first_digit_bits"] == 11 - (cards - 1).bit_length()
            assert run.extra["card_passes"] == 5 and run.local_passes == 3
    if cards == 4:   # every kind above; the sizes and narrow ranges below on 2 cards (and 8 in the slow suite)
        return
    for n in (1, 7, 2 * cards - 1, 4097):   # sizes that are multiples of nothing, fewer keys than cards
        _check(cl, _inputs("random", n, np.uint32), with_payloads=False, counting="card")
    narrow = np.random.default_rng(2).integers(1000, 60000, 3001).astype(np.uint32)
    run = _check(cl, narrow, with_payloads=False, counting="card")
    assert not run.extra["fused"] and run.phase("histogram").where == "card"
    few = np.random.default_rng(2).integers(0, 64, 3001).astype(np.uint32)   # OPTWEB's 64 key values
    run = _check(cl, few, with_payloads=False, counting="card")
    assert run.local_passes == 0 and max(run.output.counts) - min(run.output.counts) <= 1
    assert run.extra["binned"] and run.extra["card_passes"] == 2   # range, group (no histogram pass)


def _inputs64(kind: str, n: int, seed: int = 1) -> np.ndarray:
    """uint64 keys: those of sort_cases, or spans of a few thousand values at the top of the
    range (bins past 2^64 - 1) and of 2^34 values across the keys' two words."""
    rng = np.random.default_rng(seed)
    if kind == "top":
        return np.uint64(2**64 - 3000) + rng.integers(0, 3000, n, dtype=np.uint64)
    if kind == "across":
        return np.uint64((1 << 40) - (1 << 33)) + rng.integers(0, 1 << 34, n, dtype=np.uint64)
    return _inputs(kind, n, np.uint64, seed)


def _check64(cl, keys: np.ndarray, with_payloads: bool = False, **kw) -> sort.SortRun:
    """uint64 keys (with payloads: 16-byte elements) sorted on the cards' writers, equal to
    numpy's (stable argsort for the payloads)."""
    run = _check(cl, keys, with_payloads=with_payloads, counting="card", **kw)
    if np.unique(keys).size > 1:
        _moved_by_cards(run)
        e = run.extra   # range (unless known), histogram (unless fused), group, a count unless by destination, digits
        assert e["card_passes"] == (not kw.get("key_range")) + (not e["fused"]) + 1 + (
            run.local_passes > 0 and not e["by_dest"]) + run.local_passes
    return run


@pytest.mark.parametrize("cards", [2, 4])
def test_uint64_moved_by_cards(scatter_card: Path, cards: int) -> None:
    """uint64 keys, 8 a beat, every pass and put on the cards: full 64-bit random keys take
    the range pass's top-byte counts and the first digit counted by destination; narrow
    spans (at the top of the range, across the words), all-equal, sorted, reverse and odd
    sizes equal numpy's sort."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": cards, "card": str(scatter_card)})
    kinds = ["random", "top", "equal", "sorted", "reverse"] if cards == 4 else ["random", "across", "zipf", "few"]
    for kind in kinds:
        run = _check64(cl, _inputs64(kind, 1003))
        if kind in ("random", "sorted", "reverse"):
            assert run.extra["fused"] and run.extra["by_dest"] and run.extra["writer_bytes"] == 64
            assert run.local_passes == 1 + -(-(64 - (cards - 1).bit_length() - run.extra["first_digit_bits"]) // 11)
        if kind in ("top", "across"):
            assert not run.extra["fused"] and run.phase("histogram").where == "card"
    if cards == 2:
        for n in (1, 7, 3, 2049):
            _check64(cl, _inputs64("random", n, seed=n))
        _check64(cl, _inputs64("top", 999), key_range=(2**64 - 3000, 2**64 - 1))


@pytest.mark.parametrize("cards", [2, 4])
def test_uint64_with_payloads_moved_by_cards(scatter_card: Path, cards: int) -> None:
    """uint64 keys with uint32 payloads, 4 a beat (key, payload, a zero word), every pass and
    put on the cards: random full 64-bit keys, narrow spans, all-equal (the payloads keep
    their order), sorted, reverse and odd sizes equal numpy's sort and stable argsort; the
    per-card figures count 16 bytes an element."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": cards, "card": str(scatter_card)})
    kinds = ["random", "top", "equal", "sorted", "reverse"] if cards == 4 else ["random", "across", "zipf", "few"]
    for kind in kinds:
        keys = _inputs64(kind, 1003)
        run = _check64(cl, keys, with_payloads=True)
        assert run.output.pairs and run.extra["moved_by"] == "cards"
        if kind == "random":
            assert run.extra["fused"] and run.extra["by_dest"] and run.extra["writer_bytes"] == 64
            for f, k in zip(run.extra["per_card"], run.input.counts):   # the range pass reads 16 bytes a key
                assert f["ddr_read"] >= 16 * k * 2 and f["ddr_read"] % 16 == 0 and f["link_sent"] % 16 == 0
    if cards == 2:
        for n in (1, 7, 3, 2049):
            _check64(cl, _inputs64("random", n, seed=n), with_payloads=True)
        _check64(cl, _inputs64("top", 999), with_payloads=True, key_range=(2**64 - 3000, 2**64 - 1))


def test_absent_card_progress_and_per_card(scatter_card: Path) -> None:
    """A line of 3 RTL cards whose last card is absent: the writers of the present cards
    sort, the progress callback hears every phase as it ends, and the per-card figures add
    up (what one card sends the others receive; every key read in each pass)."""
    cl = rdma.cluster({"topology": "mesh", "dims": [3], "absent": [2], "card": str(scatter_card)})
    heard: list[str] = []
    keys = _inputs("random", 2001, np.uint32)
    run = sort.sort(cl, keys, counting="card", progress=heard.append)
    assert np.array_equal(run.keys, np.sort(keys, kind="stable")) and run.output.cards == [0, 1]
    _moved_by_cards(run)
    assert heard == [p.name for p in run.phases]
    per = run.extra["per_card"]
    assert [p["card"] for p in per] == [0, 1]
    assert sum(p["link_sent"] for p in per) == sum(p["link_received"] for p in per) > 0
    assert max(p["passes"] for p in per) == run.extra["card_passes"]
    for p, k in zip(per, run.input.counts):   # range, grouping: every one of the card's keys read
        assert p["ddr_read"] >= 2 * 4 * k and p["pass_ns"] > 0


def test_wide_digits_and_banks(scatter_card: Path) -> None:
    """11-bit digits (the writer's 2048 bins): 3 local passes for random uint32 keys, with
    payloads too; the grouping pass writes to bank B (from 4 GiB) and the passes alternate
    banks, the last one into the keys' region; a digit wider than the writer's bins says so.
    With an odd number of digits the first digit's count copies the keys to bank B, so the
    puts deliver to bank A; where a card's keys span 2^31 values or more it cannot, and the
    puts deliver to bank B with the send buffer in bank A."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "card": str(scatter_card)})
    assert (cl[0].read_csr("SORT_STATUS") >> 8) & 0xF == 11
    keys = _inputs("random", 3001, np.uint32)
    cl3 = rdma.cluster({"topology": "fullmesh", "cards": 3, "card": str(scatter_card)})
    run = _check(cl3, keys, with_payloads=False, counting="card", digit_bits=11)
    assert run.local_passes == 3 and run.extra["card_passes"] == 6 and run.extra["banks"] == 2
    assert run.extra["copy"]   # 3 cards: each card's keys span about 2^32 / 3 values
    # the puts delivered card 0's share of the smallest keys to bank A (the digit passes
    # used it as scratch since: the same keys, in another order)
    k0 = run.output.counts[0]
    received = np.frombuffer(cl3[0].read(sort.LAYOUT.recv_keys, 4 * k0), np.uint32)
    assert np.array_equal(np.sort(received), np.sort(keys)[:k0])
    # Zipf keys on 2 cards: card 1 takes bins 1..255, a span of more than 2^31 values
    zipf = _inputs("zipf", 3001, np.uint32)
    run = _check(cl, zipf, with_payloads=False, counting="card", digit_bits=11)
    assert run.local_passes == 3 and not run.extra["copy"]
    k0 = run.output.counts[0]
    received = np.frombuffer(cl[0].read(sort.LAYOUT.recv_b, 4 * k0), np.uint32)
    assert np.array_equal(np.sort(received), np.sort(zipf)[:k0])
    # ... and the grouping pass wrote card 0's keys, by destination, to bank A, which the
    # puts do not write (a bank read and written at once slows the puts several times)
    half = zipf.size // 2
    grouped = np.frombuffer(cl[0].read(sort.LAYOUT.send_keys, 4 * half), np.uint32)
    assert np.array_equal(np.sort(grouped), np.sort(zipf[:half])) and np.all(np.diff(grouped >> 24) >= 0)
    # by default the grouping counts the first digit by destination: 10 bits on 2 cards, then 11
    run = sort.sort(cl, keys, counting="card")
    assert run.extra["by_dest"] and (run.extra["first_digit_bits"], run.local_passes) == (10, 3)
    run = _check(cl3, keys, with_payloads=True, counting="card", digit_bits=11)
    assert run.local_passes == 3 and run.output.pairs and run.extra["copy"]
    for kind in ("sorted", "reverse", "few"):   # the copy with pairs, and odd sizes
        _check(cl3, _inputs(kind, 2999, np.uint32), with_payloads=True, counting="card", digit_bits=11)
    run = _check(cl, _inputs("zipf", 2001, np.uint32), with_payloads=True, counting="card", digit_bits=4)
    assert run.extra["digit_bits"] == 4
    with pytest.raises(SpgenError, match="or up to 11: their writer has 2048 bins"):
        sort.sort(cl, keys, counting="card", digit_bits=16)


def test_known_key_range(scatter_card: Path) -> None:
    """With the keys' range known (OPTWEB's 64 key values: 0..63) the cards skip the range
    pass and its exchange: 64-value keys take one grouping pass into bins of fixed capacity
    (no histogram pass), then go straight to their places; keys outside the range are
    refused, from the host before anything is written and from the cards' own range when
    the keys already sit there."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 3, "card": str(scatter_card)})
    rng = np.random.default_rng(4)
    for n in (3001, 1, 64 * 3 + 1):
        few = rng.integers(0, 64, n).astype(np.uint32)
        run = _check(cl, few, with_payloads=n != 1, counting="card", key_range=(0, 63))
        assert [p.name for p in run.phases if p.where != "network"] == ["group by card", "prefix sums"]
        assert run.extra["card_passes"] == 1 and run.extra["binned"] and not run.extra["regrouped"]
        assert run.local_passes == 0 and max(run.output.counts) - min(run.output.counts) <= 1
    for kind, known in (("random", (0, 2**32 - 1)), ("zipf", (1, 2**32 - 1)), ("equal", (0xDEADBEEF, 0xDEADBEEF)),
                        ("reverse", (0, 2**32 - 1))):
        run = _check(cl, _inputs(kind, 2003, np.uint32), with_payloads=kind == "zipf", counting="card",
                     key_range=known)
        assert "range" not in [p.name for p in run.phases]
    # bins too small for their keys (about 16 a bin a card here): the pass's counts show it,
    # the cards group again by them, and the result (payloads too, stably) is still exact
    few = rng.integers(0, 64, 3001).astype(np.uint32)
    few[:700] = 5   # one bin with most of a card's keys
    for cap, regrouped in ((10, True), (1000, False), (2**40, False)):   # 2^40: held to the 1 GiB of scratch
        run = _check(cl, few, with_payloads=True, counting="card", key_range=(0, 63), bin_capacity=cap)
        assert run.extra["binned"] and run.extra["regrouped"] == regrouped
        assert ("regroup" in [p.name for p in run.phases]) == regrouped
        assert run.extra["card_passes"] == 1 + regrouped
    with pytest.raises(SpgenError, match="bin_capacity must be a positive number of keys, got 0"):
        sort.sort(cl, few, key_range=(0, 63), bin_capacity=0)
    with pytest.raises(SpgenError, match="lie outside key_range 0..62"):
        sort.sort(cl, np.arange(64, dtype=np.uint32), counting="card", key_range=(0, 62))
    with pytest.raises(SpgenError, match=r"card \d holds keys \d+..64, outside key_range 0..63"):
        sort.sort_spread(cl, sort.spread(cl, np.arange(1, 65, dtype=np.uint32)), key_range=(0, 63))
    with pytest.raises(SpgenError, match="key_range must satisfy"):
        sort.sort(cl, np.zeros(4, np.uint32), key_range=(5, 4))
    with pytest.raises(SpgenError, match=r"key_range must be \(lo, hi\)"):
        sort.sort(cl, np.zeros(4, np.uint32), key_range=7)


def _single(cl, keys: np.ndarray, with_payloads: bool, key_range: tuple[int, int], **kw) -> sort.SortRun:
    run = _check(cl, keys, with_payloads=with_payloads, counting="card", key_range=key_range, single_pass=True, **kw)
    e = run.extra
    if e.get("single_pass"):   # each key read once, written once: one pass, no puts of the host's
        # (the count exchange is the stages' own puts, within the pass)
        # one phase, run by every card's sequencer from one start of the host's: the stage's
        # set-up, the capacities' load, the pass, the rests and the counts' puts
        assert [p.name for p in run.phases] == ["single pass"] and e["sequenced"]
        # the phase: the longest run by its card's count; the host saw it from outside, longer
        assert 0 < run.phases[0].seconds * 1e9 <= e["host_ns"]
        assert e["card_passes"] == 1 and not e["spilled"] and run.local_passes == 0
        segs = run.output.segments
        assert [sum(k for _, k in card) for card in segs] == run.output.counts
        es = keys.itemsize * (2 if with_payloads else 1)   # 4, 8 (a pair or a uint64 key) or 16 bytes
        for f, card in zip(e["per_card"], segs):
            # the keys, and the 256 capacities loaded before the pass
            assert f["ddr_read"] == es * run.input.counts[run.input.cards.index(f["card"])] + 4 * 256
            assert f["ddr_write"] == es * sum(k for _, k in card)
        # the stage's counters: the engines read back every line their puts held (each source's
        # keys of a value in whole lines from its region's start), within the pass's cycles
        assert sum(f["engine_reads"] for f in e["per_card"]) == sum(-(-es * k // 64) for c in segs for _, k in c)
        for f in e["per_card"]:
            had = run.input.counts[run.input.cards.index(f["card"])]
            assert (f["engine_reads"] > 0) == (had > 0) and f["engine_reads"] + f["engine_gaps"] <= f["stage_cycles"]
            assert f["writer_waits"] < f["stage_cycles"]
    return run


def test_single_pass(scatter_card: Path) -> None:
    """OPTWEB's single pass (64 key values, their range known): every card's grouping pass
    writes its bins into its stage, whose chunks go straight to their destinations' regions
    (one per key value and source card); the gathered segments equal numpy's stable sort,
    with payloads, for uniform, Zipf, sorted, reverse and odd-sized inputs and uint64 keys.
    A bin past its region (all keys equal, or a small bin_capacity) makes the cards sort
    the two-pass way, exactly."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 3, "card": str(scatter_card)})
    rng = np.random.default_rng(11)
    cases = {"uniform": rng.integers(0, 64, 20011), "zipf": rng.zipf(1.3, 5003) % 64,
             "sorted": np.sort(rng.integers(0, 64, 3001)), "reverse": np.sort(rng.integers(0, 64, 3001))[::-1],
             "odd": rng.integers(0, 64, 64 * 3 + 1), "one": np.array([17])}
    for kind, keys in cases.items():
        run = _single(cl, keys.astype(np.uint32), kind != "sorted", (0, 63))
        assert run.extra["single_pass"] or kind == "zipf", kind   # Zipf's bin 1 may outgrow its region
    run = _single(cl, rng.integers(0, 5, 4001).astype(np.uint32), True, (0, 4))   # 5 values over 3 cards
    assert run.extra["single_pass"] and sum(bool(c) for c in run.output.counts) == 3
    big = np.uint64(2**40)
    run = _single(cl, big + rng.integers(0, 64, 3001).astype(np.uint64), True, (2**40, 2**40 + 63))
    assert run.extra["single_pass"]
    skewed = rng.integers(0, 64, 3001).astype(np.uint32)
    skewed[:700] = 5   # 700 of card 0's keys in one bin: past its region of 4 KiB (512 pairs)
    for keys, cap, spills in ((np.full(2000, 9, np.uint32), None, True), (skewed, None, True), (skewed, 2000, False)):
        run = _single(cl, keys, True, (0, 63), bin_capacity=cap)
        assert run.extra["spilled"] == spills and run.extra["single_pass"] != spills
        assert (run.output.segments is None) == spills


def test_sort_moved_by_cards_faults(scatter_card: Path) -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": 3, "card": str(scatter_card), "seed": 9,
                       "faults": {"per": 0.02, "drop": 0.02}, "link_faults": [{"link": 2, "down": [[2000, 30000]]}]})
    _moved_by_cards(_check(cl, _inputs("random", 2003, np.uint32), counting="card"))
    assert cl.stats()["corrupted"] > 0
    _check64(cl, _inputs64("random", 1501, seed=5))
    _check64(cl, _inputs64("random", 1201, seed=6), with_payloads=True)


def test_failed_put_fails_the_sort_with_its_code(scatter_card: Path) -> None:
    """A link held down past every retry: a card's put, issued by its sequencer, times out;
    the sort fails with the engine's code, the phase and the card, not a wrong result or a hang."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "card": str(scatter_card),
                       "link_faults": [{"link": 0, "down": [[0, 1e12]]}]})
    with pytest.raises(rdma.RDMAError, match=r"range exchange: card \d's sequencer failed in its puts") as e:
        sort.sort(cl, _inputs("random", 1003, np.uint32), counting="card")
    assert e.value.name == "TIMEOUT"


def test_layouts_and_uint64_on_scatter_cards(scatter_card: Path) -> None:
    """Payloads move on the cards as (key, payload) pairs: a spread in pairs sorts there
    and gathers back (uint64 keys with payloads as 16-byte elements); payloads in their own
    region sort on the host ("auto"), and asking for the cards says why not."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "card": str(scatter_card)})
    keys, pays = _inputs("random", 501, np.uint32), np.arange(501, dtype=np.uint32)
    run = sort.sort_spread(cl, sort.spread(cl, keys, pays, pairs=True))
    assert run.extra["moved_by"] == "cards" and run.output.pairs
    got = sort.gather(cl, run.output)
    order = np.argsort(keys, kind="stable")
    assert np.array_equal(got[0], keys[order]) and np.array_equal(got[1], pays[order])
    run = sort.sort_spread(cl, sort.spread(cl, keys, pays))
    assert run.phase("local sort").where == "host"
    assert _check(cl, _inputs("zipf", 501, np.uint64)).extra["moved_by"] == "cards"
    assert _check(cl, _inputs("zipf", 501, np.uint64), with_payloads=False).extra["moved_by"] == "cards"
    keys64 = _inputs("random", 333, np.uint64)
    run = sort.sort_spread(cl, sort.spread(cl, keys64, pays[:333], pairs=True))
    assert run.extra["moved_by"] == "cards" and run.output.pairs
    got, order = sort.gather(cl, run.output), np.argsort(keys64, kind="stable")
    assert np.array_equal(got[0], keys64[order]) and np.array_equal(got[1], pays[:333][order])
    run = sort.sort_spread(cl, sort.spread(cl, keys64, pays[:333]))
    assert run.phase("local sort").where == "host"
    with pytest.raises(SpgenError, match="moves payloads interleaved with their keys"):
        sort.sort_spread(cl, sort.spread(cl, keys, pays), counting="card")
    with pytest.raises(SpgenError, match="moves payloads interleaved with their keys"):
        sort.sort_spread(cl, sort.spread(cl, keys64, pays[:333]), counting="card")
    with pytest.raises(SpgenError, match="pairs sort on cards with the scatter writer only"):
        sort.sort_spread(cl, sort.spread(cl, keys, pays, pairs=True), counting="host")
    with pytest.raises(SpgenError, match="pairs are keys with their payloads"):
        sort.spread(cl, keys, pairs=True)


@pytest.mark.slow
def test_sort_moved_by_eight_cards_torus(scatter_card: Path) -> None:
    cl = rdma.cluster({"topology": "torus", "dims": [2, 4], "card": str(scatter_card),
                       "faults": {"per": 1e-3, "drop": 1e-3}})
    for kind in KINDS:
        for n in (2999, 8):
            _check(cl, _inputs(kind, n, np.uint32), with_payloads=n == 8 or kind == "zipf", counting="card")
    assert cl.stats()["corrupted"] + cl.stats()["dropped"] > 0


@pytest.mark.slow
def test_uint64_moved_by_eight_cards_torus(scatter_card: Path) -> None:
    """uint64 keys on 8 cards (2 x 4 torus) under link faults, every pass on the writers,
    with payloads (16-byte elements) for some."""
    cl = rdma.cluster({"topology": "torus", "dims": [2, 4], "card": str(scatter_card),
                       "faults": {"per": 1e-3, "drop": 1e-3}})
    for kind in ("random", "top", "across", "equal", "sorted", "reverse", "zipf"):
        for n in (2999, 8):
            _check64(cl, _inputs64(kind, n), with_payloads=n == 8 or kind in ("random", "equal"))
    assert cl.stats()["corrupted"] + cl.stats()["dropped"] > 0


@pytest.mark.slow
def test_known_key_range_eight_cards_torus(scatter_card: Path) -> None:
    """OPTWEB's 64 key values with their range known, on 8 cards (2 x 4 torus) under link
    faults: one writer pass (the grouping into bins of fixed capacity), every key straight
    to its place, equal to numpy's."""
    cl = rdma.cluster({"topology": "torus", "dims": [2, 4], "card": str(scatter_card),
                       "faults": {"per": 1e-3, "drop": 1e-3}})
    rng = np.random.default_rng(8)
    for n, pays in ((4001, True), (13, False)):
        run = _check(cl, rng.integers(0, 64, n).astype(np.uint32), with_payloads=pays, counting="card",
                     key_range=(0, 63))
        assert run.extra["card_passes"] == 1 and run.extra["binned"] and run.local_passes == 0
        run = _single(cl, rng.integers(0, 64, n * 4).astype(np.uint32), pays, (0, 63))
        assert run.extra["single_pass"]
    assert cl.stats()["corrupted"] + cl.stats()["dropped"] > 0


def test_bench_on_scatter_cards(scatter_card: Path, tmp_path: Path) -> None:
    """`spgen bench sort --rtl` on such cards: the keys moved by the cards, the model with
    the writer's passes (A) and its key per cycle (W) beside the measurement."""
    import json

    out = tmp_path / "sort.json"
    assert main(["bench", "sort", "--cards", "2", "--keys", "1500", "--reps", "1", "--rtl", str(scatter_card),
                 "--json", str(out), "--no-progress"]) == 0
    (r,) = json.loads(out.read_text())["runs"]
    assert r["correct"] and r["moved_by"] == "cards" and r["fused"]
    # range, group (counting the first digit by destination), 3 digits and the network scatter
    assert r["model"]["A"] == 6 and r["model"]["W_bytes"] == 64 and r["digit_bits"] == 11
    assert r["phases"]["local counting"]["where"] == "card" and r["phases"]["prefix sums"]["where"] == "host"
    assert 0 < r["gbps"] < r["model_gbps"]
    # several sizes, per-card use of memory and links, and the figures at a larger size
    assert main(["bench", "sort", "--cards", "2", "--keys", "1024,2048", "--reps", "1", "--rtl", str(scatter_card),
                 "--extrapolate", "65536", "--known-range", "--key-values", "64", "--json", str(out),
                 "--no-progress"]) == 0
    rows = json.loads(out.read_text())["runs"]
    assert [(r["keys_per_card"], bool(r.get("extrapolated"))) for r in rows] == [
        (1024, False), (2048, False), (65536, True)]
    for r in rows:
        assert r["known_range"] and "range" not in r["phases"] and r["model"]["A"] == 2   # group, scatter
        assert len(r["per_card"]) == 2 and all(0 < p["ddr_passes"] <= 1 for p in r["per_card"])
        assert r["host_over_cards"] > 1
    measured = rows[1]["per_card"][0]
    # the grouping pass, and the load of its bins' capacities (256 words) before it
    assert measured["ddr_read"] == 4 * 2048 + 4 * 256 and measured["ddr_write"] == 4 * 2048
    big = rows[2]
    assert big["sim_s"] > rows[1]["sim_s"] and big["host_over_cards"] < rows[1]["host_over_cards"]
    assert big["phases"]["scatter"]["seconds"] >= 4 * 65536 / big["engine_gbps"] / 1e9
    floor = max(4 * 65536 / big["engine_gbps"], 4 * 65536 / 2 / big["model"]["B_gbps"]) / 1e9
    assert big["scatter_floor"] == (big["phases"]["scatter"]["seconds"] == pytest.approx(floor))
    # uint64 keys with payloads: 16-byte elements, twice a key's bytes in every pass
    assert main(["bench", "sort", "--cards", "2", "--keys", "700", "--reps", "1", "--rtl", str(scatter_card),
                 "--dtype", "u64", "--payloads", "--json", str(out), "--no-progress"]) == 0
    (r,) = json.loads(out.read_text())["runs"]
    assert r["correct"] and r["moved_by"] == "cards" and r["model"]["A"] == 2 * (r["card_passes"] + 1)
    assert all(p["ddr_read"] % 16 == 0 and p["ddr_read"] >= 2 * 16 * 700 for p in r["per_card"])
    # OPTWEB's single pass: one pass over cards and links, A = 1
    assert main(["bench", "sort", "--cards", "2", "--keys", "3000", "--reps", "1", "--rtl", str(scatter_card),
                 "--known-range", "--key-values", "64", "--single-pass", "--json", str(out), "--no-progress"]) == 0
    (r,) = json.loads(out.read_text())["runs"]
    assert r["correct"] and r["single_pass"] and r["model"]["A"] == 1 and "single pass" in r["phases"]
    assert all(0 < p["links_scatter"] <= 1 for p in r["per_card"])
    assert all(0 < p["stage_engine_reads"] < 1 and 0 <= p["stage_writer_waits"] < 1 for p in r["per_card"])
