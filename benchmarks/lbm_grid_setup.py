"""LBM grid set-up on the host (docs/lbm.md, "Where the code lives"): spgen.lbm's grid
calls on a large grid, best of N runs each, and a digest of the records (equal digests:
the same bytes, whatever implementation made them). --baseline runs another version of
spgen/lbm/_grid.py beside it, call for call, and checks that both give the same bytes.

    python benchmarks/lbm_grid_setup.py [--size 1024] [--repeat 5]
    git show REV:compiler/spgen/lbm/_grid.py > /tmp/grid_rev.py
    python benchmarks/lbm_grid_setup.py --baseline /tmp/grid_rev.py
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import time

from machine import cpu_name  # this folder's: how every benchmark names the CPU
from spgen import lbm


def best_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3


def load_baseline(path: str):
    """Another _grid.py as a module of spgen.lbm, so that its relative imports resolve."""
    spec = importlib.util.spec_from_file_location("spgen.lbm._grid_baseline", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=1024, help="grid width and height")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--baseline", help="another version of spgen/lbm/_grid.py to time beside this one")
    a = p.parse_args(argv)
    n = a.size
    impls = {"spgen.lbm": lbm}
    if a.baseline:
        impls = {"baseline": load_baseline(a.baseline), **impls}
    data = {}
    for name, m in impls.items():
        attr = m.cavity(n, n)                     # the first call builds the runtime if needed
        f = m.initial_f(attr)
        data[name] = (attr, f, m.to_records(f, attr))
    calls = {
        "cavity": lambda m, d: m.cavity(n, n),
        "channel": lambda m, d: m.channel(n, n),
        "initial_f": lambda m, d: m.initial_f(d[0]),
        "to_records": lambda m, d: m.to_records(d[1], d[0]),
        "from_records": lambda m, d: m.from_records(d[2], n),
        "macroscopic": lambda m, d: m.macroscopic(d[1], d[0]),
        "to_records(initial_f(cavity))": lambda m, d: m.to_records(m.initial_f(g := m.cavity(n, n)), g),
    }
    print(f"{n} x {n} grid, best of {a.repeat} (ms), {cpu_name()}")
    print(f"  {'call':32s}" + "".join(f"{k:>14s}" for k in impls))
    for call, fn in calls.items():
        ms = [best_ms(lambda m=m, d=data[k], fn=fn: fn(m, d), a.repeat) for k, m in impls.items()]
        print(f"  {call:32s}" + "".join(f"{t:14.2f}" for t in ms))
    digests = set()
    for m in impls.values():
        ch = m.channel(n, n)
        digests.add(hashlib.sha256(m.to_records(m.initial_f(ch, 1.3), ch).tobytes()).hexdigest()[:16])
        f, a_ = m.from_records(data["spgen.lbm"][2], n)
        digests.add(hashlib.sha256(f.tobytes() + a_.tobytes()).hexdigest()[:16])
    print(f"  digests of a channel's records and of from_records: {sorted(digests)}")
    if a.baseline:
        import numpy as np
        f = data["spgen.lbm"][1] * (1 + 0.02 * np.random.default_rng(1).standard_normal((9, n, n)))
        ch = lbm.channel(n, n)
        got = [m.macroscopic(f.astype(np.float32), ch) for m in impls.values()]
        with np.errstate(invalid="ignore", divide="ignore"):   # 0/0 where both are 0
            diff = max(float(np.nanmax(np.abs(x - y) / np.abs(y))) for x, y in zip(*got))
        print(f"  macroscopic of a perturbed channel: max relative difference {diff:.3g}")
    if a.baseline and len(digests) != 2:
        print("  MISMATCH: the implementations give different bytes")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
