"""Parts shared by the benchmarks that sweep transfer sizes on a simulated card (`spgen bench
dma`, `spgen bench p2p`): sizes as users write them, the size list, card-parameter overrides,
the common options and the end of a run (result file, plot, exit code)."""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from .._diagnostics import SpgenError

__all__ = ["add_sweep_arguments", "card_params", "choices", "finish", "fmt_size", "parse_size",
           "repetitions", "sweep_sizes"]

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20,
          "MIB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30}


def parse_size(text: str) -> int:
    """'4', '64K', '1M', '2GiB' -> bytes."""
    m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).upper() not in _UNITS:
        raise SpgenError(f"bad size '{text}' (examples: 4, 64K, 16M, 1G)")
    return int(m.group(1)) * _UNITS[m.group(2).upper()]


def fmt_size(n: int) -> str:
    """Bytes as the largest whole binary unit: 65536 -> '64 KiB'."""
    for unit, v in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= v and n % v == 0:
            return f"{n // v} {unit}"
    return f"{n} B"


def card_params(items: list[str]) -> dict[str, str]:
    """The --param K=V overrides of the simulated card's parameters."""
    out = {}
    for it in items:
        if "=" not in it:
            raise SpgenError(f"--param expects K=V, got '{it}'")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def add_sweep_arguments(p: argparse.ArgumentParser, *, steps: str, reps: int, reps_how: str,
                        params_doc: str, plot: str) -> None:
    """The options every sweep takes: sizes, repetitions, card parameters, output files."""
    p.add_argument("--sizes", nargs="+", metavar="SIZE",
                   help=f"sizes in bytes (4, 64K, 1M, ...); default 4 B, {steps} to --max-size")
    p.add_argument("--max-size", default="64M", help="largest size of the default sweep (default 64M)")
    p.add_argument("--reps", type=int, default=reps, help=f"repetitions per point, {reps_how} (default {reps})")
    p.add_argument("--param", action="append", default=[], metavar="K=V",
                   help=f"override a simulated-card parameter ({params_doc}), repeatable")
    p.add_argument("--quick", action="store_true", help="a few small transfers, seconds not minutes")
    p.add_argument("--json", type=Path, help="write the results as JSON")
    p.add_argument("--plot", type=Path, help=f"write {plot} (PNG)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def sweep_sizes(args: argparse.Namespace, *, quick: list[int], factor: int, limit: int,
                beyond: str, with_max: bool) -> list[int]:
    """The sizes to measure: `quick` with --quick, else --sizes, else 4 B times powers of
    `factor` up to --max-size (and --max-size itself if `with_max`). Each a positive multiple
    of 4 bytes up to `limit`; `beyond` says why not more ("exceeds ...")."""
    if args.quick:
        return quick
    if args.sizes:
        sizes = sorted({parse_size(s) for s in args.sizes})
    else:
        top = parse_size(args.max_size)
        sizes = [4 * factor ** i for i in range(64) if 4 * factor ** i <= top]
        if with_max and top not in sizes:
            sizes.append(top)
    for s in sizes:
        if s <= 0 or s % 4:
            raise SpgenError(f"size {s} must be a positive multiple of 4 bytes")
        if s > limit:
            raise SpgenError(f"size {fmt_size(s)} {beyond}")
    return sizes


def choices(given: list[str], known: Iterable[str], what: str) -> list[str]:
    """`given` (case as in `known`), each checked against `known`: --types, --modes."""
    known = list(known)
    case = str.upper if all(k.isupper() for k in known) else str.lower
    out = [case(g) for g in given]
    for g in out:
        if g not in known:
            raise SpgenError(f"unknown {what} '{g}' ({', '.join(known)})")
    return out


def repetitions(args: argparse.Namespace, quick: int) -> int:
    """--reps, or `quick` with --quick."""
    reps = quick if args.quick else args.reps
    if reps < 1:
        raise SpgenError("--reps must be at least 1")
    return reps


def finish(name: str, args: argparse.Namespace, records: list[dict], doc: dict,
           plot: Callable[[Path], None]) -> int:
    """Writes `doc` to --json and the plot to --plot; 1 if any transfer arrived corrupted."""
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    if args.plot:
        plot(args.plot)
    errors = sum(r["integrity_errors"] for r in records)
    if errors:
        print(f"spgen bench {name}: error: {errors} transfers arrived corrupted", file=sys.stderr)
        return 1
    return 0
