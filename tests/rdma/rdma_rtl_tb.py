"""What the RDMA RTL testbenches share: the RTL (shell/rdma/*.v and the shell modules they use),
its lint, and Verilated testbenches built with the C++ link helpers and the generated
packet-format include, cached by content."""
from __future__ import annotations

import subprocess
from pathlib import Path

from spgen._tools import verilate_cached, verilator_bin, verilator_env
from spgen.runtime.rdma import rtl_includes, rtl_sources

ROOT = Path(__file__).resolve().parents[2]
RTL = rtl_sources()
# the C++ link and routing helpers the testbenches share with RTLCluster
LINKS = ROOT / "runtime" / "rdma" / "rtl_links.hpp"
# what the testbenches of wide ports share (LANES, beats on Verilated ports)
LANES_HPP = Path(__file__).with_name("tb_lanes.hpp")
# the stream testbench's line-rate mode
RATE_HPP = Path(__file__).with_name("tb_stream_rate.hpp")
# the generated packet-format include (shell/rdma_packet.vh) every RDMA module reads
PACKET_INC = (f"-I{ROOT / 'shell'}",)


def lint(top: str, *params: str) -> str:
    """Verilator -Wall lint of `top` with `params`: "" when clean, else its messages."""
    cmd = [str(verilator_bin()), "--lint-only", "-Wall", *PACKET_INC, "--top-module", top, *params, *map(str, RTL)]
    r = subprocess.run(cmd, env=verilator_env(), check=False, capture_output=True, text=True)
    return "" if r.returncode == 0 else r.stdout + r.stderr


def verilate_tb(name: str, top: str, tb: Path, *params: str) -> Path:
    """The testbench `tb` around the RTL module `top`, Verilated with `params` (cached)."""
    return verilate_cached("rdma", name, top, [*RTL, tb], (*params, "-CFLAGS", f"-I{LINKS.parent}", *PACKET_INC),
                           deps=[LINKS, LANES_HPP, RATE_HPP, *rtl_includes()])
