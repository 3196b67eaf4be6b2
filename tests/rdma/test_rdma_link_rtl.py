"""Link layer and router as RTL (shell/rdma/): lint-clean; two ports over a faulty cable and a torus of
routers deliver every packet once, in order, without deadlock."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rdma_rtl_tb import PACKET_INC, RTL, lint, verilate_tb
from spgen._tools import verilator_bin, verilator_env

pytestmark = pytest.mark.xdist_group("rdma_rtl")
TB = Path(__file__).with_name("tb_rdma_link.cpp")
TB_NET = Path(__file__).with_name("tb_rdma_net.cpp")


@pytest.mark.parametrize("top, params", [
    ("rdma_link_port", ()), ("rdma_link_port", ("-GWINDOW=64", "-GVC_BUF=16")),
    ("rdma_link_port", ("-GLANES=16", "-GMAX_WORDS=256")), ("rdma_link_port", ("-GLANES=2",)),
    ("rdma_link_port", ("-GLANES=32", "-GMAX_WORDS=64")),
    ("rdma_link_tx", ()), ("rdma_link_rx", ()), ("rdma_crc32", ()), ("rdma_router", ()),
    ("rdma_router", ("-GP=6",)), ("rdma_card_net", ()), ("rdma_card_net", ("-GP=2", "-GWINDOW=16")),
    ("rdma_router", ("-GLANES=16",)), ("rdma_local_mux", ("-GLANES=16",)),
    ("rdma_card_net", ("-GLANES=16", "-GMAX_WORDS=256")), ("rdma_card_net", ("-GP=2", "-GLANES=32", "-GMAX_WORDS=256")),
    ("rdma_router", ("-GLANES=32", "-GLOCALS=2")),
    ("rdma_card_net", ("-GP=2", "-GLANES=32", "-GMAX_WORDS=256", "-GLOCALS=2")),
])
def test_rdma_rtl_lint_clean(top: str, params: tuple) -> None:
    assert lint(top, *params) == ""


def test_rdma_rtl_bad_parameter_stops_naming_the_instance(tmp_path: Path) -> None:
    """A module built with an impossible parameter stops at time 0 with an $error that names
    the instance and the value, instead of simulating garbage."""
    build = subprocess.run([str(verilator_bin()), "--binary", "-Wno-fatal", "-Wno-lint", *PACKET_INC,
                            "--top-module", "rdma_link_rx", "-GVC_BUF=3", "--Mdir", str(tmp_path), *map(str, RTL)],
                           env=verilator_env(), check=False, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    r = subprocess.run([str(tmp_path / "Vrdma_link_rx")], capture_output=True, text=True, check=False, timeout=60)
    assert r.returncode != 0
    assert "rdma_link_rx: VC_BUF=3 must be a power of 2" in r.stdout + r.stderr


def _model(top: str = "rdma_link_port", tb: Path = TB) -> Path:
    return verilate_tb(top, top, tb)


# a 512-bit port (16 words a beat) with bulk packets up to 256 words (1 KiB), and the
# buffers of the card's ports (afu_rdma_top: 32-packet window, 16 packets per VC)
WIDE = ("-GLANES=16", "-GMAX_WORDS=256", "-GWINDOW=32", "-GVC_BUF=16", "-CFLAGS", "-DLANES=16 -DMAX_WORDS=256")


def _wide_model() -> Path:
    return verilate_tb("rdma_link_port_w16", "rdma_link_port", TB, *WIDE)


def _fields(out: str) -> dict:
    return dict(zip(out.split()[::2], map(int, out.split()[1::2]), strict=True))


@pytest.mark.parametrize("args", [
    ("300", "0", "0", "1", "20", "0", "0", "1.0"),          # clean, no back-pressure
    ("300", "0.01", "0.02", "2", "20", "3000", "5000", "0.7"),  # drops, bit flips, link down
    ("200", "0.02", "0.05", "3", "40", "0", "0", "0.15"),   # heavy faults, slow consumer: credits
], ids=["clean", "faults", "backpressure"])
def test_rdma_link_rtl_delivers_every_packet_once(args: tuple) -> None:
    r = subprocess.run([str(_model()), *args], capture_output=True, text=True, check=False, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    fields = _fields(r.stdout)
    assert fields["errors"] == 0
    if args[1] != "0":
        assert fields["crc_errors"] > 0 and fields["replays"] > 0 and fields["dropped"] > 0


@pytest.mark.parametrize("args", [
    ("200", "0", "0", "1", "20", "0", "0", "1.0"),
    ("200", "0.01", "0.02", "2", "20", "3000", "5000", "0.7"),
    ("150", "0.02", "0.05", "3", "40", "0", "0", "0.15"),
], ids=["clean", "faults", "backpressure"])
def test_rdma_link_rtl_wide_delivers_every_packet_once(args: tuple) -> None:
    """The 512-bit port: random packets of 0..16 words and bulk packets of 32..256 words, the
    CRC in the last payload beat or a beat of its own, under drops, flips and back-pressure."""
    r = subprocess.run([str(_wide_model()), *args], capture_output=True, text=True, check=False, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    fields = _fields(r.stdout)
    assert fields["errors"] == 0 and fields["payload_words"] > 0
    if args[1] != "0":
        assert fields["crc_errors"] > 0 and fields["replays"] > 0 and fields["dropped"] > 0


@pytest.mark.parametrize("size, beats, latency", [(256, 17, 20), (16, 2, 20), (14, 1, 4)])
def test_rdma_link_rtl_wide_moves_a_beat_per_cycle(size: int, beats: int, latency: int) -> None:
    """Full-size packets both ways over a clean cable: a 1 KiB bulk packet takes 17 beats
    (header + 256 words + CRC), a 64-byte packet 2, a 56-byte one 1, and the port keeps a
    beat on the wire nearly every cycle (the rest: ACK / credit CTRL beats). One-beat packets
    need a short cable: 32 packets in the window cover 32 cycles of round trip."""
    npk = 400
    r = subprocess.run([str(_wide_model()), str(npk), "0", "0", "1", str(latency), "0", "0", "1.0", str(size)],
                       capture_output=True, text=True, check=False, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    fields = _fields(r.stdout)
    assert fields["errors"] == 0 and fields["payload_words"] == 2 * npk * size
    assert fields["cycles"] < npk * beats * 1.06 + 200, fields


@pytest.mark.parametrize("per", [0.0, 1e-2])
def test_rdma_link_rtl_wide_fills_a_40_gbps_line(per: float) -> None:
    """A 512-bit port at 200 MHz behind a PHY that serialises at 40 Gb/s: 1 KiB bulk packets
    both ways carry at least 93 % of the line in payload (1024 of 1032 bytes a packet, the
    rest ACK / credit packets), and still more than 90 % at a 1e-2 packet error rate."""
    npk = 600
    r = subprocess.run([str(_wide_model()), str(npk), "0", str(per), "5", "20", "0", "0", "1.0", "256", "40"],
                       capture_output=True, text=True, check=False, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    fields = _fields(r.stdout)
    assert fields["errors"] == 0 and fields["payload_words"] == 2 * npk * 256
    gbps = fields["payload_words"] * 32 / 2 * 0.2 / fields["cycles"]  # each way, at 200 MHz
    assert gbps >= (37.2 if per == 0 else 36.0), fields
    if per:
        assert fields["replays"] > 0


@pytest.mark.parametrize("args", [
    ("2", "4", "6", "0.02", "0.01", "1", "1", "300000"),  # 8-card torus, all pairs, flips and drops
    ("4", "4", "6", "0", "0", "2", "1", "300000"),         # 4 x 4 torus all-to-all: completes
    ("4", "4", "8", "0.02", "0.01", "7", "1", "300000"),   # ... also with flips and drops
], ids=["torus2x4-faults", "torus4x4-alltoall", "torus4x4-alltoall-faults"])
def test_rdma_router_rtl_torus_all_to_all(args: tuple) -> None:
    r = subprocess.run([str(_model("rdma_card_net", TB_NET)), *args], capture_output=True, text=True,
                       check=False, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    fields = dict(zip(r.stdout.split()[::2], map(int, r.stdout.split()[1::2]), strict=True))
    assert fields["delivered"] == fields["expected"] > 0 and fields["errors"] == 0 and fields["overflow"] == 0
    if args[3] != "0":
        assert fields["replays"] > 0


@pytest.mark.parametrize("args", [
    ("2", "4", "4", "0.02", "0.01", "1", "1", "300000"),  # 8-card torus, packets of 2..256 words
    ("4", "4", "3", "0.02", "0.01", "7", "1", "300000"),  # 4 x 4 torus all-to-all with faults
], ids=["torus2x4-faults", "torus4x4-alltoall-faults"])
def test_rdma_router_rtl_wide_torus_all_to_all(args: tuple) -> None:
    """512-bit routers and ports with bulk packets: every packet once, in order, unchanged."""
    r = subprocess.run([str(_wide_net()), *args], capture_output=True, text=True, check=False, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    fields = _fields(r.stdout)
    assert fields["delivered"] == fields["expected"] > 0 and fields["errors"] == 0 and fields["overflow"] == 0
    assert fields["replays"] > 0


@pytest.mark.parametrize("size, beats", [(256, 17), (64, 5)])
def test_rdma_router_rtl_wide_passes_a_beat_per_cycle(size: int, beats: int) -> None:
    """Two cards, 300 packets each way from the engine port through router, link, 12-cycle
    cable, link and router to the other engine port: a beat per cycle (each router chains a
    packet behind the one passing on the same input to the same output). Packets of one or
    two beats are bound by the 16 packets of credit per VC instead (about one per 3 cycles
    here)."""
    npk = 300
    r = subprocess.run([str(_wide_net()), "2", "1", str(npk), "0", "0", "1", "1", "300000", str(size)],
                       capture_output=True, text=True, check=False, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    fields = _fields(r.stdout)
    assert fields["errors"] == 0 and fields["payload_words"] == 2 * npk * size
    assert fields["cycles"] < npk * beats * 1.07 + 200, fields


def _wide_net() -> Path:
    return verilate_tb("rdma_card_net_w16", "rdma_card_net", TB_NET, *WIDE)


@pytest.mark.parametrize("datelines", [1, 0])
def test_rdma_router_rtl_without_datelines_deadlocks(datelines: int) -> None:
    """An all-to-all on an 8 x 2 torus completes with the dateline VCs and wedges without them:
    the tests above have teeth. On a ring of 8 routes go up to 3 hops one way round, which
    closes a cycle of channel dependencies; on a ring of 4 every 2-hop route leaves from a
    card of one parity (ring_route.hpp), which does not."""
    r = subprocess.run([str(_model("rdma_card_net", TB_NET)), "8", "2", "6", "0", "0", "2", str(datelines),
                        "300000" if datelines else "20000"], capture_output=True, text=True, check=False, timeout=600)
    fields = dict(zip(r.stdout.split()[::2], map(int, r.stdout.split()[1::2]), strict=True))
    if datelines:
        assert r.returncode == 0 and fields["delivered"] == fields["expected"] > 0, r.stdout + r.stderr
        return
    assert r.returncode == 3, r.stdout + r.stderr
    assert fields["delivered"] < fields["expected"] and fields["errors"] == 0
