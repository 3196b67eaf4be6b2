"""`make demo`: the project's main job (compile every core in cores/ and print its report)."""
from __future__ import annotations

import sys
from pathlib import Path

from ._design import compile
from ._diagnostics import SpgenError

__all__ = ["main"]


def main() -> int:
    root = Path(__file__).resolve().parents[2] / "cores"
    cores = sorted(root.rglob("*.spd"))
    if not cores:
        print(f"no cores under {root}", file=sys.stderr)
        return 1
    status = 0
    for path in cores:
        try:
            d = compile(path)
        except SpgenError as e:
            print(f"{path}: {e}", file=sys.stderr)
            status = 1
            continue
        f = d.graph.flops()
        print(f"{path.relative_to(root.parent)}: module {d.name}, {len(d.graph.nodes)} nodes, "
              f"{f['total']} FLOPs/element (add {f['add']}, mul {f['mul']}, div {f['div']}, "
              f"sqrt {f['sqrt']})")
    return status


if __name__ == "__main__":
    sys.exit(main())
