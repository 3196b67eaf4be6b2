"""LBM on a cluster of RTL cards: cards of a cluster as ordinary cards on the cluster clock,
RDMA into a card while its cascade runs, and slabs with halo exchange (spgen.lbm.run_cards)
bit-exact with the emulator on the whole grid."""
from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from cpp_programs import build_program
from spgen import SpgenError, lbm
from spgen.runtime import rdma

pytestmark = pytest.mark.xdist_group("lbm_cards")
HERE = Path(__file__).parent
WIDTH, DEPTH = 32, 2
REGS = {"omega": 1.3, "uw": (0.07, 0.01)}


@pytest.fixture(scope="module")
def build() -> Path:
    """The LBM core, W = 32, cascade of 2, 2 link ports, fast core model (cached by content)."""
    from spgen.commands._bench_lbm import build_card

    return build_card(lbm.CORE_PATH, WIDTH, DEPTH, "fast", links=2)


@pytest.fixture(scope="module")
def core():
    return lbm.compile_core(WIDTH)


def _grid(height: int, seed: int = 1):
    """A cavity with every cell kind: walls, the lid, fluid, an obstacle, a moving-wall cell
    inside, a wall cell with high attr bits set (carried through untouched); perturbed."""
    attr = lbm.cavity(WIDTH, height)
    attr[height // 2, WIDTH // 3] = lbm.WALL
    attr[1, WIDTH - 3] = lbm.MOVING_WALL
    attr[height // 3, 5] = lbm.WALL | 0x100
    rng = np.random.default_rng(seed)
    f = (lbm.initial_f(attr) * (1 + 0.02 * rng.standard_normal((9,) + attr.shape))).astype(np.float32)
    return f, attr


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a.view(np.uint32), b.view(np.uint32)))


def test_rdma_into_card_while_cascade_runs_c_api(build, core, tmp_path) -> None:
    """Through the C API only: card 0 of a two-card cluster, opened as an ordinary card, runs
    its cascade while card 1 puts into its memory B and gets from its memory A (the grid the
    cores read). The put (256 KiB, longer than the run at 40 Gb/s) is still in flight when the run returns; the cascade's output after
    3 x 2 steps equals the emulator bit for bit, the get read the grid after 2 steps, the
    put's bytes are right, and the run's input stall rate is reported."""
    exe = build_program(HERE / "cluster_card_lbm.c", tmp_path)
    f, attr = _grid(64)
    lbm.to_records(f, attr).tofile(tmp_path / "in.rec")
    spec = tmp_path / "cluster.json"
    spec.write_text(json.dumps({"topology": "mesh", "dims": [2], "card": str(build)}))
    r = subprocess.run([str(exe), str(spec), str(tmp_path / "in.rec"), str(tmp_path / "o"), "262144"],
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    print(r.stdout)
    assert "put still in flight: yes" in r.stdout and "bytes right" in r.stdout
    stall = float(r.stdout.split("stall rate ")[1].split(",")[0])
    assert 0.0 <= stall < 0.01
    out = np.fromfile(tmp_path / "o.out", dtype=lbm.RECORD_DTYPE)
    assert _same_bits(lbm.from_records(out, WIDTH)[0], lbm.run_emulator(core, f, attr, steps=3 * DEPTH, **REGS))
    got = np.fromfile(tmp_path / "o.get", dtype=lbm.RECORD_DTYPE)
    assert _same_bits(lbm.from_records(got, WIDTH)[0], lbm.run_emulator(core, f, attr, steps=DEPTH, **REGS))
    assert np.array_equal(got["attr"], lbm.to_records(f, attr)["attr"])


def test_cluster_card_python_one_clock(build, core) -> None:
    """Python: cl[i].open() is a spgen.runtime card on the cluster clock -- its DMA times
    and the cluster's cycles agree; a put into it while it runs lands, the run is exact."""
    cl = rdma.cluster({"topology": "mesh", "dims": [2], "card": str(build)})
    card = cl[0].open()
    assert card.info["n_cores"] == DEPTH and card.core_param("W") == WIDTH
    f, attr = _grid(48)
    rec = lbm.to_records(f, attr)
    for name, v in (("omega", 1.3), ("uw_x", 0.07), ("uw_y", 0.01)):
        card.write_reg(name, v)
    buf = card.alloc(rec.nbytes)
    buf[:] = rec.view(np.uint8)
    c0 = cl.now
    ns = card.dma(0, buf, rec.nbytes, "H2F")
    # the upload took ns of the card's time; the cluster moved at least as many cycles
    assert cl.now - c0 >= ns * cl.sim.clock_mhz / 1000
    payload = bytes(range(256)) * 128
    cl[1].write(0x100000, payload)
    t = cl[1].put_async(0, 0x100000, (1 << 32) + (1 << 24), len(payload))
    run_from = cl.now
    res = card.run(0, 1 << 32, len(rec))
    run_to = cl.now
    t.wait()
    _, _, issued, done = t.status()
    assert issued <= run_to and done > run_from          # the put and the run overlapped
    assert cl[0].read((1 << 32) + (1 << 24), len(payload)) == payload
    assert res.in_moved_cycles == len(rec) and 0.0 <= res.stall_rate < 0.01
    card.dma(buf, 1 << 32, rec.nbytes, "F2H")
    got = lbm.from_records(buf.view(lbm.RECORD_DTYPE).copy(), WIDTH)[0]
    assert _same_bits(got, lbm.run_emulator(core, f, attr, steps=3 * DEPTH, **REGS))
    with pytest.raises(SpgenError, match="not a card of this cluster"):
        rdma.ClusterCard(cl, 5).open()
    card.close()


@pytest.mark.parametrize("cards,height,steps,faults", [
    (2, 24, 8, None),
    (4, 27, 10, None),        # slabs of 7, 7, 7, 6 rows
    (2, 20, 6, {"per": 2e-2, "drop": 1e-2}),
    (4, 26, 8, {"per": 1e-2, "drop": 5e-3}),
])
def test_slabs_bit_exact_with_emulator(build, core, cards, height, steps, faults) -> None:
    """run_cards(mode="slabs") equals Design.emulate(steps=N) on the whole grid bit for bit,
    attr words included, with and without link faults (retransmission hides them)."""
    f, attr = _grid(height, seed=cards * 7 + height)
    r = lbm.run_cards(build, f, attr, steps, cards=cards, mode="slabs", faults=faults, **REGS)
    assert _same_bits(r.f, lbm.run_emulator(core, f, attr, steps=steps, **REGS))
    got_f, rho, (ux, _uy) = r
    assert got_f is r.f and np.isnan(rho[attr != lbm.FLUID]).all() and np.isfinite(ux[attr == lbm.FLUID]).all()
    assert (r.mode, r.cards, r.depth, r.steps) == ("slabs", cards, DEPTH, steps)
    assert len(r.stall_rate) == cards and all(0.0 <= s < 0.01 for s in r.stall_rate)
    assert len(r.transfers) == 2 * (cards - 1) * (steps // DEPTH - 1)
    assert r.link_bytes == len(r.transfers) * DEPTH * WIDTH * 40
    assert r.cycles > 0 and 0 < r.link_utilisation < 1
    if faults:
        stats = r.details["link_stats"]
        assert stats["corrupted"] + stats["dropped"] > 0, stats


def test_slabs_one_card_equals_emulator(build, core) -> None:
    f, attr = _grid(12)
    r = lbm.run_cards(build, f, attr, 4, cards=1, **REGS)
    assert _same_bits(r.f, lbm.run_emulator(core, f, attr, steps=4, **REGS)) and not r.transfers


def test_slab_layout_and_errors(build) -> None:
    assert [(s.lo, s.hi, s.first, s.last) for s in lbm.slab_layout(27, 4, 2)] == \
        [(0, 7, 0, 9), (7, 14, 5, 16), (14, 21, 12, 23), (21, 27, 19, 27)]
    f, attr = _grid(12)
    with pytest.raises(SpgenError, match="cannot be cut into 8 slabs of at least 2 rows"):
        lbm.run_cards(build, f, attr, 4, cards=8)
    with pytest.raises(SpgenError, match="steps must be a multiple of 2, at least 4, got 5"):
        lbm.run_cards(build, f, attr, 5, cards=2)
    with pytest.raises(SpgenError, match="at least 4, got 2"):
        lbm.run_cards(build, f, attr, 2, cards=2)
    with pytest.raises(SpgenError, match="cards must be an integer 1..64"):
        lbm.run_cards(build, f, attr, 4, cards=0)
    with pytest.raises(SpgenError, match="mode must be one of slabs, pipeline"):
        lbm.run_cards(build, f, attr, 4, mode="tiles")
    with pytest.raises(SpgenError, match="not a spgen build folder"):
        lbm.run_cards(build.parent / "nothing", f, attr, 4)
    wide_f, wide_attr = lbm.initial_f(lbm.cavity(16, 12)), lbm.cavity(16, 12)
    with pytest.raises(SpgenError, match="built for grids 32 cells wide"):
        lbm.run_cards(build, wide_f, wide_attr, 4, cards=2)


def test_pipeline_mode_dispatch(build, monkeypatch) -> None:
    """mode="pipeline" calls spgen.lbm._cards_pipeline.run_pipeline with the slabs runner's
    arguments; without that module, a clear error."""
    f, attr = _grid(12)
    monkeypatch.setitem(sys.modules, "spgen.lbm._cards_pipeline", None)   # as if it were missing
    with pytest.raises(SpgenError, match="pipeline mode is not in this build"):
        lbm.run_cards(build, f, attr, 4, mode="pipeline")
    seen = {}
    fake = types.ModuleType("spgen.lbm._cards_pipeline")
    fake.run_pipeline = lambda *a, **kw: seen.update(args=a, kwargs=kw) or "result"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spgen.lbm._cards_pipeline", fake)
    assert lbm.run_cards(build, f, attr, 4, cards=3, mode="pipeline", link_gbps=100) == "result"
    assert seen["args"][0] == build and seen["args"][3] == 4
    assert seen["kwargs"] == {"cards": 3, "omega": 1.0, "uw": (0.0, 0.0), "link_gbps": 100, "faults": None,
                              "seed": 1, "progress": None}


@pytest.mark.slow
def test_slabs_eight_cards(build, core) -> None:
    f, attr = _grid(44, seed=8)
    r = lbm.run_cards(build, f, attr, 8, cards=8, faults={"per": 1e-2}, **REGS)
    assert _same_bits(r.f, lbm.run_emulator(core, f, attr, steps=8, **REGS))


def test_cpp_run_slabs_equals_emulator(build, core, tmp_path) -> None:
    """afushell::lbm::run_slabs (afushell/lbm_card.hpp) on 4 cards equals the emulator bit for
    bit and reports its host time, the same cycles on every run (its threads declare their
    waits for each other to the host time model); a step count the cascade cannot run and a
    grid too short for 4 slabs are refused."""
    exe = build_program(HERE / "lbm_slabs_cpp.cpp", tmp_path)
    spec = tmp_path / "cluster.json"
    spec.write_text(json.dumps({"topology": "mesh", "dims": [4], "card": str(build), "faults": {"per": 1e-2}}))
    f, attr = _grid(27, seed=3)
    np.save(tmp_path / "in.npy", lbm.to_records(f, attr))

    def run(steps: int, src: str = "in.npy"):
        return subprocess.run([str(exe), str(spec), str(tmp_path / src), str(WIDTH), str(steps),
                               str(tmp_path / "out.npy")], capture_output=True, text=True, timeout=300, check=False)

    r = run(10)
    assert r.returncode == 0 and r.stdout.startswith("ok 24 halo puts"), r.stdout + r.stderr
    got = lbm.from_records(np.load(tmp_path / "out.npy"), WIDTH)[0]
    assert _same_bits(got, lbm.run_emulator(core, f, attr, steps=10, **REGS))
    cycles = int(r.stdout.split(", ")[1].split()[0])
    assert cycles > 0
    assert [run(10).stdout for _ in range(2)] == [r.stdout] * 2
    r = run(5)
    assert r.returncode == 1 and "steps must be a multiple of 2, at least 4, got 5" in r.stderr
    small_f, small_attr = _grid(7)
    np.save(tmp_path / "small.npy", lbm.to_records(small_f, small_attr))
    r = run(4, "small.npy")
    assert r.returncode == 1 and "cannot be cut into 4 slabs of at least 2 rows" in r.stderr


def test_bench_lbm_cards_cli(build, tmp_path, capsys) -> None:
    """`spgen bench lbm --cards`: table, JSON and plot; every run bit-exact, one card at 100 %
    efficiency, the model beside each figure; bad --cards refused with a message."""
    from spgen.cli import main

    js, png = tmp_path / "b.json", tmp_path / "b.png"
    assert main(["bench", "lbm", "--cards", "1,2", "--cascade", str(DEPTH), "--grid", "32x24", "--passes", "3",
                 "--scaling", "strong,weak", "--json", str(js), "--plot", str(png), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Mcell-st/s" in out and "bit-exact" in out and "MISMATCH" not in out
    rows = json.loads(js.read_text())["results"]
    assert [(r["scaling"], r["cards"], r["grid"][1]) for r in rows] == \
        [("strong", 1, 24), ("strong", 2, 24), ("weak", 1, 24), ("weak", 2, 48)]
    assert all(r["verified"] and r["stall_rate_max"] == 0.0 for r in rows)
    assert rows[0]["efficiency"] == 1.0 and rows[1]["model_mcell_steps_per_s"] > 0 and png.stat().st_size > 0
    assert main(["bench", "lbm", "--cards", "0,2", "--no-progress"]) != 0
    assert "--cards '0,2': values must be 1..64" in capsys.readouterr().err


def test_slabs_mpi_ranks_identical_to_one_process(build, core) -> None:
    """run_cards(ranks=K): 4 cards with link faults in 1 and in 2 MPI processes give the same
    grid bit for bit (equal to the emulator), the same cycles, the same halo puts with their
    cycles and the same link counters; a rank count the cards cannot take, and MPI ranks in
    pipeline mode, are refused."""
    f, attr = _grid(26, seed=5)
    faults = {"per": 1e-2, "drop": 5e-3}
    one = lbm.run_cards(build, f, attr, 8, cards=4, faults=faults, ranks=1, **REGS)
    two = lbm.run_cards(build, f, attr, 8, cards=4, faults=faults, ranks=2, **REGS)
    assert _same_bits(one.f, lbm.run_emulator(core, f, attr, steps=8, **REGS)) and _same_bits(two.f, one.f)
    assert one.cycles == two.cycles > 0
    assert one.transfers == two.transfers and len(one.transfers) == 2 * 3 * (8 // DEPTH - 1)
    assert one.details["link_stats"] == two.details["link_stats"]
    assert one.details["link_stats"]["dropped"] + one.details["link_stats"]["corrupted"] > 0
    assert one.details["pass_cycles"] == two.details["pass_cycles"]
    assert one.stall_rate == two.stall_rate and all(0.0 <= s < 0.01 for s in one.stall_rate)
    assert (two.details["ranks"], one.details["ranks"]) == (2, 1)
    with pytest.raises(SpgenError, match=r"ranks must be an integer 1..cards \(4\)"):
        lbm.run_cards(build, f, attr, 8, cards=4, ranks=5)
    with pytest.raises(SpgenError, match="MPI ranks run mode \"slabs\" only"):
        lbm.run_cards(build, f, attr, 8, cards=2, mode="pipeline", ranks=2)


def test_bench_lbm_cards_mpi_ranks(build, tmp_path, capsys) -> None:
    """`spgen bench lbm --cards 1,2 --ranks 2`: each run in min(2, cards) processes, bit-exact."""
    from spgen.cli import main

    js = tmp_path / "b.json"
    assert main(["bench", "lbm", "--cards", "1,2", "--cascade", str(DEPTH), "--grid", "32x24", "--passes", "3",
                 "--scaling", "strong", "--ranks", "2", "--json", str(js), "--no-progress"]) == 0
    rows = json.loads(js.read_text())["results"]
    assert [(r["cards"], r["ranks"]) for r in rows] == [(1, 1), (2, 2)]
    assert all(r["verified"] for r in rows) and rows[1]["model_mcell_steps_per_s"] > 0
    assert main(["bench", "lbm", "--cards", "2", "--mode", "pipeline", "--ranks", "2", "--no-progress"]) != 0
    assert "MPI ranks run --mode slabs only" in capsys.readouterr().err


def test_pipeline_model_link_rate() -> None:
    """The pipeline model's link bound: records at one per cycle and 200 MHz need 8 GB/s; a
    link carries min(line, port) x 255/258 of record words (15/18 behind a word-wide port)."""
    from spgen.lbm._cards_bench import pipeline_model_cycles
    from spgen.lbm._cards_pipeline import link_records_per_cycle

    assert link_records_per_cycle(64, 1000) == pytest.approx(255 / 258)          # 8 GB/s line
    assert link_records_per_cycle(40, 102.4) == pytest.approx(5 / 8 * 255 / 258)  # 5 GB/s, 512-bit port
    assert link_records_per_cycle(100, 1000) > 1.0                               # keeps a cascade busy
    assert link_records_per_cycle(100, 6.4) == pytest.approx(0.8 / 8 * 15 / 18)  # 32-bit port at 200 MHz
    assert pipeline_model_cycles(205, 64, 2, 1000, 0.5) == 2 * (205 * 64 * 2 + 1000)


def test_bench_lbm_pipeline_models_the_host_feed(build, tmp_path) -> None:
    """`spgen bench lbm --mode pipeline` over 100 Gb/s links: the model's stall is the PCIe
    feed's 1 - p (the link is not the bound), the first card stalls no more than that, the
    one-card row is its own model, every run bit-exact."""
    from spgen.cli import main

    js = tmp_path / "p.json"
    assert main(["bench", "lbm", "--cards", "1,2", "--mode", "pipeline", "--cascade", str(DEPTH), "--grid",
                 "32x48", "--passes", "2", "--link-gbps", "100", "--scaling", "strong", "--json", str(js),
                 "--no-progress"]) == 0
    rows = json.loads(js.read_text())["results"]
    assert [r["cards"] for r in rows] == [1, 2] and all(r["verified"] for r in rows)
    feed = rows[1]["host_feed_records_per_cycle"]
    assert 0.88 < feed < 0.89
    assert all(r["model_stall_rate"] == pytest.approx(1 - feed) for r in rows)
    assert rows[0]["model_mcell_steps_per_s"] == pytest.approx(rows[0]["mcell_steps_per_s"])
    assert 0 < rows[1]["stall_rate_in"][0] <= 1 - feed
    # the bench's column of the stall once records flow: card 1 without its wait for card 0's fill
    assert rows[1]["in_first_cycles"][0] < rows[1]["in_first_cycles"][1]
    assert rows[1]["stall_rate_flowing"][1] < rows[1]["stall_rate_in"][1]


def test_pipeline_model_host_feed() -> None:
    """The first card's PCIe feed: Gen3 x8's 7.877 GB/s in 256-byte completions with 30 bytes
    more each on the wire is 7.05 GB/s of records, 0.881 of the cascade's 8 GB/s; the default
    parameters are the simulator's own, and a link twice as fast is no longer the bound."""
    from spgen.lbm._cards_pipeline import host_feed_records_per_cycle, sim_params
    from spgen.runtime._build import load_extension

    params = sim_params(types.SimpleNamespace(sim=load_extension().RtlCluster))
    feed = host_feed_records_per_cycle(params)
    assert feed == pytest.approx(7.877e9 * 256 / 286 / 8e9)
    assert 0.88 < feed < 0.89
    assert host_feed_records_per_cycle({**params, "pcie_gbytes_per_s": 2 * 7.877}) > 1.0
    assert host_feed_records_per_cycle({**params, "pcie_mps": 128}) < feed   # more headers


def test_pipeline_stall_once_records_flow(build, core) -> None:
    """A pipeline of 2 cards over 100 Gb/s links: card 1's first core waits for card 0's
    cascade to fill before its first record (CORE_IN_FIRST_CYCLES), so its stall once
    records flow is well below its stall from its start; card 0's first record comes at
    once. Once records flow, card 1 stalls no more than the first card's PCIe feed allows
    (its records come at card 0's rate), and both figures are the counters' own."""
    f, attr = _grid(96, seed=11)
    r = lbm.run_cards(build, f, attr, 2 * DEPTH, cards=2, mode="pipeline", link_gbps=100, **REGS)
    assert _same_bits(r.f, lbm.run_emulator(core, f, attr, steps=2 * DEPTH, **REGS))
    cards, start, flowing = r.details["cards"], r.stall_rate, r.details["flowing_stall_rates"]
    first = [c["in_first_cycles"] for c in cards]
    assert all(c["in_moved_cycles"] == f.shape[1] * f.shape[2] for c in cards)
    for c, s, fl in zip(cards, start, flowing):
        total = c["in_total_cycles"]
        assert s == pytest.approx(1 - c["in_moved_cycles"] / total)
        assert fl == pytest.approx(1 - c["in_moved_cycles"] / (total - c["in_first_cycles"]))
    assert first[0] < 16 < 2 * WIDTH < first[1]
    assert flowing[1] < start[1] - 0.03
    assert flowing[1] <= r.details["host_feed_stall_rate"] + 0.01
