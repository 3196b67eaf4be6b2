"""Deterministic host timing (docs/runtime.md, "Host time"): a program's host calls enter the
simulated card at cycles that follow from the program and the host time model, so the same
program gives the same cycles and figures on an idle machine and on one whose every CPU is
busy with other work."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from spgen import SpgenError, lbm, runtime
from spgen.cli import main

pytestmark = pytest.mark.xdist_group("runtime")
ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def loaded_machine() -> Iterator[None]:
    """Every CPU busy with a spinning process while the block runs."""
    spin = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        yield
    finally:
        for p in spin:
            p.kill()
            p.wait()


def dma_sweep(tmp: Path) -> list[dict]:
    """`spgen bench dma --quick`: every simulated figure of every record (not wall time)."""
    out = tmp / "dma.json"
    assert main(["bench", "dma", "--quick", "--no-progress", "--json", str(out)]) == 0
    return [{k: v for k, v in r.items() if "wall" not in k} for r in json.loads(out.read_text())["records"]]


def host_sequence(_: Path) -> list[int]:
    """Synchronous and overlapping transfers, polls, a bounded wait and register reads."""
    got = []
    with runtime.open("loopback") as card:
        src, dst = card.alloc(1 << 20), card.alloc(1 << 20)
        src[:] = np.arange(1 << 20, dtype=np.uint32).view(np.uint8)[: 1 << 20]
        for n in (64, 4096, 256 << 10):
            got.append(card.dma(0x1000, src, n, "H2F"))
            got.append(card.dma(dst, 0x1000, n, "F2H"))
        reqs = [card.dma_async(0x100000 * (k + 1), src[k << 16:], 64 << 10, "H2F") for k in range(4)]
        got.append(int(reqs[0].wait(timeout_ns=500)))      # a bounded wait that runs out
        while not reqs[1].done:                               # polls cost host time
            pass
        for r in reqs:
            r.wait()
            got.append(r.elapsed_ns)
        got += [card.read_reg_bits("CYCLES"), card.read_reg_bits("TX_BUSY_CYCLES"),
                card.read_reg_bits("RX_BUSY_CYCLES")]
    return got


def lbm_counters(_: Path) -> list:
    """An LBM cascade-2 card (W = 32): every run's counters (prime, run, stall cycles)."""
    from spgen.commands._bench_lbm import build_card
    from spgen.lbm._grid import perturbed_cavity

    build = build_card(ROOT / "cores" / "lbm" / "lbm_d2q9.spd", 32, 2)
    f, attr = perturbed_cavity(32, 12, 3)
    _, runs = lbm.run_card(build, f, attr, 8, omega=1.2, uw=(0.05, 0.0))
    return [(r.total_cycles, r.moved_cycles, r.in_total_cycles, r.in_moved_cycles, r.prime_cycles,
             r.elapsed_ns) for r in runs]


def bench_lbm(tmp: Path) -> list:
    """`spgen bench lbm` on one cascade-2 card: every simulated figure of every size (the
    armed runs' read-ahead `prime_cycles` among them), not wall time."""
    out = tmp / "lbm.json"
    assert main(["bench", "lbm", "--cascade", "2", "--sizes", "10240", "130560", "524800", "--no-progress",
                 "--json", str(out)]) == 0
    return [{k: v for k, v in r.items() if "wall" not in k} for r in json.loads(out.read_text())["results"]]


def _lbm_cards_build() -> Path:
    from spgen.commands._bench_lbm import build_card

    return build_card(lbm.CORE_PATH, 32, 2, "fast", links=2)


def _cards_figures(r) -> list:
    """Every simulated figure of a run_cards result (not wall time)."""
    return [r.cycles, r.stall_rate, r.link_bytes, [(t["from"], t["to"], t["after_pass"], t["cycles"])
                                                  for t in r.transfers]]


def slabs(ranks: int | None) -> Callable[[Path], list]:
    """`spgen.lbm.run_cards` in slabs mode on 4 cards (one process, or `ranks` MPI ranks)."""
    def work(_: Path) -> list:
        from spgen.lbm._grid import perturbed_cavity

        f, attr = perturbed_cavity(32, 64, 3)
        kw = {"ranks": ranks} if ranks else {}
        r = lbm.run_cards(_lbm_cards_build(), f, attr, 8, cards=4, mode="slabs", omega=1.2, uw=(0.05, 0.0), **kw)
        return _cards_figures(r) + [r.details["pass_cycles"], r.f.tobytes()]
    return work


def slabs_cpp_threads(tmp: Path) -> list:
    """The same slabs from C++ (`afushell::lbm::run_slabs`: a `std::thread` per card, their
    waits for each other declared through `afuShellSimHostTime`): its cycles and the grid."""
    from cpp_programs import build_program
    from spgen.lbm._grid import perturbed_cavity

    f, attr = perturbed_cavity(32, 64, 3)
    exe = build_program(ROOT / "tests" / "lbm" / "lbm_slabs_cpp.cpp", tmp)
    spec = tmp / "cluster.json"
    spec.write_text(json.dumps({"topology": "mesh", "dims": [4], "card": str(_lbm_cards_build())}))
    np.save(tmp / "in.npy", lbm.to_records(f, attr))
    r = subprocess.run([str(exe), str(spec), str(tmp / "in.npy"), "32", "8", str(tmp / "out.npy")],
                       capture_output=True, text=True, timeout=300, check=True)
    return [r.stdout, np.load(tmp / "out.npy").tobytes()]


def pipeline2(_: Path) -> list:
    """`spgen.lbm.run_cards` in pipeline mode on 2 cards."""
    from spgen.lbm._grid import perturbed_cavity

    f, attr = perturbed_cavity(32, 24, 3)
    r = lbm.run_cards(_lbm_cards_build(), f, attr, 8, cards=2, mode="pipeline", omega=1.2, uw=(0.05, 0.0))
    return _cards_figures(r) + [r.f.tobytes()]


def _link_cluster(cards: int, topology: str = "mesh", sort_scatter: bool = False):
    from spgen._afu_build import link_card
    from spgen.runtime import rdma

    card = str(link_card(sort_scatter=sort_scatter).parents[1])
    spec = {"topology": topology, "cards": cards, "card": card} if topology == "fullmesh" else \
        {"topology": topology, "dims": [cards], "card": card}
    return rdma.cluster(spec)


def rdma_latency(_: Path) -> list:
    """16 B puts and gets over 1..3 hops on a line of 4 RTL cards, card 0 opened as an
    ordinary card (its clock thread runs): host and card cycles of each."""
    cl = _link_cluster(4)
    got = []
    with cl[0].open() as card:
        buf = card.alloc(4096)
        got.append(card.dma(0x1000, buf, 4096, "H2F"))
        for hop in (1, 2, 3):
            for t in (cl[0].put_async(hop, 0x1000, 0x2000, 16), cl[0].get_async(hop, 0x3000, 0x2000, 16)):
                got.append((t.wait(), t.card_cycles))
    return got


def sort4(_: Path) -> list:
    """A distributed sort of 4,000 keys on 4 RTL cards (a full mesh)."""
    from spgen import sort

    keys = np.random.default_rng(3).integers(0, 2**32, 4000, dtype=np.uint32)
    run = sort.sort(_link_cluster(4, "fullmesh"), keys)
    assert np.array_equal(run.keys, np.sort(keys))
    return [(p.name, p.seconds) for p in run.phases if p.where == "network"] + [list(run.output.counts)]


def sort4_scatter(_: Path) -> list:
    """The same keys on 4 cards whose scatter writers count and move them: the cards are open
    as ordinary cards (their clock runs in a thread of the cluster's) while the host issues
    the exchanges."""
    from spgen import sort

    keys = np.random.default_rng(3).integers(0, 2**32, 4000, dtype=np.uint32)
    run = sort.sort(_link_cluster(4, "fullmesh", sort_scatter=True), keys)
    assert np.array_equal(run.keys, np.sort(keys))
    return [(p.name, p.where, p.cycles, p.seconds) for p in run.phases if p.where != "host"] + \
        [list(run.output.counts)]


WORKLOADS: dict[str, Callable[[Path], object]] = {
    "dma_sweep": dma_sweep, "host_sequence": host_sequence, "lbm_cascade2": lbm_counters, "bench_lbm": bench_lbm,
    "slabs4": slabs(None), "slabs4_mpi2": slabs(2), "slabs4_cpp_threads": slabs_cpp_threads, "pipeline2": pipeline2,
    "rdma_latency": rdma_latency, "sort4": sort4, "sort4_scatter": sort4_scatter,
}


def _repeat(name: str, times: int, tmp: Path) -> None:
    work = WORKLOADS[name]
    idle = work(tmp)
    with loaded_machine():
        loaded = [work(tmp) for _ in range(times)]
    for k, got in enumerate(loaded):
        assert got == idle, f"{name}: run {k + 1} on the loaded machine differs from the idle run"


@pytest.mark.parametrize("name", ["dma_sweep", "host_sequence", "bench_lbm"])
def test_single_card_figures_repeat_under_load(name, loopback_lib, tmp_path) -> None:
    _repeat(name, 3, tmp_path)


def test_realtime_is_an_option(loopback_lib) -> None:
    """realtime=1 keeps the earlier behaviour (host calls land where the clock thread is)."""
    with runtime.open("loopback", params={"realtime": 1}) as card:
        buf = card.alloc(4096)
        assert card.dma(0, buf, 4096, "H2F") > 0
        assert card.sim_host_time() is None            # no host time to hand over
    with runtime.open("loopback") as card:
        assert card.sim_params()["realtime"] == 0
        t = card.sim_host_time()
        assert card.sim_host_time("sync", t + 500) == t + 500
        with pytest.raises(SpgenError, match="unknown operation 'later'"):
            card.sim_host_time("later")


def test_cluster_figures_repeat_under_load(tmp_path) -> None:
    """Threads on the cards of a cluster (slabs on 4 cards: a thread per card, halo puts
    between them, `afushell::lbm::run_slabs`; a sort on cards open beside the cluster's puts)
    give the same figures on an idle and on a loaded machine."""
    _repeat("slabs4_cpp_threads", 2, tmp_path)
    _repeat("sort4_scatter", 2, tmp_path)


def test_slabs_one_schedule_in_any_rank_count(tmp_path) -> None:
    """`run_cards` in slabs mode follows one host schedule: in one process, in 1 MPI rank and
    in 2, every figure (cycles, stall rates, link bytes, every put with its cycles, every
    pass's cycles, the grid) is the same, and again the same on a loaded machine."""
    one = slabs(None)(tmp_path)
    assert one == slabs(2)(tmp_path)
    assert one == slabs(1)(tmp_path)
    _repeat("slabs4_mpi2", 2, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_figures_repeat_ten_times_under_load(name, loopback_lib, tmp_path) -> None:
    _repeat(name, 10, tmp_path)
