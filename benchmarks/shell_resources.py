"""Resource estimates of the AFU shell by Intel ALM synthesis (Debian yosys), beside the published DMAC.

`yosys synth_intel_alm -family cyclone10gx -noflatten` of `afu_top` (loop-back, and a
one-core cascade with a pass-through core for the record width given); the cells of
every instance are summed per shell block. ALMs are estimated as
max(LUT6 + ceil(smaller LUTs / 2) + ceil(arithmetic LUTs / 2), ceil(FFs / 4)); block
RAMs are the M20K blocks yosys infers. Prints a table and writes
benchmarks/results/shell_resources.json.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHELL = ROOT / "shell"
OUT = ROOT / "benchmarks" / "results" / "shell_resources.json"

# blocks of the published TX + RX DMAC with its width converters; the others it has not
DMAC = ("shell_tx_dma", "shell_rx_dma", "shell_word_unpack", "shell_word_pack", "shell_span_pack",
        "shell_width_up", "shell_width_down", "shell_fifo", "shell_dma_status")


def in_dmac(block: str) -> bool:
    return block.split(" (")[0] in DMAC
PUBLISHED = {"alms": 2910, "registers": 3055, "block_memory_bits": 135040, "m20k": 27}
SMALL = ("MISTRAL_ALUT2", "MISTRAL_ALUT3", "MISTRAL_ALUT4", "MISTRAL_ALUT5", "MISTRAL_NOT")


def _cells(block: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^\s+(MISTRAL_\w+|altsyncram)\s+(\d+)", block, re.MULTILINE)}


def alm_row(cells: dict[str, int]) -> dict[str, int]:
    """LUT6, smaller and arithmetic LUTs, FFs, block RAMs and the ALM estimate of a cell count."""
    lut6, small = cells.get("MISTRAL_ALUT6", 0), sum(cells.get(k, 0) for k in SMALL)
    arith, ffs = cells.get("MISTRAL_ALUT_ARITH", 0), cells.get("MISTRAL_FF", 0)
    alms = max(lut6 + math.ceil(small / 2) + math.ceil(arith / 2), math.ceil(ffs / 4))
    return {"lut6": lut6, "small_luts": small, "arith_luts": arith, "ffs": ffs,
            "m20k": cells.get("altsyncram", 0), "mlab": cells.get("MISTRAL_MLAB", 0), "alms": alms}


def synth(params: dict[str, int], work: Path) -> dict[str, dict[str, int]]:
    """Cells per shell block (module name without its parameter hash), summed over instances."""
    files = sorted(SHELL.glob("*.v")) + [SHELL / "passthrough" / "afu_cores.v"]
    ch = "".join(f"chparam -set {k} {v} afu_top; " for k, v in params.items())
    script = (f"read_verilog -sv -I {SHELL} {' '.join(map(str, files))}; {ch}"
              "synth_intel_alm -family cyclone10gx -top afu_top -noflatten; tee -o stat.txt stat")
    proc = subprocess.run(["yosys", "-q", "-p", script], cwd=work, check=False, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"yosys failed:\n{proc.stderr[-3000:]}")
    text = (work / "stat.txt").read_text()
    parts = re.split(r"^=== (.+?) ===$", text, flags=re.MULTILINE)
    per_module = {parts[i]: _cells(parts[i + 1]) for i in range(1, len(parts), 2)}
    tree = parts[-1].split("\n\n")[1] if "design hierarchy" in parts[-2] else ""
    blocks: dict[str, dict[str, int]] = {}
    stack: list[tuple[int, str]] = []
    for line in tree.splitlines():
        m = re.match(r"^(\s+)(\S+)\s+\d+$", line)
        if not m:
            continue
        depth, module = len(m.group(1)), m.group(2)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        # "$paramod$<hash>\\name" or "$paramod\\name\\PARAM=value": the name follows $paramod
        parts = module.split("\\")
        name = parts[1] if len(parts) > 1 else parts[0]
        # a FIFO belongs to the block around it (the descriptor queue's is not the DMAC's);
        # an engine's parts are named after it, its descriptor front end's glue is the engine's
        # own and the front end's parts are the engine's parts
        parent = stack[-1][1] if stack else ""
        engine = stack[-2][1] if parent == "shell_dma_front" and len(stack) > 1 else parent
        owner = name
        if name == "shell_fifo" and parent == "shell_desc_queue" or name == "shell_dma_front" and parent in ("shell_tx_dma", "shell_rx_dma"):
            owner = parent
        elif engine in ("shell_tx_dma", "shell_rx_dma") and name != "shell_desc_queue":
            owner = f"{name} ({engine[6:8].upper()})"
        stack.append((depth, name))
        acc = blocks.setdefault(owner, {})
        for k, v in per_module.get(module, {}).items():
            acc[k] = acc.get(k, 0) + v
    return blocks


def measure(name: str, params: dict[str, int]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        blocks = synth(params, Path(tmp))
        took = round(time.perf_counter() - t0, 1)
    rows = {b: alm_row(c) for b, c in sorted(blocks.items()) if alm_row(c)["alms"] or alm_row(c)["m20k"]}
    groups = {}
    for group, member in (("dmac", in_dmac), ("other", lambda b: not in_dmac(b))):
        total: dict[str, int] = {}
        for b, c in blocks.items():
            if member(b):
                for k, v in c.items():
                    total[k] = total.get(k, 0) + v
        groups[group] = alm_row(total)
    return {"config": name, "params": params, "blocks": rows, "dmac": groups["dmac"],
            "other": groups["other"], "synth_s": took}


def table(r: dict) -> str:
    head = f"{'block':<26} {'LUT6':>6} {'<6 LUT':>7} {'arith':>6} {'FFs':>6} {'ALMs':>6} {'M20K':>5}"
    lines = [f"{r['config']} {r['params']}", head]

    def row(n: str, x: dict) -> str:
        return (f"{n:<26} {x['lut6']:>6} {x['small_luts']:>7} {x['arith_luts']:>6} {x['ffs']:>6} "
                f"{x['alms']:>6} {x['m20k']:>5}")
    lines += [row(b, x) for b, x in r["blocks"].items()]
    lines.append(row("TX+RX DMAC+converters", r["dmac"]))
    lines.append(row("other shell blocks", r["other"]))
    lines.append(f"published TX+RX DMAC: {PUBLISHED['alms']} ALMs, {PUBLISHED['m20k']} M20K")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record-words", type=int, default=10, help="record width of the cascade (10: LBM)")
    ap.add_argument("blocks", nargs="*", help="only these blocks' rows (e.g. shell_p2p_ctrl)")
    args = ap.parse_args()
    if not shutil.which("yosys"):
        sys.exit("error: yosys is not installed (apt-get install yosys)")
    results = [measure("loop-back", {"N_CORES": 0}),
               measure(f"cascade of 1 pass-through core, {args.record_words}-word records",
                       {"N_CORES": 1, "RECORD_WORDS": args.record_words,
                        "OUT_RECORD_WORDS": args.record_words})]
    for r in results:
        shown = {b: x for b, x in r["blocks"].items()
                 if not args.blocks or any(b.endswith(n) for n in args.blocks)}
        print(table({**r, "blocks": shown}) + "\n")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"tool": "yosys synth_intel_alm -family cyclone10gx -noflatten",
                               "published_dmac": PUBLISHED, "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
