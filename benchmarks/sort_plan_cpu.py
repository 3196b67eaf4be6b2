"""The sort's plan on a processor on the card, against the host (docs/sort.md, "Where the plan runs").

Between the count exchange and the scatter, the distributed sort computes its plan: from
every card's counts, where each card's keys go (afushell/sort_plan.h). The host computes it;
this benchmark runs the same code on the processor a card would need for it, a PicoRV32
(rv32im, from the pythondata-cpu-picorv32 package, in its fastest configuration: dual-ported
registers, barrel shifter, single-cycle multiplier, divider) beside a RAM that answers the
cycle after a request, simulated cycle by cycle in Verilator. The firmware
(benchmarks/sort_plan_cpu/fw.cpp) is compiled with Debian's riscv64-unknown-elf-g++ from the
host's own header. For each case the counts table comes from real keys (numpy): a card's
keys counted in the partition's 256 bins, as the sort's range or histogram pass counts them.
Every card's plan from the processor is checked against the host's (the testbench exits 1
on a difference); the host's time is the median of 201 runs of the same code.

    .venv/bin/python benchmarks/sort_plan_cpu.py [--cards 2,4,8] [--keys 262144] [--json F]

Prints a table; --json writes the figures (docs/sort_plan_cpu.json holds the published run).
Needs riscv64-unknown-elf-g++ (scripts/ensure-system-packages.sh installs it).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from machine import write_json  # this folder's
from spgen._tools import cache_dir, content_hash, locked, verilate_cached

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "benchmarks" / "sort_plan_cpu"
INCLUDE = ROOT / "runtime" / "sort" / "include"
HEADER = INCLUDE / "afushell" / "sort_plan.h"
CLOCK_MHZ = 200  # the card's clock
BINS = 256       # the partition's bins (sort_writer.hpp)
GXX = "riscv64-unknown-elf-g++"
# the inputs: keys over the whole range, skewed keys, and few key values (one a bin: the
# exact plan, which cuts bins at the cards' boundaries; 256 values fill every bin)
CASES = ("random uint32", "zipf uint32", "64 values", "256 values")


class BenchError(Exception):
    """A reason the benchmark cannot run, for the user."""


def picorv32() -> Path:
    try:
        import pythondata_cpu_picorv32 as pv  # type: ignore[import-not-found]
    except ImportError:
        raise BenchError("pythondata-cpu-picorv32 is missing: run `make .venv/.installed`") from None
    return Path(pv.data_location) / "picorv32.v"


def firmware() -> Path:
    """fw.cpp for rv32im, once per content (the build cache's sort_plan_cpu folder)."""
    gxx = shutil.which(GXX)
    if not gxx:
        raise BenchError(f"{GXX} is missing: run scripts/ensure-system-packages.sh")
    srcs = [HERE / "start.S", HERE / "fw.cpp", HERE / "link.ld", HEADER]
    out = cache_dir("sort_plan_cpu") / f"fw-{content_hash(*[p.read_bytes() for p in srcs])}.bin"
    with locked(out.with_suffix(".lock")):
        if not out.is_file():
            with tempfile.TemporaryDirectory() as tmp:
                elf = Path(tmp) / "fw.elf"
                subprocess.run([gxx, "-march=rv32im", "-mabi=ilp32", "-O2", "-std=c++17", "-ffreestanding",
                                "-fno-exceptions", "-fno-rtti", "-nostdlib", "-nostartfiles", f"-I{INCLUDE}",
                                "-T", str(HERE / "link.ld"), str(HERE / "start.S"), str(HERE / "fw.cpp"),
                                "-lgcc", "-o", str(elf)], check=True)
                subprocess.run([gxx.replace("g++", "objcopy"), "-O", "binary", str(elf), str(out)], check=True)
    return out


def testbench() -> Path:
    return verilate_cached(
        "sort_plan_cpu", "plan_cpu", "plan_cpu",
        [HERE / "plan_cpu.v", picorv32(), HERE / "tb.cpp"],
        ["--public-flat-rw", "-Wno-fatal", "-Wno-lint", "-Wno-style", "-GRAM_BITS=18",
         "-CFLAGS", f"-std=c++17 -I{INCLUDE}"],
        deps=[HEADER])


def table_of(case: str, cards: int, keys: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """Every card's counts [card, bin] of `keys` keys a card, and whether the plan is exact
    (a bin is one key value), as sort_on_cards counts them."""
    if case == "random uint32":  # the full range: bins by the top byte, not exact
        bins = [rng.integers(0, 2**32, keys, dtype=np.uint64) >> np.uint64(24) for _ in range(cards)]
        exact = False
    elif case == "zipf uint32":  # skewed: most keys in few bins; (key - lo) >> shift below 256
        ks = [np.minimum(rng.zipf(1.3, keys), 2**32 - 1).astype(np.uint64) for _ in range(cards)]
        lo, hi = min(int(k.min()) for k in ks), max(int(k.max()) for k in ks)
        shift = max(0, (hi - lo).bit_length() - 8)
        bins = [(k - np.uint64(lo)) >> np.uint64(shift) for k in ks]
        exact = shift == 0
    else:  # "64 values" (OPTWEB's keys) or "256 values": one value a bin
        bins = [rng.integers(0, int(case.split()[0]), keys) for _ in range(cards)]
        exact = True
    return np.stack([np.bincount(b.astype(np.int64), minlength=BINS)[:BINS] for b in bins]).astype(np.uint32), exact


def run(cards: list[int], keys: int, cases: list[str]) -> list[dict]:
    fw, tb = firmware(), testbench()
    rng = np.random.default_rng(2026)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            for n in cards:
                table, exact = table_of(case, n, keys, rng)
                path = Path(tmp) / "table.bin"
                table.tofile(path)
                r = subprocess.run([str(tb), str(fw), str(path), str(n), str(BINS), str(int(exact))],
                                   capture_output=True, text=True, check=False)
                if r.returncode:
                    raise BenchError(f"{case}, {n} cards: {r.stderr.strip() or r.stdout.strip()}")
                row = json.loads(r.stdout)
                cyc = row["cpu_shared_cycles"] + row["cpu_card_cycles"]
                ins = row["cpu_shared_instructions"] + row["cpu_card_instructions"]
                row.update(case=case, keys_per_card=keys, cpu_cycles=cyc, cpu_instructions=ins,
                           cpi=cyc / ins, cpu_us=cyc / CLOCK_MHZ, cpu_us_at_1_cpi=ins / CLOCK_MHZ,
                           host_us_one_card=row["host_ns_one_card"] / 1e3,
                           host_us_all_cards=row["host_ns_all_cards"] / 1e3,
                           cpu_over_host=cyc / CLOCK_MHZ / (row["host_ns_one_card"] / 1e3), same=True)
                rows.append(row)
    return rows


def print_table(rows: list[dict]) -> None:
    print("| keys | cards | exact | processor: cycles (instructions, CPI) | processor µs at "
          f"{CLOCK_MHZ} MHz | at 1 CPI µs | host µs: one card (all cards) | processor / host | same plan |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['cards']} | {'yes' if r['exact'] else 'no'} | {r['cpu_cycles']:,} "
              f"({r['cpu_instructions']:,}, {r['cpi']:.2f}) | {r['cpu_us']:.1f} | {r['cpu_us_at_1_cpi']:.1f} | "
              f"{r['host_us_one_card']:.2f} ({r['host_us_all_cards']:.2f}) | {r['cpu_over_host']:.0f}x | "
              f"{'yes' if r['same'] else 'no'} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cards", default="2,4,8", help="card counts, comma-separated (default 2,4,8)")
    ap.add_argument("--keys", type=int, default=262144, help="keys a card (default 262144: 1 MiB of uint32)")
    ap.add_argument("--cases", default=",".join(CASES), help="inputs, comma-separated: " + ", ".join(CASES))
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args(argv)
    try:
        cards = [int(c) for c in a.cards.split(",")]
        if any(not 1 <= c <= 8 for c in cards) or a.keys < 1:
            raise ValueError
    except ValueError:
        print("error: --cards takes counts from 1 to 8, --keys a positive count", file=sys.stderr)
        return 2
    cases = [c.strip() for c in a.cases.split(",")]
    bad = [c for c in cases if c not in CASES]
    if bad:
        print(f"error: unknown case {bad[0]!r} ({', '.join(CASES)})", file=sys.stderr)
        return 2
    try:
        rows = run(cards, a.keys, cases)
    except (BenchError, subprocess.CalledProcessError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print_table(rows)
    if a.json:
        write_json(a.json, {"command": "benchmarks/sort_plan_cpu.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                            "clock_mhz": CLOCK_MHZ, "bins": BINS, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
