"""The RDMA block attached to the AFU (shell/rdma/afu/: afu_rdma_top = afu_top + RDMA CSRs +
engine + router + shared memory masters): a ring of Verilated cards driven through MMIO
only moves every byte, reports events, interrupts and errors, beside a local DMA."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from spgen._tools import verilate_cached, verilator_bin, verilator_env
from spgen.oplib import rtl_source
from spgen.runtime import shell_sources

pytestmark = pytest.mark.xdist_group("rdma_rtl")
ROOT = Path(__file__).resolve().parents[2]
RDMA = sorted((ROOT / "shell" / "rdma").glob("*.v")) + sorted((ROOT / "shell" / "rdma" / "afu").glob("*.v")) \
    + [rtl_source("fadd")]  # the reduction unit's f32 adder
TB = Path(__file__).with_name("tb_rdma_afu.cpp")
# every include of the shell (generated headers, shared port lists): part of the cache key
INCLUDES = (*sorted((ROOT / "shell").glob("*.vh")), ROOT / "shell" / "include" / "afushell_csr.h")
# the cable model the testbench shares with RTLCluster and the other RDMA testbenches
LINKS = ROOT / "runtime" / "rdma" / "rtl_links.hpp"


def _sources() -> list[Path]:
    return [*shell_sources(), *RDMA]


def test_rdma_rtl_afu_lint_clean() -> None:
    for top in ("afu_rdma_top", "rdma_csr", "rdma_rd_arb", "rdma_wr_arb", "rdma_mem_adapter", "rdma_reduce_csr"):
        r = subprocess.run([str(verilator_bin()), "--lint-only", "-Wall", f"-I{ROOT / 'shell'}", "--top-module", top,
                            *map(str, _sources())], env=verilator_env(), check=False, capture_output=True, text=True)
        assert r.returncode == 0, top + "\n" + r.stdout + r.stderr


def afu_model() -> Path:
    """Verilated ring of afu_rdma_top cards with its host program, cached by content: the
    32-bit link port (RDMA_LANES 1), a word per cycle as the program's cables carry it."""
    return verilate_cached("rdma", "afu_rdma_top", "afu_rdma_top", [*_sources(), TB],
                           (f"-I{ROOT / 'shell'}", "-GRDMA_LANES=1", "-Wno-fatal", "-CFLAGS",
                            f"-I{ROOT / 'shell' / 'include'} -I{LINKS.parent}"), deps=[*INCLUDES, LINKS])


@pytest.mark.parametrize("args", [("3", "0", "0", "1"), ("3", "0.02", "0.02", "2")], ids=["clean", "faults"])
def test_rdma_rtl_afu_ring_through_mmio(args: tuple) -> None:
    r = subprocess.run([str(afu_model()), *args], capture_output=True, text=True, check=False, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    f = dict(zip(r.stdout.split()[::2], map(int, r.stdout.split()[1::2]), strict=True))
    assert f["errors"] == 0 and f["ops"] == 9 + 1 + 1 + 1 + 4 + 5 + 1  # 5: MAX_OPS (4) in flight + 1 waiting
    # the debug registers: a dead cable out of card 0's port 0 is found by its unacknowledged
    # packets while the put's slot ages; packets were counted on every link
    assert f["stuck_port"] == 0 and f["stuck_age"] >= 3000 and f["packets"] > 100
    # sequential words share a 64-byte beat (the descriptor fetches add a few beats)
    assert 0 < f["rd_beats"] * 8 < f["rd_words"]
    # the engine's words are written as whole lines in multi-beat bursts, not a beat per word
    assert f["wr_bursts"] > 0 and 0 < f["wr_beats"] * 8 < f["rd_words"]
    if args[1] != "0":
        assert f["flips"] > 0 and f["drops"] > 0 and f["replays"] > 0 and f["crc_errors"] > 0
