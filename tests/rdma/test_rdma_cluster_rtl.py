"""A cluster of RTL cards: `spgen build --links N` cards (shell + RDMA block, each with its own
DDR and PCIe models) on one cluster clock, driven through their CSRs from C and Python."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from rdma_cards import build_link_card, compile_c_program
from spgen import SpgenError
from spgen.cli import main
from spgen.runtime import rdma

pytestmark = pytest.mark.xdist_group("rdma_cluster")
HERE = Path(__file__).parent
ROOT = HERE.parents[1]


@pytest.fixture(scope="module")
def link_card(tmp_path_factory) -> Path:
    return build_link_card(tmp_path_factory, 4)


@pytest.fixture(scope="module")
def check_program(tmp_path_factory) -> Path:
    """tests/rdma/rdma_cluster_check.c compiled and linked against the runtime library only."""
    return compile_c_program(HERE / "rdma_cluster_check.c", tmp_path_factory.mktemp("prog") / "rdma_cluster_check")


def _file(tmp_path: Path, spec: dict) -> Path:
    p = tmp_path / "cluster.json"
    p.write_text(json.dumps(spec))
    return p


def test_build_with_links_hardware_project(tmp_path, capsys) -> None:
    """The hardware project of a card with links: the RDMA RTL in every file list, afu_rdma_top
    as the top, the links exported; without --links nothing of it."""
    out = tmp_path / "b"
    assert main(["build", "--loopback", "--links", "2", "--link-gbps", "100", "--no-sim", "-o", str(out)]) == 0
    afu = json.loads((out / "hw" / "afu.json").read_text())["spgen"]
    assert (afu["top"], afu["links"], afu["link-gbps"]) == ("afu_rdma_top", 2, 100)
    files = (out / "afu_files.txt").read_text()
    assert "rtl/shell/rdma/rdma_engine.v" in files and "rtl/shell/rdma/afu/afu_rdma_top.v" in files
    assert "../rtl/shell/rdma/rdma_router.v" in (out / "hw" / "filelist.txt").read_text()
    tcl = (out / "hw" / "afu_top_hw.tcl").read_text()
    # a 100 Gb/s line: 1024-bit beats per port (32 words at 200 MHz), the PHY's ready per port
    assert "TOP_LEVEL afu_rdma_top" in tcl and "add_interface_port links link_out_data out_data Output 2048" in tcl
    assert "add_interface_port links link_out_ready out_ready Input 2" in tcl
    assert "add_parameter RDMA_LANES INTEGER {32}" in tcl
    assert "EXPORT_OF afu.links" in (out / "hw" / "afu_system.tcl").read_text()
    plain = tmp_path / "p"
    assert main(["build", "--loopback", "--no-sim", "-o", str(plain)]) == 0
    assert "rdma" not in (plain / "afu_files.txt").read_text()
    assert main(["build", "--loopback", "--links", "5", "--no-sim", "-o", str(tmp_path / "x")]) != 0
    assert "--links 5: must be 1..4" in capsys.readouterr().err


def test_c_program_torus_all_pairs_under_faults(link_card, check_program, tmp_path) -> None:
    """Through the C API on an 8-card 2-D torus of RTL cards, with a 1e-4 packet error rate on
    every link plus drops and link-down intervals: puts, gets and block-stride puts between
    every ordered pair, all at once, two rounds -- every byte right, nothing misplaced; then
    NO_ROUTE, REMOTE_RANGE, BAD_CARD, ALIGN at the initiator. Runs repeat to the cycle, the
    cards stepped on one thread or on three (SPGEN_SIM_THREADS)."""
    spec = {"topology": "torus", "dims": [2, 4], "card": str(link_card), "seed": 5,
            "faults": {"per": 1e-4, "drop": 2e-3},
            "link_faults": [{"link": 3, "down": [[5000, 60000]]}, {"link": 9, "down": [[30000, 90000]]}]}
    path = _file(tmp_path, spec)
    runs = [subprocess.run([str(check_program), str(path), "11", "2"], capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, SPGEN_SIM_THREADS=threads), check=False)
            for threads in ("1", "3")]
    for r in runs:
        assert r.returncode == 0, r.stderr[-3000:]
        assert r.stdout.startswith("ok 8 cards, 2 rounds") and "RTL cards" in r.stdout
    assert runs[0].stdout == runs[1].stdout  # same cycles


@pytest.mark.slow
def test_c_program_4x4_torus_all_to_all(link_card, check_program, tmp_path) -> None:
    """All-to-all on a 4x4 torus of RTL cards (16 cards, 4 links each) through the C API, with
    a 1e-4 packet error rate: puts, gets and block-stride transfers between all 240 ordered
    pairs at once, every byte right, nothing lost or duplicated."""
    spec = {"topology": "torus", "dims": [4, 4], "card": str(link_card), "seed": 9, "faults": {"per": 1e-4}}
    r = subprocess.run([str(check_program), str(_file(tmp_path, spec)), "3", "1"], capture_output=True,
                       text=True, timeout=3000, check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.startswith("ok 16 cards, 1 rounds")


def test_c_program_dma_and_rdma_one_result_type(link_card, tmp_path) -> None:
    """tests/rdma/rdma_dma_together.c: DMA into and out of two cards of a cluster and RDMA
    between them, every call checked as an afu_result; each refusal (a DMA count, a card
    outside the cluster, a remote range, an unknown handle, a data type, a memory range)
    comes back as its own afu_result with a message naming what was wrong."""
    exe = compile_c_program(HERE / "rdma_dma_together.c", tmp_path / "rdma_dma_together")
    r = subprocess.run([str(exe), str(_file(tmp_path, {"topology": "ring", "dims": [3], "card": str(link_card)}))],
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok: 4096 bytes H2F, put, get, F2H intact" in r.stdout
    lines = dict(line.split(": ", 1) for line in r.stdout.splitlines()[1:])
    assert lines["H2F of 6 bytes"].startswith("byte count not a multiple of 4 (0x102)")
    assert lines["put to card 99"].startswith("RDMA: no route to the destination card (0x201)")
    assert "card 99 is not a card of this cluster of 3" in lines["put from card 99"]
    assert lines["put past the end"].startswith("RDMA: remote range past the end of memory (0x202)")
    assert "no RDMA operation with handle 12345" in lines["wait on handle 12345"]
    assert "dtype must be AFU_REDUCE_U32 or AFU_REDUCE_F32, not 7" in lines["reduce of type 7"]
    assert "pass the end of its 8589934592-byte memory" in lines["write past memory"]


def test_python_same_api_rtl_and_model(link_card) -> None:
    """spgen.runtime.rdma.cluster opens RTL cards or the model from the same kind of file, with
    one API: the same operations give the same bytes and the same target events."""
    base = {"topology": "ring", "cards": 3, "seed": 2, "faults": {"per": 1e-3}}
    rtl, model = rdma.cluster(dict(base, card=str(link_card))), rdma.cluster(base)
    assert rtl.rtl and not model.rtl and len(rtl) == len(model) == 3
    data = bytes(range(256)) * 40
    for cl in (rtl, model):
        cl[0].write(0x1000, data)
        assert cl[0].put(2, 0x1000, 0x20000, len(data)) > 0
        t = cl[1].get_async(2, 0x40000, 0x20000, 4096)
        assert t.wait() > 0
        assert cl[0].put_strided(1, 0x1000, 0x8000, 12, 20, 64, 100) > 0
    for c in range(3):
        assert rtl[c].read(0, 0x50000) == model[c].read(0, 0x50000)
    strip = lambda ev: [e[:4] for e in ev]
    assert strip(rtl[2].events()) == strip(model[2].events()) == [(1, 0, 0x20000, len(data)), (4, 1, 0x20000, 4096)]
    with pytest.raises(rdma.RDMAError, match="REMOTE_RANGE"):
        rtl[0].put(1, 0x1000, (8 << 30) - 16, 64)
    with pytest.raises(SpgenError, match="no card 9"):
        rtl[9]


def test_dead_link_times_out_with_dump_naming_it(link_card) -> None:
    """A link held down past every retry: the put ends in TIMEOUT within the engine's bound and
    the error carries a dump of every card and link that names the stuck link."""
    spec = {"topology": "mesh", "dims": [3], "card": str(link_card),
            "link_faults": [{"link": 1, "down": [[0, 1e12]]}]}
    cl = rdma.cluster(spec)
    cl[1].write(0, b"\x07" * 64)
    t = cl[1].put_async(2, 0, 0, 64)
    with pytest.raises(rdma.RDMAError, match="TIMEOUT") as e:
        t.wait()
    assert "stuck at link 1 card 1 port 0 -> card 2 port 1 (down)" in str(e.value)
    assert "card 1: engine" in str(e.value)
    assert cl.now < 100000 + 100000  # the engine's timeout plus the driver's reads
    def failed() -> int:   # RDMA_STATUS.FAILED: operations that completed with a nonzero code
        return cl[1].read_csr("RDMA_STATUS") >> 16 & 0xFFFF
    assert failed() == 1
    cl[1].put(0, 0, 0x100, 64)  # the other link still works
    assert cl[0].read(0x100, 64) == b"\x07" * 64
    assert failed() == 1 and cl[1].read_csr("RDMA_STATUS") >> 32 == 2   # OPS_DONE: both, one failed


def test_cables_carry_the_line_rate(link_card) -> None:
    """A card built for a 40 Gb/s line (512-bit link ports) fills it: a 256 KiB put with bulk
    (1 KiB) packets moves at >= 93 % of the line on the card (CMD to completion interrupt),
    64-byte packets stay under their format's limit (64 of 72 bytes), and a line slower than
    the port holds a put to the line's rate (its PHY back-pressures the port); bytes intact."""
    gbps = {}
    for rate, packet in ((40, 0), (40, 64), (3.2, 0)):
        data = bytes(range(256)) * (1024 if rate == 40 else 128)  # 256 KiB; 32 KiB within the op timeout
        cl = rdma.cluster({"topology": "mesh", "dims": [2], "card": str(link_card), "line_rate_gbps": rate})
        cl.packet_bytes = packet
        cl[0].write(0x1000, data)
        t = cl[0].put_async(1, 0x1000, 0x100000, len(data))
        t.wait()
        assert cl[1].read(0x100000, len(data)) == data
        gbps[rate, packet] = len(data) * 8 / cl.ns(t.card_cycles)
    assert 0.93 * 40 <= gbps[40, 0] <= 40 * 1024 / 1032
    assert 0.8 * 40 * 64 / 72 <= gbps[40, 64] <= 40 * 64 / 72
    assert 0.9 * 3.2 * 1024 / 1032 <= gbps[3.2, 0] <= 3.2 * 1024 / 1032
    with pytest.raises(SpgenError, match="64..1024 bytes"):
        cl.packet_bytes = 100


def test_halfway_routes_split_by_parity(link_card) -> None:
    """Dimension-order routes on a 2 x 4 torus as the cluster programs them: the shorter way
    round, and halfway round the ring of 4 cards of even coordinate go up (port 2) and odd
    ones down (port 3), so the four cards of a ring sending halfway at once use four
    different links in each direction; a ring of 2 keeps one way (port 0). Every route
    reaches its card: a put from every card to the cards halfway round lands."""
    cl = rdma.cluster({"topology": "torus", "dims": [2, 4], "card": str(link_card)})
    route = {(c, t): cl[c].read_csr("RDMA_ROUTE", t) & 0xF for c in range(8) for t in range(8)}
    for x in range(2):
        for y in range(4):
            c = x + 2 * y
            assert route[c, x + 2 * ((y + 1) % 4)] == 2 and route[c, x + 2 * ((y + 3) % 4)] == 3
            assert route[c, x + 2 * ((y + 2) % 4)] == (2 if y % 2 == 0 else 3)
            assert route[c, (1 - x) + 2 * y] == 0
    for c in range(8):
        cl[c].write(0x1000, bytes([c]) * 4096)
    cl.wait_all([cl[c].put_async((c + 4) % 8, 0x1000, 0x200000 + 0x1000 * c, 4096) for c in range(8)])
    for c in range(8):
        assert cl[(c + 4) % 8].read(0x200000 + 0x1000 * c, 4096) == bytes([c]) * 4096


def test_routing_loop_ends_in_timeout_with_dump_naming_the_link(link_card) -> None:
    """A routing-table entry rewritten into a loop (card 1 sends traffic for card 2 back to
    card 0, which sends it to card 1 ...): the put ends in TIMEOUT within the engine's bound,
    and the dump follows the cards' own ROUTE CSRs to the link that closes the loop."""
    cl = rdma.cluster({"topology": "mesh", "dims": [3], "card": str(link_card)})
    to_card0 = cl[1].read_csr("RDMA_ROUTE", 0)
    assert cl[1].read_csr("RDMA_ROUTE", 2) != to_card0
    cl[1].write_csr("RDMA_ROUTE", to_card0, 2)
    cl[0].write(0, b"\x05" * 64)
    t = cl[0].put_async(2, 0, 0, 64)
    with pytest.raises(rdma.RDMAError, match="TIMEOUT") as e:
        t.wait()
    assert cl.now < 100000 + 100000  # the engine's timeout plus the driver's reads
    assert ("the routing tables loop: stuck at link 0 card 1 port 1 -> card 0 port 0" in str(e.value)), str(e.value)
    assert cl[2].read(0, 64) == bytes(64)  # nothing arrived
    with pytest.raises(SpgenError, match="no CSR 'NOPE'"):
        cl[0].read_csr("NOPE")
    with pytest.raises(SpgenError, match="index 64 outside"):
        cl[0].write_csr("RDMA_ROUTE", 0, 64)


def test_rtl_cluster_refuses_cards_without_enough_links(link_card, tmp_path) -> None:
    with pytest.raises(SpgenError, match="has 4 link ports, the cluster needs 5"):
        rdma.cluster({"topology": "fullmesh", "cards": 6, "card": str(link_card)})
    with pytest.raises(SpgenError, match="cannot load simulated card library"):
        rdma.cluster({"topology": "ring", "cards": 3, "card": str(tmp_path / "nothing")})


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_sim_threads_refuses_nonsense(link_card, monkeypatch, value) -> None:
    monkeypatch.setenv("SPGEN_SIM_THREADS", value)
    with pytest.raises(SpgenError, match=f"SPGEN_SIM_THREADS={value}: give the threads"):
        rdma.cluster({"topology": "ring", "cards": 2, "card": str(link_card)})


def test_mpi_ranks_identical_results_and_cycles(link_card, tmp_path) -> None:
    """An 8-card RTL torus with faults split over 1, 2 and 4 MPI ranks: every operation's
    issue, start and completion cycle, every card's memory checksum, every cable's counters
    and the end cycle are identical. The 4 Gb/s lines are slower than the ports, so the
    cables between ranks hold words back to the line rate too."""
    exe = rdma.build_mpi_rtl_tool()
    path = _file(tmp_path, {"topology": "torus", "dims": [2, 4], "card": str(link_card), "seed": 5,
                            "line_rate_gbps": 4,
                            "faults": {"per": 1e-4, "drop": 1e-3},
                            "link_faults": [{"link": 3, "down": [[5000, 40000]]}]})
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    outs = {}
    for ranks in (1, 2, 4):
        r = subprocess.run(["mpirun", "-np", str(ranks), "--oversubscribe", str(exe), str(path), "4", "7"],
                           capture_output=True, text=True, timeout=600, env=env, check=False)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        outs[ranks] = r.stdout
    assert outs[1] == outs[2] == outs[4]
    lines = outs[1].splitlines()
    assert lines[-1].endswith(", 0 failed") and sum(ln.startswith("op ") for ln in lines) == 32
    dropped = sum(int(ln.split()[5]) for ln in lines if ln.startswith("channel "))
    assert dropped > 0  # the faults did happen


def test_bench_rdma_rtl_quick(link_card, tmp_path) -> None:
    """`spgen bench rdma --quick --rtl CARD`: RTL cards with bulk and 64-byte packets beside the
    model at the card's line rate, in the table, the JSON and the plot; physically sensible figures."""
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    assert main(["bench", "rdma", "--quick", "--rtl", str(link_card), "--json", str(out), "--plot", str(png)]) == 0
    recs = json.loads(out.read_text())["rtl_cards"]
    assert [(r["backend"], r["line_gbps"], r["packet_bytes"]) for r in recs] == [
        ("rtl", 40, 1024), ("rtl", 40, 64), ("model", 40, 64)]
    for r in recs:
        lat = {int(h): ns for h, ns in r["latency_ns"].items()}
        assert lat[4] > lat[1] > 200  # more hops take longer; never faster than one cable
        packet = r["packet_bytes"]
        bound = r["line_gbps"] * packet / (packet + 8)  # the packet format's limit
        for kind in ("put_gbps", "get_gbps"):  # a 64 KiB transfer within that limit, and above a third of it
            assert bound / 3 < r[kind]["65536"] <= bound
            assert r[kind]["4096"] < r[kind]["65536"]
        if r["backend"] == "rtl":
            card = {int(h): ns for h, ns in r["card_latency_ns"].items()}
            assert 200 < card[1] < lat[1] and card[4] > card[1]  # the card's view leaves out the host
            assert r["card_put_gbps"] <= bound
    for r in (recs[0], recs[2]):  # sums and allreduces over 2 and 4 cards: the result flows back
        for k in ("2", "4"):        # during the sums, so an allreduce takes about a sum's time
            red, allred = r["reduce_gbps"][k], r["allreduce_gbps"][k]
            assert 0.5 * red < allred < 1.05 * red and red <= r["line_gbps"]
    assert recs[1]["reduce_gbps"] == {}  # the packet size does not change a reduction's streams
    assert recs[0]["card_put_gbps"] > recs[1]["card_put_gbps"]  # bulk packets: 1024 of 1032 bytes payload
    assert png.stat().st_size > 10_000
