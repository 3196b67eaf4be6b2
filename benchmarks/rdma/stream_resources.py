"""Resources of the line-wide stream endpoints on the Arria 10 (Yosys 0.23, `synth_intel_alm -family
cyclone10gx`, the packing rule of docs/fit.md): `rdma_stream_wide` (the endpoint pair with its
receive buffer), `rdma_stream_bind` (records of the cascade onto the endpoints) and the stream
side's `rdma_local_mux` (by stream id), each with the parameters a 40 Gb/s (16 lanes, 512 bits)
and a 100 Gb/s (32 lanes, 1,024 bits) build gives it, for 10-word records; beside them the
word-wide endpoint (`rdma_stream`) that word-wide builds keep. Prints a table; --json writes
the reports' totals and per-module figures.

    python benchmarks/rdma/stream_resources.py [--json benchmarks/rdma/stream_resources.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from spgen.fit._report import design_report
from spgen.fit._yosys import Sources
from spgen.shellgen._csr import SHELL_DIR

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from machine import cpu_name  # the machine's CPU, as the other benchmarks name it

UNITS = [
    ("rdma_stream_wide", "40 Gb/s: 16 lanes, 4,096-word buffer", {"LANES": 16, "RX_DEPTH": 4096}),
    ("rdma_stream_wide", "100 Gb/s: 32 lanes, 8,192-word buffer", {"LANES": 32, "RX_DEPTH": 8192}),
    ("rdma_stream_bind", "40 Gb/s, 10-word records", {"LANES": 16, "IN_WORDS": 10, "OUT_WORDS": 10}),
    ("rdma_stream_bind", "100 Gb/s, 10-word records", {"LANES": 32, "IN_WORDS": 10, "OUT_WORDS": 10}),
    ("rdma_local_mux", "40 Gb/s, by stream id", {"LANES": 16, "BY_SID": 1}),
    ("rdma_local_mux", "100 Gb/s, by stream id", {"LANES": 32, "BY_SID": 1}),
    ("rdma_stream", "word-wide endpoint (before)", {}),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    src = Sources(include_dirs=[SHELL_DIR])
    src.add_files(sorted(SHELL_DIR.glob("*.v")) + sorted(SHELL_DIR.glob("rdma/*.v"))
                  + sorted(SHELL_DIR.glob("rdma/afu/*.v")))
    rows = []
    print("| module | parameters | ALMs | registers | M20K | block-memory bits | LUT levels, estimate | map time |")
    print("|---|---|---:|---:|---:|---:|---|---:|")
    for module, what, params in UNITS:
        t0 = time.time()
        rep = design_report(src, module, params, progress=False)
        t = rep["total"]
        worst = max((u["timing"] for u in rep["units"]), key=lambda x: x.get("delay_ns", 0))
        rows.append({"module": module, "what": what, "params": params, "total": t, "worst": worst,
                     "by_module": rep["by_module"], "seconds": round(time.time() - t0, 1)})
        print(f"| `{module}` | {what} | {t['alms']:,} | {t['ffs']:,} | {t['m20k']} | "
              f"{t['bram_bits']:,} | {worst.get('lut_levels')}, {worst.get('delay_ns', 0):.2f} ns | "
              f"{rows[-1]['seconds']} s |", flush=True)
    if a.json:
        a.json.write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "machine": cpu_name(), "yosys": "0.23",
                                      "family": "cyclone10gx", "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
