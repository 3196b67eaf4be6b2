"""Cores across cards: cascades of `spgen build --links` cards chained over links (the
stream endpoints inside afu_rdma_top, STREAM_* CSRs), host DMA at both ends; outputs
against the emulator bit for bit, under random back-pressure and link faults."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import spgen
from spgen import lbm
from spgen.cli import main
from spgen.lbm._cards_pipeline import run_pipeline
from spgen.runtime import rdma

HERE = Path(__file__).resolve().parent
REC10 = HERE.parent / "shell" / "data" / "rec10.spd"  # 10-word records, looks back and ahead, a Reg


@pytest.fixture(scope="module")
def rec10_card(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rec10_links")
    assert main(["build", str(REC10), "--cascade", "2", "--links", "2", "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def lbm_card(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lbm_links")
    assert main(["build", str(lbm.CORE_PATH), "-P", "W=16", "--cascade", "2", "--links", "2",
                 "--core-model", "fast", "-o", str(out)]) == 0
    return out


def _cluster(tmp_path: Path, card: Path, cards: int, **extra) -> rdma.Cluster:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"topology": "ring", "dims": [cards], "card": str(card), **extra}))
    return rdma.cluster(path)


def _records(design, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.zeros(n, dtype=design.input_dtype())
    for name in x.dtype.names:
        x[name] = rng.standard_normal(n).astype(np.float32) if x.dtype[name].kind == "f" else rng.integers(0, 1 << 20, n)
    return x


def _bits(a: np.ndarray) -> np.ndarray:
    return np.stack([np.asarray(a[n]).view(np.uint32) for n in a.dtype.names])


@pytest.mark.parametrize("faults,back_pressure", [
    (None, (0, 0)),
    ({"per": 0.02, "drop": 0.02, "down": [[3000, 9000]]}, (37, 400)),
])
def test_spd_core_on_card_a_feeds_core_on_card_b(rec10_card, tmp_path, faults, back_pressure) -> None:
    """Card 0's cascade of 2 compiled cores streams over a link into card 1's: 2 passes are
    8 steps, the emulator's `steps=8`; with flips, drops and a link down for 6 us, and the
    host feeding both ends in random chunks with random gaps, the same bits."""
    d = spgen.compile(REC10)
    cl = _cluster(tmp_path, rec10_card, 2, seed=5, **({"faults": faults} if faults else {}))
    for c in (0, 1):
        cl[c].write_reg("k", 0.75)
    x = _records(d, 700, seed=2)
    y, run = cl.pipeline([0, 1], x, passes=2, max_chunk=back_pressure[0], max_gap=back_pressure[1], seed=9)
    ref = d.emulate(x, regs={"k": 0.75}, steps=8)
    assert np.array_equal(_bits(y), _bits(ref))
    # every record crossed the link once per pass, as words; the first cores' counters saw them all
    assert run.cards[0]["stream_tx_words"] == run.cards[1]["stream_rx_words"] == 2 * 700 * 10
    assert all(c["in_moved_cycles"] == 2 * 700 for c in run.cards)
    assert 0 <= min(run.stall_rates) and max(run.stall_rates) < 1
    # card 1's first core waits for card 0's cascade (and the link) before its first record
    first = [c["in_first_cycles"] for c in run.cards]
    assert first[1] > first[0] and all(f < c["in_total_cycles"] for f, c in zip(first, run.cards))
    assert all(0 <= f <= s for f, s in zip(run.flowing_stall_rates, run.stall_rates))
    assert 0 < run.link_utilisation[0] <= 1 and run.payload_utilisation[0] < run.link_utilisation[0]
    if faults:
        s = cl.stats()
        assert s["dropped"] > 0 and s["corrupted"] > 0  # retransmission hid them


def test_pipeline_streams_at_the_line(rec10_card, tmp_path) -> None:
    """The line-wide stream endpoints: card 1's cascade waits for its input only as long as a
    40 Gb/s line makes it (1 - 255/258 x 40/64 = 38.2 % of the time at one 10-word record a
    cycle; 91.7 % at the word-wide endpoints' 6.4 Gb/s), and a 100 Gb/s line is not the bound
    (the first card's host feed is); bit for bit either way."""
    d = spgen.compile(REC10)
    x = _records(d, 6000, seed=3)
    ref = d.emulate(x, regs={"k": 0.75}, steps=4)
    for gbps, low, high in ((40, 0.36, 0.45), (100, 0.0, 0.2)):
        cl = _cluster(tmp_path, rec10_card, 2, line_rate_gbps=gbps)
        for c in (0, 1):
            cl[c].write_reg("k", 0.75)
        y, run = cl.pipeline([0, 1], x, passes=1)
        assert np.array_equal(_bits(y), _bits(ref))
        assert low <= run.stall_rates[1] <= high, (gbps, run.stall_rates)


@pytest.mark.parametrize("pcie_gbytes_per_s", [7.877, 15.754])
def test_first_card_stalls_at_its_pcie_feed(rec10_card, tmp_path, monkeypatch, pcie_gbytes_per_s) -> None:
    """Card 0's cascade waits only as long as its PCIe link to host memory makes it: over
    Gen3 x8 its TX DMA brings 0.881 records a cycle (docs/lbm.md), so after the 64 beats it
    reads ahead before the run it stalls 1 - R / ((40 R - 4096) / 35.25 B a cycle); over a link
    twice as fast (Gen3 x16) it does not stall: no DMA, FIFO or descriptor limit behind it.
    Card 1, once its first record came, takes the records at card 0's rate: over Gen3 x16
    it does not stall either, over Gen3 x8 it stalls what card 0's feed allows; from its
    start it also counts its wait for card 0's cascade to fill."""
    from spgen.lbm._cards_pipeline import host_feed_records_per_cycle, sim_params

    monkeypatch.setenv("SPGEN_SIM_PARAMS", f"pcie_gbytes_per_s={pcie_gbytes_per_s}")
    d = spgen.compile(REC10)
    n = 6000
    x = _records(d, n, seed=4)
    cl = _cluster(tmp_path, rec10_card, 2, line_rate_gbps=100)
    for c in (0, 1):
        cl[c].write_reg("k", 0.75)
    y, run = cl.pipeline([0, 1], x, passes=1)
    assert np.array_equal(_bits(y), _bits(d.emulate(x, regs={"k": 0.75}, steps=4)))
    feed = host_feed_records_per_cycle(sim_params(cl))
    cycles = max(n, (40 * n - 64 * 64) / (40 * feed))    # the read-ahead is there at the start
    assert run.stall_rates[0] == pytest.approx(1 - n / cycles, abs=0.005), (feed, run.stall_rates)
    flowing = run.flowing_stall_rates
    assert flowing[0] == pytest.approx(run.stall_rates[0], abs=1e-3)   # card 0's first record comes at once
    assert flowing[1] < run.stall_rates[1] - 0.01
    assert flowing[1] == pytest.approx(1 - n / cycles, abs=0.01), (flowing, run.stall_rates)
    if pcie_gbytes_per_s > 8:
        assert run.stall_rates[0] < 0.005 and flowing[1] < 0.005


def test_pipeline_refuses_bad_chains_and_records(rec10_card, tmp_path) -> None:
    d = spgen.compile(REC10)
    cl = _cluster(tmp_path, rec10_card, 2)
    x = _records(d, 10, seed=1)
    with pytest.raises(spgen.SpgenError, match="cards of this cluster"):
        cl.pipeline([0, 2], x)
    with pytest.raises(rdma.RDMAError, match="twice in the chain"):
        cl.pipeline([0, 0], x)
    with pytest.raises(spgen.SpgenError, match="cards of this cluster"):
        cl.pipeline([], x)
    with pytest.raises(rdma.RDMAError, match="records of 40 B, the pipeline was given 8 B"):
        cl.pipeline([0, 1], np.zeros(5, dtype=[("a", "<f4"), ("b", "<u4")]))
    with pytest.raises(spgen.SpgenError, match="whole records"):
        cl.pipeline([0, 1], b"\0" * 44)
    with pytest.raises(spgen.SpgenError, match="no Reg 'omega'"):
        cl[0].write_reg("omega", 1.0)
    model = rdma.cluster({"topology": "ring", "dims": [2]})
    with pytest.raises(spgen.SpgenError, match="RTL cards"):
        model.pipeline([0, 1], x)


@pytest.mark.parametrize("cards", [2, 4])
def test_lbm_cascade_across_cards_bit_exact(lbm_card, cards) -> None:
    """A cavity (walls, moving lid, fluid) through `cards` cards of 2 LBM cores: 2 passes
    are 2 x cards x 2 steps, bit for bit the emulator's; on 2 cards also with link faults
    and random back-pressure."""
    w, h = 16, 10
    attr = lbm.cavity(w, h)
    f = lbm.initial_f(attr)
    steps = 2 * cards * 2
    d = lbm.compile_core(w)
    ref = lbm.run_emulator(d, f, attr, steps=steps, omega=1.3, uw=(0.08, 0.0))
    r = lbm.run_cards(lbm_card, f, attr, steps, cards=cards, mode="pipeline", omega=1.3, uw=(0.08, 0.0), seed=3)
    assert np.array_equal(r.f.view(np.uint32), ref.view(np.uint32))
    assert r.mode == "pipeline" and r.depth == 2 and r.details["passes"] == 2 and r.cycles > 0
    assert len(r.stall_rate) == cards and all(0 <= s < 1 for s in r.stall_rate)
    assert r.link_bytes == 2 * (cards - 1) * attr.size * 40   # every record over every link, each pass
    if cards == 2:   # link faults and random chunks at both ends
        r = run_pipeline(lbm_card, f, attr, steps, cards=2, omega=1.3, uw=(0.08, 0.0), seed=3,
                         faults={"per": 0.01, "drop": 0.01}, back_pressure=(25, 300))
        assert np.array_equal(r.f.view(np.uint32), ref.view(np.uint32))
    with pytest.raises(spgen.SpgenError, match="positive multiple of"):
        lbm.run_cards(lbm_card, f, attr, steps + 1, cards=cards, mode="pipeline")
    with pytest.raises(spgen.SpgenError, match="built for grids 16 cells wide"):
        lbm.run_cards(lbm_card, lbm.initial_f(lbm.cavity(8, 8)), lbm.cavity(8, 8), steps, cards=cards, mode="pipeline")


def test_lbm_one_card_pipeline_is_its_own_cascade(lbm_card) -> None:
    """A chain of one card: TX DMA -> cascade -> RX DMA, no link; C steps per pass."""
    attr = lbm.cavity(16, 6)
    f = lbm.initial_f(attr)
    r = lbm.run_cards(lbm_card, f, attr, 6, cards=1, mode="pipeline", omega=1.1)
    ref = lbm.run_emulator(lbm.compile_core(16), f, attr, steps=6, omega=1.1)
    assert np.array_equal(r.f.view(np.uint32), ref.view(np.uint32)) and r.link_bytes == 0


def test_docs_pipeline_example_runs_as_written(tmp_path, monkeypatch) -> None:
    """docs/rdma.md "A pipeline of cascades across cards": the build command and the Python
    example, run from the repository's root as written (the build into a temporary folder)."""
    import re
    import shlex
    import subprocess
    import sys

    root = HERE.parents[1]
    text = (root / "docs" / "rdma.md").read_text()
    section = text[text.index("### A pipeline of cascades across cards"):text.index("**Rate.**")]
    (_, sh), (_, py) = re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)
    build = shlex.split(sh)
    out = tmp_path / "build" / "rec10"
    assert build[:2] == ["spgen", "build"] and build[-1] == "build/rec10"
    monkeypatch.chdir(root)
    assert main([*build[1:-1], str(out)]) == 0
    r = subprocess.run([sys.executable, "-c", py.replace('"build/rec10"', repr(str(out)))], cwd=root,
                       capture_output=True, text=True, timeout=900, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.search(r"^\[[0-9.e-]+, [0-9.e-]+\] \[[0-9.e-]+\] \d+$", r.stdout, re.MULTILINE), r.stdout


def test_c_program_chain_of_three_cards(rec10_card, tmp_path) -> None:
    """The C API (a program linked only against libafushell): a chain 2 -> 0 -> 1 on a ring
    of 3 cards, the Reg set through each card's CSR, random chunks and gaps at both ends,
    flips and drops on every cable: 3 cards x 2 cores = the emulator's 6 steps, bit for bit."""
    import struct
    import subprocess

    from rdma_cards import compile_c_program

    exe = compile_c_program(HERE / "rdma_pipeline_run.c", tmp_path / "rdma_pipeline_run")
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"topology": "ring", "dims": [3], "card": str(rec10_card), "seed": 2,
                                "faults": {"per": 0.01, "drop": 0.01}}))
    d = spgen.compile(REC10)
    x = _records(d, 500, seed=4)
    (tmp_path / "in.bin").write_bytes(x.tobytes())
    k_bits = struct.unpack("<I", struct.pack("<f", -1.25))[0]
    r = subprocess.run([str(exe), str(path), str(tmp_path / "in.bin"), str(tmp_path / "out.bin"), "40", "1", "0",
                        str(k_bits), "2", "0", "1"], capture_output=True, text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    y = np.frombuffer((tmp_path / "out.bin").read_bytes(), dtype=x.dtype)
    assert np.array_equal(_bits(y), _bits(d.emulate(x, regs={"k": -1.25}, steps=6)))
    lines = r.stdout.splitlines()
    counts = [list(map(int, ln.split(":")[1].split())) for ln in lines[:3]]
    assert [c[1] for c in counts] == [500] * 3                  # every first core took every record
    assert [c[2] for c in counts] == [5000, 5000, 0]            # words into the links: cards 2 and 0
    assert [c[3] for c in counts] == [0, 5000, 5000]            # words out of them: cards 0 and 1
    assert counts[0][4] > 5000 and counts[1][4] > 5000          # the cables carried them, with headers
    # before its first record, each card waits for the cascades before it: longer down the chain
    assert counts[0][5] < counts[1][5] < counts[2][5] < counts[2][0]
    assert lines[3].startswith("same card twice: ") and lines[-1].startswith("ok ")


def test_mpi_ranks_pipeline_of_eight_cards_identical(rec10_card) -> None:
    """`rdma-mpi-stream` on a ring of 8 RTL cards with link faults (a link down for 2 us too): a stream through all 8 cards'
    cascades (16 cores) and a put across the ranks, as 1 and 4 MPI ranks, each rank the host
    of its own cards: the same stdout (every cycle, counter and checksum), and the stream's
    output is the emulator's, bit for bit."""
    from spgen.runtime._mpi_stream import fnv1a64, run_mpi_stream, stream_input

    cluster = {"topology": "ring", "dims": [8], "card": str(rec10_card), "seed": 5,
               "faults": {"per": 1e-3, "drop": 1e-3}, "link_faults": [{"link": 3, "down": [[2000, 4000]]}]}
    steps = ["stream:0-1-2-3-4-5-6-7:300", "put:1:6:4096"]
    runs = {ranks: run_mpi_stream(cluster, steps, ranks=ranks, timeout_s=600) for ranks in (1, 4)}
    assert runs[1]["stdout"] == runs[4]["stdout"]
    s, p = runs[1]["steps"]
    assert s["hops"] == [1] * 7 and s["stream_errors"] == 0 and s["dma_error"] == 0
    assert all(m == 300 for m in s["in_moved"])
    assert p["code"] == 0 and p["wrong_bytes"] == 0 and p["hops"] == 3
    d = spgen.compile(REC10)
    x = stream_input(2, 300 * 10).view(d.input_dtype())
    assert fnv1a64(np.ascontiguousarray(d.emulate(x, steps=16)).tobytes()) == s["output_fnv"]
    assert runs[4]["speed"]["all"]["ranks"] == 4


def test_bench_rdma_stream_rows(rec10_card) -> None:
    """`spgen bench rdma --stream CARD`'s rows: 10-word records over 1 and 3 hops of a ring of 6
    40 Gb/s cards, each beside puts over the same hops; the stream fills the line within the
    STREAM packets' overhead, as the node-level benchmark does (at least 90 % of the line)."""
    from spgen.commands._bench_rdma import CIRCUS
    from spgen.commands._bench_rdma_stream import stream_records, stream_table

    recs = stream_records(rdma, [rec10_card], True, CIRCUS)
    assert [(r["hops"], r["record_bytes"], r["line_gbps"]) for r in recs] == [(1, 40, 40.0), (3, 40, 40.0)]
    for r in recs:
        assert 0.9 <= r["stream_of_line"] <= 255 / 258 + 0.01, r
        assert 0.9 * 40 <= r["put_gbps"] <= 40, r
    assert "| 40 Gb/s | 40 B (0.62 beat) | 3 |" in stream_table(recs)
