"""RTL RDMA engine + router (Verilated, spgen.runtime.rdma.RTLCluster) beside the C++ model in cycles: put/get latency over 1..4 hops of a ring of 8, put throughput clean and at a 1e-4 packet error rate, block-stride get; table and JSON. Rates in Gb/s are at the card's 200 MHz clock."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from spgen.runtime import rdma
from spgen.shellgen import card_clock_mhz

CLOCK_MHZ = 390.625   # the model's clock; the RTL moves one 32-bit word per cycle per link
LINK_CYCLES = 12      # cable latency of the RTL cluster, cycles
LIMIT = 4 * 64 / 72   # payload bytes per cycle of a 32-bit link with 64 + 8 byte packets
CARD_MHZ = float(card_clock_mhz())  # the PAC's AFU clock: a 32-bit link is 6.4 Gb/s there
PER = 1e-4            # packet error rate of the goodput rows (every cable, both directions)


def gbps(nbytes: int, cycles: int) -> float:
    """Payload Gb/s of `nbytes` in `cycles` at the card clock."""
    return round(nbytes * 8 * CARD_MHZ / 1000 / cycles, 3)


def model_cluster(window: int, vc_buf: int, rtl_like: bool, per: float = 0.0) -> rdma.Cluster:
    params = {"window": window, "vc_buffer": vc_buf, "mem_bytes": rdma.RTL_MEM_BYTES}
    if rtl_like:  # the RTL test bench's memory (8-cycle reads, posted writes), engine issue of a few cycles
        params.update(engine_latency=2, mem_read_latency=9, mem_write_latency=1)
    return rdma.cluster({"topology": "ring", "cards": 8, "line_rate_gbps": 32 * CLOCK_MHZ / 1000,
                         "latency_ns": LINK_CYCLES * 1000 / CLOCK_MHZ, "params": params,
                         "faults": {"per": per}})


def measure(put, get, sizes: list[int], big: int, now=None, async_puts=None) -> list[dict]:
    recs = []
    for hops in (1, 2, 3, 4):
        for n in sizes:
            recs.append({"op": "put", "hops": hops, "bytes": n, "cycles": put(0, hops, 0, 0x100000, n)})
            recs.append({"op": "get", "hops": hops, "bytes": n, "cycles": get(0, hops, 0x100000, 0, n)})
    # message rate: 64 puts of 64 B to the next card, each waited for / all started at once
    if async_puts is not None:
        t0 = now()
        for k in range(64):
            put(0, 1, 64 * k, 0x200000 + 64 * k, 64)
        recs.append({"op": "put64x64_sequential", "hops": 1, "bytes": 64 * 64, "cycles": now() - t0})
        t0 = now()
        async_puts([(0, 1, 64 * k, 0x210000 + 64 * k, 64) for k in range(64)])
        recs.append({"op": "put64x64_in_flight", "hops": 1, "bytes": 64 * 64, "cycles": now() - t0})
    for hops in (1, 4):
        c = put(0, hops, 0, 0x100000, big)
        recs.append(throughput("put", hops, big, c))
    return recs


def throughput(op: str, hops: int, nbytes: int, cycles: int) -> dict:
    return {"op": op, "hops": hops, "bytes": nbytes, "cycles": cycles, "bytes_per_cycle": round(nbytes / cycles, 3),
            "of_link_limit": round(nbytes / cycles / LIMIT, 3), "gbps_at_200mhz": gbps(nbytes, cycles)}


def rtl_extras(window: int, vc_buf: int, big: int) -> list[dict]:
    """RTL only: a 1 MiB get, a block-stride get of 256-byte blocks, and the put under faults."""
    recs = []
    rtl = rdma.RTLCluster((8,), latency=LINK_CYCLES, window=window, vc_buf=vc_buf)
    try:
        recs.append(throughput("get", 1, big, rtl.get(0, 1, 0x100000, 0, big)))
        blocks = big // 512
        c = rtl.get_strided(0, 1, 0x100000, 0, 256, blocks, 512, 512)  # every other 256 B there and here
        recs.append(throughput("get_strided_256B", 1, 256 * blocks, c))
    finally:
        rtl.close()
    for hops in (1, 4):
        faulty = rdma.RTLCluster((8,), latency=LINK_CYCLES, window=window, vc_buf=vc_buf, flip=PER, seed=3)
        try:
            recs.append({**throughput("put_per1e-4", hops, big, faulty.put(0, hops, 0, 0x100000, big)),
                         "replays": faulty.stats()["replays"]})
        finally:
            faulty.close()
    return recs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", type=Path, help="write the records here")
    ap.add_argument("--quick", action="store_true", help="fewer sizes, a smaller large transfer")
    a = ap.parse_args(argv)
    sizes = [16, 1024] if a.quick else [16, 256, 4096]
    big = 65536 if a.quick else 1 << 20
    records: list[dict] = []
    for window, vc_buf in ((8, 4), (32, 16)):
        t0 = time.time()
        rtl = rdma.RTLCluster((8,), latency=LINK_CYCLES, window=window, vc_buf=vc_buf)
        m, m2 = model_cluster(window, vc_buf, False), model_cluster(window, vc_buf, True)

        def rtl_async(ops: list[tuple], rtl: rdma.RTLCluster = rtl) -> None:
            for t in [rtl.put_async(*o) for o in ops]:
                t.wait()

        def model_async(ops: list[tuple], m: rdma.Cluster) -> None:
            m.wait_all([m[c].put_async(d, lo, re, n) for c, d, lo, re, n in ops])

        for impl, put, get, now, apt in (
            ("rtl", rtl.put, rtl.get, lambda rtl=rtl: rtl.now, rtl_async),
            ("model", lambda c, d, lo, re, n, m=m: m[c].put(d, lo, re, n),
             lambda c, d, lo, re, n, m=m: m[c].get(d, lo, re, n), lambda m=m: m.now,
             lambda ops, m=m: model_async(ops, m)),
            ("model_rtl_latencies", lambda c, d, lo, re, n, m=m2: m[c].put(d, lo, re, n),
             lambda c, d, lo, re, n, m=m2: m[c].get(d, lo, re, n), lambda m=m2: m.now,
             lambda ops, m=m2: model_async(ops, m)),
        ):
            for r in measure(put, get, sizes, big, now, apt):
                records.append({"impl": impl, "window": window, "vc_buf": vc_buf, **r})
        rtl.close()
        for r in rtl_extras(window, vc_buf, big):
            records.append({"impl": "rtl", "window": window, "vc_buf": vc_buf, **r})
        for hops in (1, 4):
            mf = model_cluster(window, vc_buf, False, PER)
            c = mf[0].put(hops, 0, 0x100000, big)
            records.append({"impl": "model", "window": window, "vc_buf": vc_buf,
                            **throughput("put_per1e-4", hops, big, c)})
        print(f"# window {window}, vc_buf {vc_buf}: {time.time() - t0:.1f} s", file=sys.stderr)
    impls = ("rtl", "model", "model_rtl_latencies")
    print(f"{'window/vc_buf':>13} {'op':>4} {'hops':>4} {'bytes':>8} " + " ".join(f"{i:>20}" for i in impls))
    keyed = {(r["impl"], r["window"], r["op"], r["hops"], r["bytes"]): r for r in records}
    for r in records:
        if r["impl"] != "rtl":
            continue
        cells = []
        for i in impls:
            x = keyed.get((i, r["window"], r["op"], r["hops"], r["bytes"]))
            if x is None:
                cells.append("-")
                continue
            cells.append(f"{x['cycles']:>10}" + (f" ({x['of_link_limit']:.1%})" if "of_link_limit" in x else " " * 9))
        print(f"{r['window']:>6}/{r['vc_buf']:<6} {r['op']:>4} {r['hops']:>4} {r['bytes']:>8} "
              + " ".join(f"{c:>20}" for c in cells))
    if a.json:
        a.json.write_text(json.dumps({"benchmark": "rdma_rtl_vs_model", "key": ["impl", "window", "vc_buf", "op",
                                                                               "hops", "bytes"],
                                      "clock_mhz": CLOCK_MHZ, "link_cycles": LINK_CYCLES, "card_mhz": CARD_MHZ,
                                      "per": PER,
                                      "link_payload_limit_bytes_per_cycle": LIMIT, "records": records}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
