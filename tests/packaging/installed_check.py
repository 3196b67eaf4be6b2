"""Checks an installed spgen from its own interpreter (argument: an LBM build); prints JSON."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata

import numpy as np
from packaging.requirements import Requirement


def unmet_requirements() -> list[str]:
    """The wheel's install requirements that the interpreter's packages do not satisfy."""
    unmet = []
    for text in metadata.requires("spgen") or []:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        try:
            have = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            unmet.append(f"{req} (missing)")
            continue
        if not req.specifier.contains(have, prereleases=True):
            unmet.append(f"{req} (have {have})")
    return unmet


def dma_round_trip() -> bool:
    """H2F then F2H of 64 KiB on the loop-back card through the Python bindings."""
    from spgen import runtime

    with runtime.open("loopback") as card:
        n = 1 << 16
        src, dst = card.alloc(n), card.alloc(n)
        src[:] = np.random.default_rng(0).integers(0, 256, n, dtype=np.uint8)
        card.dma(0, src, n, "H2F")
        card.dma(dst, 0, n, "F2H")
        return bool(np.array_equal(src, dst))


def native_example() -> str:
    """The runtime's C++ example (built by CMake from the package's copy) on the loop-back card."""
    from spgen import runtime
    from spgen.runtime._build import runtime_dir

    env = dict(os.environ, SPGEN_LOOPBACK_CARD=str(runtime.loopback_card()))
    exe = runtime_dir() / "dma_roundtrip"
    r = subprocess.run([str(exe), "sim:loopback", str(1 << 20)], env=env, capture_output=True,
                       text=True, timeout=600, check=False)
    return r.stdout + r.stderr


def lbm_on_card(build: str) -> bool:
    """Four LBM steps on the simulated card of `build` (`spgen build` of the LBM core, W = 32,
    cascade of 2) equal the emulator's bits, and the flow moved."""
    from spgen import lbm

    attr = lbm.cavity(32, 12)
    attr[5, 9] = lbm.WALL
    rng = np.random.default_rng(1)
    f = (lbm.initial_f(attr) * (1 + 0.02 * rng.standard_normal((9, 12, 32)))).astype(np.float32)
    regs = {"omega": 1.3, "uw": (0.07, 0.01)}
    got, _ = lbm.run_card(build, f, attr, 4, **regs)
    want = lbm.run_emulator(lbm.compile_core(32), f, attr, 4, **regs)
    moved = bool(np.abs(want - f).max() > 1e-4)
    return moved and bool(np.array_equal(got.view(np.uint32), want.view(np.uint32)))


def main() -> int:
    import spgen
    from spgen import _paths
    from spgen.runtime import rdma
    from spgen.runtime._build import repo_root, shell_sources

    found = {
        "spgen": spgen.__file__,
        "version": spgen.__version__,
        "data_root": str(_paths.data_root()),
        "repo_root": str(repo_root()),
        "checkout_root": _paths.checkout_root() and str(_paths.checkout_root()),
        "sys_path": sys.path,
        "unmet": unmet_requirements(),
        "missing": [str(p) for p in [*shell_sources(), *rdma.rtl_sources(), *rdma.rtl_includes()]
                    if not p.is_file()],
        "cores": sorted(str(p.relative_to(_paths.cores_dir()))
                        for p in _paths.cores_dir().rglob("*.spd")),
    }
    found["dma"] = dma_round_trip()
    found["native"] = native_example()
    found["lbm"] = lbm_on_card(sys.argv[1])
    print(json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
