"""LBM grid set-up on the host (docs/lbm.md, "Where the code lives"): spgen.lbm's grid
calls on a large grid, best of N runs each, and a digest of the records (equal digests:
the same bytes, whatever implementation made them).

    python benchmarks/lbm_grid_setup.py [--size 1024] [--repeat 5]
"""
from __future__ import annotations

import argparse
import hashlib
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=1024, help="grid width and height")
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args(argv)
    n = a.size
    attr = lbm.cavity(n, n)                       # the first call builds the runtime if needed
    f = lbm.initial_f(attr)
    rec = lbm.to_records(f, attr)
    calls = {
        "cavity": lambda: lbm.cavity(n, n),
        "channel": lambda: lbm.channel(n, n),
        "initial_f": lambda: lbm.initial_f(attr),
        "to_records": lambda: lbm.to_records(f, attr),
        "from_records": lambda: lbm.from_records(rec, n),
        "macroscopic": lambda: lbm.macroscopic(f, attr),
        "to_records(initial_f(cavity))": lambda: lbm.to_records(lbm.initial_f(g := lbm.cavity(n, n)), g),
    }
    print(f"{n} x {n} grid, best of {a.repeat}, {cpu_name()}")
    for name, fn in calls.items():
        print(f"  {name:32s} {best_ms(fn, a.repeat):8.2f} ms")
    ch = lbm.channel(n, n)
    digest = hashlib.sha256(lbm.to_records(lbm.initial_f(ch), ch).tobytes()).hexdigest()[:16]
    print(f"  channel records sha256 {digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
