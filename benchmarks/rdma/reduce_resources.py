"""Resource figures of the line-wide reduction unit and the endpoint pairs it adds to a card, by
the hardware-fit flow (spgen.fit: Debian yosys, synth_intel_alm for Arria 10's ALM fabric, each
module's own cells with its children as black boxes; the operator library's f32 adders counted
as Arria 10 hard floating-point DSP blocks). Prints a table; --json writes the records."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "compiler"))
from spgen import oplib
from spgen.fit._alm import Resources, resources
from spgen.fit._budget import _sources
from spgen.fit._budget import measure as measure_entry
from spgen.fit._yosys import is_hard_fp, map_unit

# (name, module, parameters, instances per card)
PARTS = [
    ("rdma_reduce (control, lanes, u32 adders)", "rdma_reduce", {}, 1),
    ("spg_fadd (f32 adder in ALMs, one a lane)", "spg_fadd", {"FTZ": 0}, 16),
    ("shell_fifo (16 chunks of 519 bits)", "shell_fifo", {"DATA_WIDTH": 519, "FIFO_DEPTH": 16}, 1),
    ("rdma_stream_wide, 40 Gb/s (512 bits, 4,096-word buffer)", "rdma_stream_wide",
     {"LANES": 16, "RX_DEPTH": 4096}, 2),
    ("rdma_stream_wide, 100 Gb/s (1024 bits, 8,192-word buffer)", "rdma_stream_wide",
     {"LANES": 32, "RX_DEPTH": 8192}, 2),
    # last: 16 words in and out a cycle, banked by address, a long synthesis
    ("rdma_wbuf (read-ahead, 2,048 words)", "rdma_wbuf", {"DEPTH": 2048, "IN": 16, "OUT": 16}, 1),
]


def measure(module: str, params: dict) -> dict:
    """The module's own figures (children black boxes; hard FP adders as DSP blocks)."""
    if module.startswith("spg_"):  # an operator, flattened with its cores as budgets.json has it
        m = measure_entry(module, {"library": "oplib", "module": module, "params": params})
        return {k: m[k] for k in ("alms", "m20k", "dsps", "lut_levels")}
    src = _sources("shell")
    src.add_files(oplib.rtl_files())  # the unit's spg_fadd, a black box here
    u = map_unit(src, module, params)
    hard = sum(ch["count"] for ch in u["children"] if is_hard_fp(ch["module"]))
    r = (resources(u["cells"], u["memories"]) + Resources(dsps=hard, hard_fp=hard)).to_json()
    return {"alms": r["alms"], "m20k": r["m20k"], "dsps": r["dsps"], "lut_levels": u["timing"]["lut_levels"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    rows = []
    print("| part | per card | ALMs | M20K | DSPs (hard FP) | LUT levels |")
    print("|---|---|---|---|---|---|")
    for name, module, params, count in PARTS:
        m = measure(module, params)
        rows.append({"part": name, "module": module, "params": params, "per_card": count, **m})
        print(f"| {name} | {count} | {m['alms']:,} | {m['m20k']} | {m['dsps']} | {m['lut_levels']} |", flush=True)
        if a.json:  # after every part: the long ones may be cut short
            a.json.write_text(json.dumps({"flow": "spgen.fit (yosys synth_intel_alm, cyclone10gx)", "parts": rows},
                                         indent=1) + "\n")
    unit = [r for r in rows if r["module"] != "rdma_stream_wide"]
    total = {k: sum(r[k] * r["per_card"] for r in unit) for k in ("alms", "m20k", "dsps")}
    print(f"| the unit (rdma_reduce + its buffers) | 1 | {total['alms']:,} | {total['m20k']} | {total['dsps']} | |")
    if a.json:
        a.json.write_text(json.dumps({"flow": "spgen.fit (yosys synth_intel_alm, cyclone10gx)", "parts": rows,
                                      "unit": total}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
