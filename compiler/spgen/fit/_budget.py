"""Recorded budgets per module (budgets.json): a module that grows past its budget fails a test.

`python -m spgen.fit._budget [--update]` measures every entry (and rewrites the file)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ._alm import Resources, resources
from ._yosys import Sources, is_hard_fp, map_unit

__all__ = ["BUDGETS", "KEYS", "load", "measure", "violations"]

BUDGETS = Path(__file__).with_name("budgets.json")
KEYS = ("alms", "m20k", "dsps", "lut_levels")


def load() -> dict[str, dict]:
    return json.loads(BUDGETS.read_text())["modules"]


def _sources(library: str) -> Sources:
    if library == "oplib":  # an operator: flattened with the cores it instantiates
        from .. import oplib

        src = Sources()
        src.add_files(oplib.rtl_files())
        src.inline = set(src.modules)
        return src
    from .. import oplib
    from ..shellgen._csr import SHELL_DIR

    src = Sources(include_dirs=[SHELL_DIR])
    src.add_files(sorted(SHELL_DIR.glob("*.v")) + sorted(SHELL_DIR.glob("rdma/*.v"))
                  + sorted(SHELL_DIR.glob("rdma/afu/*.v")))
    src.add_files(oplib.rtl_files())  # the reduction unit's f32 adders (black boxes there)
    return src


def measure(name: str, entry: dict) -> dict[str, int]:
    """The module's own figures (its child modules are black boxes with budgets of their own)."""
    u = map_unit(_sources(entry["library"]), entry["module"], entry.get("params", {}))
    hard = sum(ch["count"] for ch in u["children"] if is_hard_fp(ch["module"]))
    r = (resources(u["cells"], u["memories"]) + Resources(dsps=hard, hard_fp=hard)).to_json()
    return {"alms": r["alms"], "m20k": r["m20k"], "dsps": r["dsps"],
            "lut_levels": u["timing"]["lut_levels"], "cached": u["cached"]}


def violations(name: str, measured: dict, budget: dict) -> list[str]:
    return [f"{name}: {k} {measured[k]} > budget {budget[k]}"
            for k in KEYS if measured[k] > budget[k]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--update", action="store_true", help="record the measured figures")
    args = ap.parse_args()
    data = json.loads(BUDGETS.read_text())
    bad = []
    for name, entry in data["modules"].items():
        m = measure(name, entry)
        print(f"{name:<28} " + " ".join(f"{k} {m[k]:>6} / {entry.get(k, '-'):>6}" for k in KEYS))
        if args.update:
            entry.update({k: m[k] for k in KEYS})
        else:
            bad += violations(name, m, entry)
    if args.update:
        BUDGETS.write_text(json.dumps(data, indent=1) + "\n")
    for b in bad:
        print("over budget:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
