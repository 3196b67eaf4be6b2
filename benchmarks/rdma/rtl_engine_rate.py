"""Line rate of the wide RDMA engine (rdma_node with LANES = 16 and 32: the engine's port moves a
beat of 512 or 1024 bits, its memory ports 64-byte lines) at the card's 200 MHz: payload
throughput of puts and gets of 1 MiB between two cards over one link whose sender is paced by
a PHY at 40 or 100 Gb/s (4 bytes a word of the packet, header and CRC included, idle lanes
not), 200 ns cables (40 cycles), a memory that serves a line per cycle after 50 cycles, with
64-byte and 1 KiB DATA packets, clean and at a 1e-4 packet error rate (16 MiB: 16 operations of
1 MiB, two in flight); from command to the last completion, so the operations' start-up is
included; two runs per width with off-line ranges (local at +4, remote at +60 bytes). And the
latency of a 16-byte put from command to DONE over 1 and 4 hops (a ring of 8 cards, 12-cycle
cables, a 10-cycle memory). tests/rdma/tb_rdma_engine.cpp, modes rate and lat. Prints tables;
--json writes the records."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "rdma"))
from rtl_bench_common import VC_BUF, WINDOW, arguments, hop_latency, report
from test_rdma_rtl_engine import engine_model  # the engine testbench's build

MEM_LAT = 50           # cycles from a line read to its data


def run(exe: Path, *args: object) -> dict:
    r = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, check=False, timeout=3600)
    out = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if f and f[0] == "bench":
            out["latency_cycles"] = int(f[-1])
        elif f:
            f = f[1:] if f[0] == "rate" else f
            out.update(dict(zip(f[::2], map(int, f[1::2]), strict=True)))
    assert r.returncode == 0 and out.get("errors") == 0 and out.get("failed") == 0, r.stdout + r.stderr
    return out


def rate(lanes: int, gbps: float, pkt: int, kind: int, per: float, window: int = WINDOW, vc_buf: int = VC_BUF,
         offsets: tuple[int, int] = (0, 0)) -> dict:
    exe = engine_model(lanes, f"-GWINDOW={window}", f"-GVC_BUF={vc_buf}")
    ops = 16 if per else 1
    t0 = time.time()
    f = run(exe, "rate", 2, 1, ops, per, 0, 1, 50_000_000, gbps, pkt, kind, 2**20, 2, MEM_LAT, *offsets)
    got = f["milli_gbps"] / 1000
    return {"lanes": lanes, "bits": 32 * lanes, "line_gbps": gbps, "op": "get" if kind else "put",
            "packet_bytes": 4 * pkt, "per": per, "mib": ops, "cycles": f["cycles"], "gbps": round(got, 2),
            "of_line": round(got / gbps, 4), "window": window, "vc_buf": vc_buf, "replays": f["replays"],
            "flips": f["flips"], "local_offset": offsets[0], "remote_offset": offsets[1],
            "wall_s": round(time.time() - t0, 1)}


def latency(lanes: int) -> dict:
    exe = engine_model(lanes, f"-GWINDOW={WINDOW}", f"-GVC_BUF={VC_BUF}")
    one = run(exe, "lat", 8, 1, 0, 0, 0, 1, 100000, 1)["latency_cycles"]
    four = run(exe, "lat", 8, 1, 0, 0, 0, 1, 100000, 4)["latency_cycles"]
    return hop_latency(lanes, one, four)


def main(argv: list[str] | None = None) -> int:
    a = arguments(__doc__, [16, 32], argv)
    runs = [(lanes, gbps, pkt, kind, per, WINDOW, VC_BUF) for lanes in a.lanes for gbps in a.rates
            for pkt in (16, 256) for kind in (0, 1) for per in (0.0, 1e-4)]
    # off-line ranges (1 MiB less 128 bytes): the realigning buffers at full rate
    runs += [(lanes, gbps, 256, kind, 0.0, WINDOW, VC_BUF, (4, 60)) for lanes, gbps in ((16, 40.0), (32, 100.0))
             if lanes in a.lanes and gbps in a.rates for kind in (0, 1)]
    if 32 in a.lanes and 100.0 in a.rates:
        runs += [(32, 100.0, 16, kind, 0.0, 2 * WINDOW, 2 * VC_BUF) for kind in (0, 1)]
    if 16 in a.lanes and 40.0 in a.rates:
        runs += [(16, 40.0, 16, kind, 0.0, 2 * WINDOW, 2 * VC_BUF) for kind in (0, 1)]
    report(a, latency, ("16 B put, command to DONE, 1 hop", "added per hop (put + DONE back)"), runs, rate,
           ["op", "packets", "PER", "MiB", "offsets"], "flips, replays", cable_cycles=40,
           mem_latency_cycles=MEM_LAT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
