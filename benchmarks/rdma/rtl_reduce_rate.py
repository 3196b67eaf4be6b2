"""Line rate of reductions on RTL cards (shell/rdma/rdma_reduce.v, a 64-byte line a cycle): a sum
and an allreduce of 1 MiB, u32 and f32, along rings of 2, 4 and 8 complete simulated cards
(`spgen build --loopback --links 2 --link-gbps 40|100`), cables paced at the line rate with 200 ns
of latency, the vectors in memory A and the result in memory B (an allreduce's cards read one bank
and write the other at the line). Rate = bytes x 8 / time from the host's call to the completion
it sees (an allreduce's result on every card, counted once), every result checked bit for bit
against numpy's sums in chain order; the steady rate leaves out the fixed cost (the time of a
64-byte one on the same cards: the host's posted writes, the pipeline's fill, and the cards'
completion records' way to host memory, where the host sees the end). Prints a table; --json
writes the records."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "compiler"))
import spgen
from spgen.runtime import rdma

SRC, DST = 0x10000, (1 << 32) + 0x10000  # memory A, memory B
OLD_40G = {"sum": {2: 5.31, 4: 4.77, 8: 4.74}, "allreduce": {2: 2.66, 4: 2.39, 8: 2.38}}  # the word unit
CIRCUS_GBPS = 90.2


def card(gbps: int, where: Path) -> Path:
    """A loop-back card with 2 link ports at this line rate (the build is cached by content)."""
    out = where / f"link2_{gbps}"
    spgen.build(None, out, links=2, link_gbps=gbps)   # always: a folder of an older tree is rebuilt
    return out


def vectors(dtype: str, cards: int, n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(cards)
    if dtype == "u32":
        return [rng.integers(0, 1 << 32, n, dtype=np.uint32) for _ in range(cards)]
    return [rng.standard_normal(n).astype(np.float32) for _ in range(cards)]


def measure(built: Path, gbps: int, cards: int, dtype: str, every: bool, nbytes: int) -> dict:
    cl = rdma.cluster({"topology": "ring", "dims": [cards], "card": str(built), "latency_ns": 200.0,
                       "line_rate_gbps": gbps, "seed": 1})
    vecs = vectors(dtype, cards, nbytes // 4)
    for c, v in enumerate(vecs):
        cl[c].write(SRC, v)
    chain = list(range(cards))
    call = cl.allreduce_async if every else cl.reduce_async
    # the fixed cost: a 64-byte one on the same cards (the host's writes, the pipeline's fill,
    # the completion records' way to host memory), so that the steady rate can be told apart from it
    cl.run(int(cl.sim.clock_mhz * 5))
    fixed = call(chain, SRC, 64, dst=DST, dtype=dtype).wait()
    cl.run(int(cl.sim.clock_mhz * 5))
    t0 = time.time()
    h = call(chain, SRC, nbytes, dst=DST, dtype=dtype)
    cycles = h.wait()
    wall = time.time() - t0
    want = vecs[0].copy()
    with np.errstate(over="ignore"):
        for v in vecs[1:]:
            want = want + v
    for c in chain if every else [chain[-1]]:
        got = np.frombuffer(cl[c].read(DST, nbytes), np.uint32)
        assert np.array_equal(got, want.view(np.uint32)), (gbps, cards, dtype, every, c)
    gb = nbytes * 8 / cl.ns(cycles)
    return {"line_gbps": gbps, "cards": cards, "dtype": dtype, "op": "allreduce" if every else "sum",
            "bytes": nbytes, "cycles": cycles, "gbps": round(gb, 2), "of_line": round(gb / gbps, 4),
            "fixed_cycles": fixed, "steady_gbps": round(nbytes * 8 / cl.ns(cycles - fixed), 2),
            "stalls": [(c["in_stalls"], c["out_stalls"]) for c in h.cards],
            "old_40g_gbps": OLD_40G["allreduce" if every else "sum"].get(cards) if gbps == 40 else None,
            "card_cycles_per_s": round(cards * cycles / wall), "wall_s": round(wall, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rates", type=int, nargs="+", default=[40, 100])
    ap.add_argument("--cards", type=int, nargs="+", default=[2, 4, 8])
    ap.add_argument("--dtypes", nargs="+", default=["u32", "f32"])
    ap.add_argument("--bytes", type=int, default=1 << 20)
    ap.add_argument("--build", type=Path, help="folder of the card builds (default: a temporary one)")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    where = a.build or Path(tempfile.mkdtemp(prefix="reduce_rate_"))
    rows = []
    print("| line | cards | type | op | rate (host) | of the line | steady rate | of the line | word unit (40 Gb/s) |"
          " CIRCUS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for gbps in a.rates:
        built = card(gbps, where)
        for cards in a.cards:
            for dtype in a.dtypes:
                for every in (False, True):
                    r = measure(built, gbps, cards, dtype, every, a.bytes)
                    rows.append(r)
                    old = f"{r['old_40g_gbps']:.2f} Gb/s" if r["old_40g_gbps"] else "--"
                    print(f"| {gbps} Gb/s | {cards} | {dtype} | {r['op']} | {r['gbps']:.2f} Gb/s | "
                          f"{100 * r['of_line']:.1f} % | {r['steady_gbps']:.2f} Gb/s | "
                          f"{r['steady_gbps'] / gbps:.1%} | {old} | {CIRCUS_GBPS} Gb/s |", flush=True)
    if a.json:
        a.json.write_text(json.dumps({"card_mhz": 200, "cable_ns": 200, "src": SRC, "dst": DST, "runs": rows},
                                     indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
