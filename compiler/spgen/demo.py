"""`make demo`: the project's main job: compile every core, `spgen bench lbm` (cascades 1-12 on
one card, hard floating point) and their Arria 10 fit, then the LBM core across 1, 2 and 4
simulated cards."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ._design import compile
from ._diagnostics import SpgenError
from ._paths import checkout_root, cores_dir

__all__ = ["main"]


def main() -> int:
    root = cores_dir()
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
    if status:
        return status
    # The LBM benchmark on the simulated card: the published cascades of 1 to 12 cores, with
    # the fast core model (cycle-identical to the RTL cores, spgen build --core-model).
    out = (checkout_root() or Path.cwd()) / "out"  # an installed package's folder may be read-only
    out.mkdir(exist_ok=True)
    # The cores as a PAC would build them: f32 add, sub and mul in the hard FP DSP blocks.
    print("\nspgen bench lbm --hard-fp --cascade 1,2,4,8,12 --grid 32x410 (first run builds the "
          "simulated cards)")
    status = _spgen(["bench", "lbm", "--hard-fp", "--cascade", "1,2,4,8,12", "--grid", "32x410",
                       "--json", str(out / "lbm_bench.json"), "--plot", str(out / "lbm_bench.png")])
    if status:
        return status
    # Do those AFUs fit the PAC? Arria 10 resources and a timing estimate from Yosys.
    print("\nspgen bench lbm --resources --hard-fp --cascade 1,2,4,8,12 (first run maps the "
          "modules, a few minutes)")
    status = _spgen(["bench", "lbm", "--resources", "--hard-fp", "--cascade", "1,2,4,8,12",
                       "--grid", "32x410", "--json", str(out / "lbm_resources.json")])
    if status:
        return status
    # The same core across a line of simulated cards joined by 40 Gb/s links: each card a slab
    # of 410 rows, halos exchanged by RDMA after every pass (weak scaling, docs/lbm.md).
    print("\nspgen bench lbm --cards 1,2,4 --cascade 2 --scaling weak (LBM slabs across cards)")
    return _spgen(["bench", "lbm", "--cards", "1,2,4", "--mode", "slabs", "--cascade", "2",
                     "--grid", "32x410", "--scaling", "weak", "--passes", "4",
                     "--json", str(out / "lbm_cards_bench.json"),
                     "--plot", str(out / "lbm_cards_bench.png")])


def _spgen(argv: list[str]) -> int:
    """Runs `spgen ARGV` as a user would type it (this interpreter's spgen)."""
    return subprocess.run([sys.executable, "-m", "spgen", *argv], check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
