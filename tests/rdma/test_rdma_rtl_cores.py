"""An SPD pipeline across two cards over the RTL network: core_a's two-port Brch_Out on card 0 is
bound (rdma_stream_ser) to a stream endpoint sending to card 1, whose endpoint feeds core_b's
Brch_In (rdma_stream_des). Under random back-pressure and link faults both cores' outputs equal
the emulator's, bit for bit."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import spgen
from spgen._tools import verilate_cached
from spgen.runtime.rdma import rtl_includes, rtl_sources

pytestmark = pytest.mark.xdist_group("rdma_rtl")
ROOT = Path(__file__).resolve().parents[2]
RTL = rtl_sources()  # shell/rdma/*.v and the shell modules they use
HERE = Path(__file__).parent
PACKET = ROOT / "shell" / "rdma_packet.vh"  # the generated packet-format include
LINKS = ROOT / "runtime" / "rdma" / "rtl_links.hpp"  # the cable model of the RDMA testbenches
CORE_A = """Name core_a;
Main_In  {Mi::x};
Main_Out {Mo::y};
Brch_Out {Bo::b0, b1:u32};
EQU e1, y = x * 2.0;
EQU e2, b0 = x + shift(x, 1) + 1.0;
EQU e3, b1 = bits(x) >> 3;
"""
CORE_B = """Name core_b;
Main_In  {Mi::u};
Main_Out {Mo::v};
Brch_In  {Bi::h0, h1:u32};
EQU e1, v = u * h0 - shift(h0, -2) + f32(h1 & 255);
"""


@pytest.fixture(scope="module")
def designs(tmp_path_factory: pytest.TempPathFactory) -> tuple[spgen.Design, spgen.Design]:
    d = tmp_path_factory.mktemp("cores")
    (d / "a.spd").write_text(CORE_A)
    (d / "b.spd").write_text(CORE_B)
    return spgen.compile(d / "a.spd"), spgen.compile(d / "b.spd")


def _model(designs: tuple[spgen.Design, spgen.Design], src: Path) -> Path:
    """The two compiled cores on two cards, written to `src`, Verilated once per content."""
    cores = []
    for x in designs:
        p = src / f"{x.verilog.name}.v"
        p.write_text(x.verilog.text)
        cores.append(p)
    return verilate_cached("rdma", "rdma_cores", "tb_rdma_cores_top",
                           [*RTL, *cores, HERE / "tb_rdma_cores_top.v", HERE / "tb_rdma_cores.cpp"],
                           ("-Wno-fatal", f"-I{PACKET.parent}", "-CFLAGS", f"-I{LINKS.parent}"),
                           deps=[*rtl_includes(), LINKS])


@pytest.mark.parametrize("p_in, p_out, flip, drop", [(1.0, 1.0, 0.0, 0.0), (0.6, 0.35, 0.02, 0.02)],
                         ids=["free-running", "backpressure-faults"])
def test_rdma_rtl_cores_pipeline_across_cards(designs, tmp_path: Path, p_in: float, p_out: float, flip: float,
                                              drop: float) -> None:
    a, b = designs
    n = 3000
    rng = np.random.default_rng(11)
    x = rng.standard_normal(n).astype(np.float32)
    u = rng.standard_normal(n).astype(np.float32)
    ea = a.emulate(np.array(x, dtype=[("x", np.float32)]))
    eb = b.emulate({"main": np.array(u, dtype=[("u", np.float32)]),
                    "brch": np.array(list(zip(ea["b0"], ea["b1"])), dtype=[("h0", np.float32), ("h1", np.uint32)])})
    x.view(np.uint32).tofile(tmp_path / "x.bin")
    u.view(np.uint32).tofile(tmp_path / "u.bin")
    r = subprocess.run([str(_model(designs, tmp_path)), str(n), str(p_in), str(p_out), str(flip), str(drop), "3",
                        str(tmp_path / "x.bin"), str(tmp_path / "u.bin"), str(tmp_path / "y.bin"),
                        str(tmp_path / "v.bin")], capture_output=True, text=True, check=False, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    y = np.fromfile(tmp_path / "y.bin", dtype=np.uint32)
    v = np.fromfile(tmp_path / "v.bin", dtype=np.uint32)
    want_y, want_v = ea["y"].view(np.uint32), eb["v"].view(np.uint32)
    assert np.array_equal(y, want_y) and np.array_equal(v, want_v)
    if flip:
        f = dict(zip(r.stdout.split()[::2], map(int, r.stdout.split()[1::2]), strict=True))
        assert f["flips"] > 0 and f["drops"] > 0
