"""1 against 4 MPI ranks on 8 RTL cards (a ring, 40 Gb/s links, 1e-3 packet errors and drops, a
link down for 2 us): a pipeline through all 8 cards' cascades (rdma-mpi-stream; the rec10 test
core, 2 per card: 16 cores) and an allreduce along all 8 cards (rdma-mpi-rtl, after its puts and
gets). Prints per run the cycles, whether the outputs of 1 and 4 ranks are identical byte for
byte, whether the pipeline's output is the emulator's, and the wall time; --json writes them.

    python benchmarks/rdma/mpi_ranks.py [--records 4000] [--reduce-words 16384] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import spgen
from spgen.lbm._cards_mpi import mpirun_env
from spgen.runtime import rdma
from spgen.runtime._mpi_stream import fnv1a64, run_mpi_stream, stream_input

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from machine import cpu_name  # the machine's CPU, as the other benchmarks name it

REC10 = ROOT / "tests" / "shell" / "data" / "rec10.spd"
FAULTS = {"seed": 5, "faults": {"per": 1e-3, "drop": 1e-3}, "link_faults": [{"link": 3, "down": [[4000, 6000]]}]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=4000)
    ap.add_argument("--reduce-words", type=int, default=16384)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    rec10, link2 = ROOT / "build" / "rec10_l2", ROOT / "build" / "link2"
    # built every time (cached by content), so the folders never hold an older tree's RTL
    spgen.build(REC10, rec10, cascade=2, links=2)
    spgen.build(None, link2, links=2)
    rows = []
    # the pipeline of 8 cards
    cluster = {"topology": "ring", "dims": [8], "card": str(rec10), **FAULTS}
    step = f"stream:{'-'.join(str(c) for c in range(8))}:{a.records}"
    runs = {}
    for ranks in (1, 4):
        t0 = time.time()
        runs[ranks] = run_mpi_stream(cluster, [step], ranks=ranks)
        runs[ranks]["wall"] = time.time() - t0
    d = spgen.compile(REC10)
    s = runs[1]["steps"][0]
    exact = fnv1a64(np.ascontiguousarray(d.emulate(stream_input(2, a.records * 10).view(d.input_dtype()),
                                                   steps=16)).tobytes()) == s["output_fnv"]
    same = runs[1]["stdout"] == runs[4]["stdout"]
    rows.append({"what": f"pipeline of 8 cards, 16 cores, {a.records} records of 40 B", "cycles": s["cycles"],
                 "end_cycle": runs[1]["end_cycle"], "identical": same, "exact": bool(exact),
                 "wall_s": {r: round(runs[r]["wall"], 1) for r in runs},
                 "card_cycles_per_s": {r: runs[r]["speed"]["all"]["card_cycles_per_s"] for r in runs}})
    # the allreduce on 8 cards (after rdma-mpi-rtl's puts and gets: 1 operation per card)
    exe = rdma.build_mpi_rtl_tool()
    path = ROOT / "build" / "mpi_ranks_ring8.json"
    path.write_text(json.dumps({"topology": "ring", "dims": [8], "card": str(link2), **FAULTS}))
    outs, walls = {}, {}
    for ranks in (1, 4):
        t0 = time.time()
        p = subprocess.run(["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "none", str(exe), str(path),
                            "1", "5", str(a.reduce_words)], capture_output=True, text=True, env=mpirun_env(),
                           check=False)
        if p.returncode:
            print(p.stdout[-2000:] + p.stderr[-2000:], file=sys.stderr)
            return 1
        outs[ranks], walls[ranks] = p.stdout, round(time.time() - t0, 1)
    red = [ln for ln in outs[1].splitlines() if ln.startswith(("reduce u32", "allreduce f32"))]
    for ln in red:
        issued, done = int(ln.split(" issued ")[1].split()[0]), int(ln.split(" done ")[1].split(",")[0])
        rows.append({"what": ln.split(":")[0] + f", {a.reduce_words} words", "cycles": done - issued,
                     "end_cycle": done, "identical": outs[1] == outs[4],
                     "exact": "reduction results: 0 wrong words" in outs[1], "wall_s": walls})
    print(f"1 vs 4 MPI ranks, 8 RTL cards (ring, 40 Gb/s, PER 1e-3 + drops 1e-3, link 3 down 2 µs); {cpu_name()}; "
          f"{time.strftime('%Y-%m-%d')}")
    print("| run | cycles | 1 rank = 4 ranks (stdout, byte for byte) | result exact | wall 1 / 4 ranks |")
    print("|---|---:|---|---|---|")
    for r in rows:
        print(f"| {r['what']} | {r['cycles']:,} | {'yes' if r['identical'] else 'NO'} | "
              f"{'yes' if r['exact'] else 'NO'} | {r['wall_s'][1]} s / {r['wall_s'][4]} s |")
    if a.json:
        a.json.write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "machine": cpu_name(), "rows": rows},
                                     indent=1) + "\n")
    return 0 if all(r["identical"] and r["exact"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
