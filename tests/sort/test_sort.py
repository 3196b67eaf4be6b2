"""The distributed counting sort (spgen.sort, docs/sort.md): results equal numpy's stable
sort, payloads follow their keys, on the C++ network model and on RTL cards, with faults."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sort_cases import KINDS, _check, _inputs
from spgen import SpgenError, sort
from spgen.cli import main
from spgen.runtime import rdma

pytestmark = pytest.mark.xdist_group("sort")


@pytest.mark.parametrize("cards", [2, 4])
@pytest.mark.parametrize("kind", KINDS)
def test_model_uint32(cards: int, kind: str) -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": cards})
    for n in (1, 7, 1001, 4099):  # sizes that are multiples of nothing (and fewer keys than cards)
        _check(cl, _inputs(kind, n, np.uint32))


@pytest.mark.parametrize("cards", [2, 4])
@pytest.mark.parametrize("kind", ["random", "zipf", "equal", "reverse"])
def test_model_uint64_payloads(cards: int, kind: str) -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": cards})
    _check(cl, _inputs(kind, 3001, np.uint64))


def test_phases_and_balance() -> None:
    """Every phase is recorded where it ran; uniform keys end up evenly on the cards; the
    scatter moves every key and payload exactly once."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 4})
    run = _check(cl, _inputs("random", 20000, np.uint32))
    names = [p.name for p in run.phases]
    assert names == ["range (local)", "range exchange", "histogram", "count exchange", "prefix sums",
                     "group by card", "scatter", "local sort"]
    assert {p.where for p in run.phases if "exchange" in p.name or p.name == "scatter"} == {"network"}
    scatter = run.phase("scatter")
    assert scatter.bytes_moved == 20000 * 8 and scatter.cycles > 0
    assert run.imbalance < 1.1 and run.local_passes == 4


def test_progress_names_each_phase_as_it_ends() -> None:
    """The callback runs between the phases (from sort.hpp's sort_spread, the sequence the
    C++ sort runs): it sees every phase in order, and what it raises ends the sort."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2})
    seen: list[str] = []
    run = sort.sort(cl, _inputs("random", 999, np.uint32), progress=seen.append)
    assert seen == [p.name for p in run.phases]

    class Stop(Exception):
        pass

    def stop(name: str) -> None:
        if name == "count exchange":
            raise Stop(name)

    with pytest.raises(Stop, match="count exchange"):
        sort.sort(cl, _inputs("random", 999, np.uint32), progress=stop)


@pytest.mark.parametrize("cards", [2, 4])
def test_few_key_values_split_evenly(cards: int) -> None:
    """OPTWEB's case, 64 key values (and all keys equal): every bin is one value, so bins
    are split between cards, each card gets n/N keys, in order on arrival (no local pass)."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": cards})
    rng = np.random.default_rng(2)
    for keys in (rng.integers(1000, 1064, 10007).astype(np.uint32), np.full(999, 3, np.uint32),
                 rng.integers(2**40, 2**40 + 64, 3001, dtype=np.uint64)):
        run = _check(cl, keys)
        assert run.shift == 0 and run.local_passes == 0
        assert max(run.output.counts) - min(run.output.counts) <= 1


def test_model_eight_cards_quick() -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": 8})
    _check(cl, _inputs("random", 2053, np.uint32))


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_model_eight_cards(kind: str) -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": 8, "faults": {"per": 1e-3, "drop": 1e-3}})
    for n in (3, 9999, 100003):
        _check(cl, _inputs(kind, n, np.uint32))
    _check(cl, _inputs(kind, 30011, np.uint64))


def test_model_faults() -> None:
    """Corrupted and lost packets and a link down while keys cross it: the link layer
    replays, the sort is still exact."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 4, "seed": 3,
                       "faults": {"per": 0.02, "drop": 0.01},
                       "link_faults": [{"link": 0, "down": [[0, 20000]]}]})
    _check(cl, _inputs("random", 20011, np.uint32))
    st = cl.stats()
    assert st["replays"] > 0 and st["packets_corrupted"] > 0 and st["packets_dropped"] > 0


def test_dead_link_fails_cleanly() -> None:
    """A link that never comes back: the sort ends with the engine's TIMEOUT, no hang."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "params": {"op_timeout": 100000},
                       "link_faults": [{"link": 0, "down": [[0, 1e12]]}]})
    with pytest.raises(rdma.RDMAError) as e:
        sort.sort(cl, _inputs("random", 100, np.uint32))
    assert e.value.code == 3


def test_absent_cards() -> None:
    cl = rdma.cluster({"topology": "mesh", "dims": [3], "absent": [2]})
    run = _check(cl, _inputs("random", 999, np.uint32))
    assert run.output.cards == [0, 1]


def test_empty_and_no_payloads() -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2})
    run = sort.sort(cl, np.zeros(0, np.uint32))
    assert run.keys.size == 0 and run.payloads is None
    _check(cl, _inputs("random", 333, np.uint64), with_payloads=False)


@pytest.mark.parametrize("digit_bits", [4, 11, 16])
def test_digit_widths(digit_bits: int) -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2})
    _check(cl, _inputs("random", 1500, np.uint32), digit_bits=digit_bits, partition_bits=3)


@pytest.mark.parametrize("exact", [False, True])
def test_plan_tiles_every_receive_buffer(exact: bool) -> None:
    """sort.hpp's plan, through its binding: every card's send buffer (its keys in bin
    order) is cut into pieces that together fill each destination's receive buffer once,
    in source order, in consecutive bins per destination; exact cuts give every card n/N."""
    rng = np.random.default_rng(11)
    hists = rng.integers(0, 50, (5, 64), dtype=np.uint32)
    hists[:, 10:20] = 0
    hists[2] = 0      # a card without keys
    n, cards = int(hists.sum()), hists.shape[0]
    plans = [sort._native().sort_plan(hists, i, exact) for i in range(cards)]
    filled = [np.zeros(p[1], np.int64) for p in plans]
    for i, (pieces, _, mine) in enumerate(plans):
        assert sum(k for *_, k in pieces) == hists[i].sum()
        assert [a for a, *_ in pieces] == list(np.cumsum([0] + [k for *_, k in pieces])[:-1])
        for _, d, there, k in pieces:
            filled[d][there:there + k] += 1
        if exact:
            assert mine is None
        elif plans[i][1]:   # the bins it receives keys of are its own
            assert mine[0] <= mine[1]
    assert all((f == 1).all() for f in filled)
    assert sum(p[1] for p in plans) == n
    if exact:
        assert [p[1] for p in plans] == [n * (d + 1) // cards - n * d // cards for d in range(cards)]


def test_plan_gives_each_bin_the_card_of_its_middle() -> None:
    """Without exact cuts a bin goes to the card whose share holds its middle key:
    min((2 * keys before it + its keys) * N // 2n, N - 1), with counts near 2^32 so that
    the products need 64 bits; each card receives its bins' keys."""
    rng = np.random.default_rng(12)
    for cards, bins in [(8, 256), (3, 40), (1, 7)]:
        hists = rng.integers(0, 2**32 // bins, (cards, bins), dtype=np.uint64).astype(np.uint32)
        hists[:, rng.integers(0, bins, bins // 4)] = 0
        tot = hists.astype(object).sum(axis=0)
        n = sum(tot)
        before = np.concatenate([[0], np.cumsum(tot)[:-1]])
        owner = [min((2 * int(b) + int(t)) * cards // max(2 * n, 1), cards - 1) for b, t in zip(before, tot)]
        for c in range(cards):
            _, received, mine = sort._native().sort_plan(hists, c, False)
            own = [b for b in range(bins) if owner[b] == c]
            assert mine == ((own[0], own[-1]) if own else None)
            assert received == sum(int(t) for b, t in enumerate(tot) if owner[b] == c)


def test_errors(monkeypatch) -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2})
    cases = [((np.arange(10, dtype=np.int32),), "keys of type int32 are not supported: uint32 or uint64"),
             ((np.ones(10, np.float32),), "keys of type float32"),
             ((np.zeros((2, 3), np.uint32),), "one-dimensional numpy array, got ndarray of 2 dimensions"),
             (([1, 2, 3],), "one-dimensional numpy array, got list"),
             ((np.zeros(4, np.uint32), np.zeros(3, np.uint32)), "payloads must be a uint32 array of the keys' shape"),
             ((np.zeros(4, np.uint64), np.zeros(4, np.uint64)), "got uint64 of shape (4,)")]
    for args, msg in cases:
        with pytest.raises(SpgenError, match=None) as e:
            sort.sort(cl, *args)
        assert msg in str(e.value)
    marker = np.arange(8, dtype=np.uint32) + 77
    cl[0].write(sort.LAYOUT.keys, marker)
    with pytest.raises(SpgenError, match="partition_bits must be 1..16"):
        sort.sort(cl, np.zeros(4, np.uint32), partition_bits=0)
    with pytest.raises(SpgenError, match="the network model has no cards to run cores on"):
        sort.sort(cl, np.zeros(4, np.uint32), counting="card")
    assert cl[0].read(sort.LAYOUT.keys, 32) == marker.tobytes()  # refused before writing anything
    with pytest.raises(SpgenError, match="digit_bits must be"):
        sort.sort(cl, np.zeros(4, np.uint32), digit_bits=7)
    monkeypatch.setattr(sort, "LAYOUT", sort.Layout(region=4096))
    with pytest.raises(SpgenError, match="769 uint32 keys are more than this layout takes \\(768"):
        sort.sort(cl, np.zeros(769, np.uint32))


# ---- RTL cards: complete simulated cards with the RDMA block, driven through their CSRs ----
@pytest.fixture(scope="module")
def link_card(tmp_path_factory) -> Path:
    """A loop-back card with 4 link ports (a full mesh of up to 5 cards)."""
    out = tmp_path_factory.mktemp("cards") / "link4"
    assert main(["build", "--loopback", "--links", "4", "--op-timeout", "100000", "-o", str(out)]) == 0
    return out


@pytest.mark.parametrize("cards", [2, 4])
def test_rtl_cards(link_card: Path, cards: int) -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": cards, "card": str(link_card)})
    for kind in ("random", "zipf", "reverse"):
        _check(cl, _inputs(kind, 1003, np.uint32))
    _check(cl, _inputs("random", 777, np.uint64))


def test_rtl_cards_faults(link_card: Path) -> None:
    """Bit flips and drops on every cable and a cable down while the keys cross it."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": 4, "card": str(link_card), "seed": 5,
                       "faults": {"per": 0.02, "drop": 0.01},
                       "link_faults": [{"link": 1, "down": [[5000, 40000]]}]})
    run = _check(cl, _inputs("random", 4001, np.uint32))
    st = cl.stats()
    assert st["corrupted"] > 0 and st["dropped"] > 0
    assert run.phase("scatter").cycles > 0


@pytest.mark.slow
def test_rtl_eight_cards_torus(link_card: Path) -> None:
    """Eight RTL cards: a full mesh needs 7 ports, a card has 4, so a 2x4 torus whose
    routers carry the all-to-all over several hops."""
    cl = rdma.cluster({"topology": "torus", "dims": [2, 4], "card": str(link_card),
                       "faults": {"per": 1e-3, "drop": 1e-3}})
    for kind in KINDS:
        _check(cl, _inputs(kind, 2999, np.uint32))
    _check(cl, _inputs("random", 1999, np.uint64))


@pytest.fixture(scope="module")
def rank_card(tmp_path_factory) -> Path:
    """A card with the counting core (cores/sort/sort_rank.spd) and 4 link ports."""
    out = tmp_path_factory.mktemp("cards") / "rank4"
    core = Path(__file__).resolve().parents[2] / "cores" / "sort" / "sort_rank.spd"
    assert main(["build", str(core), "--links", "4", "--op-timeout", "100000", "-o", str(out)]) == 0
    return out


def test_rank_core_simulated() -> None:
    """The counting core in Verilator with random stalls: every key's rank within its bin,
    and the bin keys appended after the keys give the histogram."""
    import spgen

    d = spgen.compile(str(Path(__file__).resolve().parents[2] / "cores" / "sort" / "sort_rank.spd"))
    rng = np.random.default_rng(4)
    lo, sh = 0x1234567, 16
    keys = rng.integers(lo, lo + (200 << sh), 2500, dtype=np.uint32)
    keys[100:300] = keys[99]  # a long run of one bin: back-to-back updates of one counter
    bin_keys = (np.arange(256, dtype=np.uint64) << np.uint64(sh)) + np.uint64(lo)
    x = np.zeros(keys.size + 256, dtype=d.input_dtype())
    x["k"] = np.concatenate([keys, (bin_keys & 0xFFFFFFFF).astype(np.uint32)])
    y = d.simulate(x, regs={"lo": lo, "sh": sh}, stall_seed=5)["r"]
    bins = (keys - np.uint32(lo)) >> np.uint32(sh)
    seen = np.zeros(256, np.int64)
    want = np.zeros(keys.size, np.int64)
    for i, b in enumerate(bins):
        want[i], seen[b] = seen[b], seen[b] + 1
    assert np.array_equal(y[:keys.size], want)
    assert np.array_equal(y[keys.size:], np.bincount(bins, minlength=256))


@pytest.mark.parametrize("cards", [2, 4])
def test_rtl_counting_on_cards(rank_card: Path, cards: int) -> None:
    """Histogram and local counting passes on the cards' cascades (the core run through
    the shell's DMA, twice per card and digit: its counters start afresh every run)."""
    cl = rdma.cluster({"topology": "fullmesh", "cards": cards, "card": str(rank_card)})
    for kind in ("random", "zipf", "equal", "sorted", "few"):
        run = _check(cl, _inputs(kind, 1201, np.uint32), counting="card")
        assert run.phase("histogram").where == "card" and run.phase("histogram").cycles > 1201 // cards
        assert run.phase("local counting").where == "card"
    with pytest.raises(SpgenError, match="the cards take uint32 keys, these are uint64"):
        sort.sort(cl, _inputs("random", 10, np.uint64), counting="card")
    assert sort.sort(cl, _inputs("random", 99, np.uint64)).phase("histogram").where == "host"  # auto


def test_rtl_counting_on_cards_faults(rank_card: Path) -> None:
    cl = rdma.cluster({"topology": "fullmesh", "cards": 3, "card": str(rank_card), "seed": 9,
                       "faults": {"per": 0.02, "drop": 0.02}, "link_faults": [{"link": 2, "down": [[2000, 30000]]}]})
    _check(cl, _inputs("random", 2003, np.uint32), counting="card")
    assert cl.stats()["corrupted"] > 0


def test_counting_refusals(link_card: Path) -> None:
    with pytest.raises(SpgenError, match="the network model has no cards to run cores on"):
        sort.sort(rdma.cluster({"topology": "fullmesh", "cards": 2}), np.zeros(4, np.uint32), counting="card")
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "card": str(link_card)})
    with pytest.raises(SpgenError, match="the cards carry neither the scatter writer .* nor the counting core"):
        sort.sort(cl, np.zeros(4, np.uint32), counting="card")
    with pytest.raises(SpgenError, match="counting must be 'auto', 'card' or 'host'"):
        sort.sort(cl, np.zeros(4, np.uint32), counting="gpu")


def test_bench_quick(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sort.json"
    assert main(["bench", "sort", "--cards", "2,4", "--keys", "4096", "--reps", "1", "--json", str(out),
                 "--plot", str(tmp_path / "sort.png"), "--no-progress"]) == 0
    doc = json.loads(out.read_text())
    assert [r["cards"] for r in doc["runs"]] == [2, 4]
    for r in doc["runs"]:
        assert r["correct"] and r["gbps"] > 0 and r["model_gbps"] > 0
        assert set(r["phases"]) >= {"histogram", "count exchange", "scatter", "local sort"}
    assert doc["cpu"]["numpy_sort_gbps"] > 0 and doc["optweb"]["gbps"] == 243
    assert (tmp_path / "sort.png").stat().st_size > 0
    assert "model" in capsys.readouterr().out


def test_docs_example_runs_as_written() -> None:
    """docs/sort.md "Using it": the first Python example (the network model) as written."""
    import re
    import subprocess
    import sys

    text = (Path(__file__).resolve().parents[2] / "docs" / "sort.md").read_text()
    block = re.findall(r"```python\n(.*?)```", text[text.index("## Using it"):], re.DOTALL)[0]
    out = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "scatter" in out.stdout and "network" in out.stdout
