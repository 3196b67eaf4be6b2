"""`spgen bench dma --quick` on bare metal and in the Singularity image, side by side.

Runs alternate (bare, image, bare, image, ...) so both see the same machine load; the
median of every measured field per (type, size) goes to one JSON file per side, and
`spgen container compare` prints the table. The image runs through
`spgen container exec` (Apptainer when installed, else the built-in chroot runner).

    python benchmarks/container_dma.py spgen.sif --runs 5 --out benchmarks/results/container_dma
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

SPGEN = [sys.executable, "-m", "spgen"]


def _median_file(files: list[Path], dest: Path) -> None:
    docs = [json.loads(f.read_text()) for f in files]
    out = []
    for i, rec in enumerate(docs[0]["records"]):
        row = dict(rec)
        for k, v in rec.items():
            if isinstance(v, (int, float)) and k not in ("bytes", "reps"):
                row[k] = statistics.median(d["records"][i][k] for d in docs)
        out.append(row)
    dest.write_text(json.dumps({"benchmark": "dma", "key": docs[0]["key"], "records": out,
                                "runs": len(docs),
                                "wall_s": [d["wall_s"] for d in docs]}, indent=1) + "\n")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("image")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path("container-dma"))
    p.add_argument("--image-cache", default=None, metavar="DIR",
                   help="SPGEN_CACHE of the image's runs (default: the caller's, which the "
                        "image sees through the bound $HOME)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    bench = ["bench", "dma", "--quick", "--no-progress", "--json"]
    runs: dict[str, list[Path]] = {"bare": [], "image": []}
    for i in range(args.runs):
        for side, files in runs.items():
            f = args.out / f"dma-{side}-{i}.json"
            cmd = [*SPGEN, *bench, str(f)] if side == "bare" else \
                [*SPGEN, "container", "exec", args.image, "--", "spgen", *bench, str(f.resolve())]
            env = dict(os.environ)
            if side == "image" and args.image_cache:
                env["SPGEN_CACHE"] = args.image_cache
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
            files.append(f)
            print(f"run {i + 1}/{args.runs} {side}: done", file=sys.stderr, flush=True)
    for side, files in runs.items():
        _median_file(files, args.out / f"dma-{side}-median.json")
    table = subprocess.run([*SPGEN, "container", "compare", str(args.out / "dma-bare-median.json"),
                            str(args.out / "dma-image-median.json"), "--fields", "gbps"],
                           capture_output=True, text=True, check=True).stdout
    (args.out / "compare.txt").write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
