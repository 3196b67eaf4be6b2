"""Line rate of the RDMA RTL's link layer and router at 32, 512 and 1024 bits a cycle (LANES = 1,
16, 32 words a beat) at the card's 200 MHz: payload throughput of 1 MiB sent one way (as a put;
the other way carries the ACK / credit packets) over one link whose PHY serialises at 40 or
100 Gb/s (tests/rdma/tb_rdma_link.cpp, packets of 64 B and bulk
packets of 1 KiB, clean and at a 1e-4 packet error rate), and the latency of a 64-byte packet
from one router's engine port to another's over 1 and 4 hops (tests/rdma/tb_rdma_net.cpp,
12-cycle cables). A last row gives the 1024-bit port at 100 Gb/s with 64-byte packets the
buffers that many short packets need (128-packet window, 64 per VC). Prints a table; --json
writes the records."""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "rdma"))
from rdma_rtl_tb import verilate_tb  # the testbenches' shared build
from rtl_bench_common import CARD_MHZ, VC_BUF, WINDOW, arguments, hop_latency, report

CABLE_CYCLES = 40      # 200 ns cables, as the cluster file's default
TB_LINK = ROOT / "tests" / "rdma" / "tb_rdma_link.cpp"
TB_NET = ROOT / "tests" / "rdma" / "tb_rdma_net.cpp"


def params(lanes: int) -> tuple[str, ...]:
    words = 256 if lanes > 1 else 16  # bulk packets need a wide port
    return (f"-GLANES={lanes}", f"-GMAX_WORDS={words}", "-CFLAGS", f"-DLANES={lanes} -DMAX_WORDS={words}")


def run(exe: Path, *args: object) -> dict:
    r = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, check=True, timeout=3600)
    f = r.stdout.split()
    return dict(zip(f[::2], map(int, f[1::2]), strict=True))


def throughput(lanes: int, gbps: float, size: int, per: float, mib: int, window: int = WINDOW,
               vc_buf: int = VC_BUF) -> dict:
    tag = "" if (window, vc_buf) == (WINDOW, VC_BUF) else str(window)
    exe = verilate_tb(f"rdma_link_port_w{lanes}_bench{tag}", "rdma_link_port", TB_LINK, *params(lanes),
                      f"-GWINDOW={window}", f"-GVC_BUF={vc_buf}")
    npk = mib * 2**20 // (4 * size)
    t0 = time.time()
    f = run(exe, npk, 0, per, 1, CABLE_CYCLES, 0, 0, 1.0, size, gbps, 1)
    assert f["errors"] == 0 and f["payload_words"] == npk * size, f
    got = f["payload_words"] * 4 * 8 * CARD_MHZ / 1000 / f["cycles"]  # Gb/s
    return {"lanes": lanes, "bits": 32 * lanes, "line_gbps": gbps, "packet_bytes": 4 * size, "per": per,
            "mib": mib, "cycles": f["cycles"], "gbps": round(got, 2), "of_line": round(got / gbps, 4),
            "window": window, "vc_buf": vc_buf, "crc_errors": f["crc_errors"], "replays": f["replays"],
            "wall_s": round(time.time() - t0, 1)}


def latency(lanes: int) -> dict:
    exe = verilate_tb(f"rdma_card_net_w{lanes}_bench", "rdma_card_net", TB_NET, *params(lanes))
    one = run(exe, 8, 1, 1, 0, 0, 1, 1, 10000, 16, 1)["cycles"]
    four = run(exe, 8, 1, 1, 0, 0, 1, 1, 10000, 16, 4)["cycles"]
    return hop_latency(lanes, one, four)


def _sizes(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--mib", type=int, default=1, help="MiB per throughput run")
    ap.add_argument("--per-mib", type=int, default=16, help="MiB of the 1e-4 PER runs")


def main(argv: list[str] | None = None) -> int:
    a = arguments(__doc__, [1, 16, 32], argv, _sizes)
    runs = [(lanes, gbps, size, per, a.per_mib if per else a.mib, WINDOW, VC_BUF)
            for lanes in a.lanes for gbps in a.rates for size in ((16, 256) if lanes > 1 else (16,))
            for per in (0.0, 1e-4)]
    if 32 in a.lanes and 100.0 in a.rates:
        runs.append((32, 100.0, 16, 0.0, a.mib, 2 * WINDOW, 2 * VC_BUF))
    report(a, latency, ("64 B packet, 1 hop (12-cycle cables)", "added per hop"), runs, throughput,
           ["packets", "PER", "MiB"], "CRC errors, replays", cable_cycles=CABLE_CYCLES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
