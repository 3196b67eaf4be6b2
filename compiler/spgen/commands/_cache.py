"""`spgen cache [info]` and `spgen cache prune`: what the build cache holds, and removing
the entries not used for a while.

Every expensive build (Verilated cards and test benches, the runtime, the op library, JIT
objects, container bases) is kept under `$SPGEN_CACHE` (default `~/.cache/spgen`) in a folder
per kind, one entry per content hash. Entries are never overwritten, only added, so a cache
that follows a changing source tree grows without bound; prune drops the least recently used
ones. An entry's last use is the newest modification time of the entry itself and of its
sibling `<entry>.lock` file, which every build or reuse of the entry opens for writing.
Removing an entry is always safe for the entry's later users (it is rebuilt on demand) and for
running processes (a library they have mapped stays valid after it is unlinked); entries used
within the last hour are never removed, so a build in progress keeps its folder.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import time
from pathlib import Path

from .._diagnostics import SpgenError
from .._tools import cache_root

__all__ = ["add_arguments", "entries", "prune", "run"]

_RECENT_S = 3600
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=["info", "prune"], default="info",
                        help="info (default): size and entries per kind; prune: remove old entries")
    parser.add_argument("--older-than", metavar="DAYS", type=float,
                        help="prune: remove entries not used for DAYS days")
    parser.add_argument("--max-size", metavar="SIZE",
                        help="prune: then remove the least recently used entries until the cache "
                             "holds at most SIZE (bytes, or with K, M, G, T: 20G)")
    parser.add_argument("--dry-run", action="store_true", help="prune: list what would go, remove nothing")


def _size(path: Path) -> int:
    if path.is_symlink() or not path.is_dir():
        return path.lstat().st_size
    total = 0
    for dirpath, dirnames, filenames in os.walk(path):
        if os.path.ismount(dirpath):   # a chroot's /proc left mounted: not the entry's bytes
            dirnames.clear()
            continue
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def entries(root: Path | None = None) -> list[dict]:
    """Every cache entry: kind, path, bytes, last use (seconds since the epoch)."""
    root = root or cache_root()
    out = []
    if not root.is_dir():
        return out
    for kind in sorted(p for p in root.iterdir() if p.is_dir()):
        for entry in sorted(kind.iterdir()):
            if entry.suffix == ".lock" or entry.name in ("lock", ".lock"):
                continue
            lock = entry.with_name(entry.name + ".lock")
            used = max(entry.lstat().st_mtime, lock.stat().st_mtime if lock.exists() else 0.0)
            out.append({"kind": kind.name, "path": entry, "bytes": _size(entry), "used": used})
    return out


def parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)I?B?\s*", text.upper())
    if not m:
        raise SpgenError(f"--max-size {text!r}: expected a size such as 500M or 20G")
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        from ._container_native import _unmount_under
        _unmount_under(entry)     # never walk into a mounted /proc of a half-built root
        shutil.rmtree(entry, ignore_errors=True)
    else:
        entry.unlink(missing_ok=True)
    entry.with_name(entry.name + ".lock").unlink(missing_ok=True)


def prune(*, older_than_days: float | None = None, max_bytes: int | None = None,
          dry_run: bool = False, root: Path | None = None, now: float | None = None) -> list[dict]:
    """Remove entries unused for `older_than_days`, then the least recently used ones until
    at most `max_bytes` remain; never an entry used within the last hour. Returns the removed."""
    now = time.time() if now is None else now
    live = sorted(entries(root), key=lambda e: e["used"])
    gone = []
    total = sum(e["bytes"] for e in live)
    for e in live:
        if now - e["used"] < _RECENT_S:
            continue
        too_old = older_than_days is not None and now - e["used"] > older_than_days * 86400
        too_big = max_bytes is not None and total > max_bytes
        if too_old or too_big:
            gone.append(e)
            total -= e["bytes"]
            if not dry_run:
                _remove(e["path"])
    return gone


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def run(args: argparse.Namespace) -> int:
    root = cache_root()
    if args.action == "info":
        if args.older_than is not None or args.max_size or args.dry_run:
            raise SpgenError("--older-than, --max-size and --dry-run go with 'prune'")
        rows = entries(root)
        print(f"spgen build cache: {root}")
        kinds: dict[str, list[dict]] = {}
        for e in rows:
            kinds.setdefault(e["kind"], []).append(e)
        print(f"{'kind':<16}{'entries':>8}{'size':>12}  last used")
        now = time.time()
        for kind, es in sorted(kinds.items(), key=lambda kv: -sum(e["bytes"] for e in kv[1])):
            age = (now - max(e["used"] for e in es)) / 86400
            print(f"{kind:<16}{len(es):>8}{_human(sum(e['bytes'] for e in es)):>12}  {age:.1f} days ago")
        print(f"{'total':<16}{len(rows):>8}{_human(sum(e['bytes'] for e in rows)):>12}")
        print("spgen cache prune --older-than DAYS | --max-size SIZE removes the least recently used")
        return 0
    if args.older_than is None and not args.max_size:
        raise SpgenError("prune needs --older-than DAYS and/or --max-size SIZE")
    if args.older_than is not None and args.older_than < 0:
        raise SpgenError(f"--older-than {args.older_than}: expected a number of days >= 0")
    gone = prune(older_than_days=args.older_than,
                 max_bytes=parse_size(args.max_size) if args.max_size else None,
                 dry_run=args.dry_run, root=root)
    verb = "would remove" if args.dry_run else "removed"
    for e in gone:
        print(f"  {e['kind']}/{e['path'].name}  {_human(e['bytes'])}")
    left = sum(e["bytes"] for e in entries(root))
    print(f"{verb} {len(gone)} entries, {_human(sum(e['bytes'] for e in gone))}; "
          f"the cache {'holds' if not args.dry_run else 'would hold'} "
          f"{_human(left if not args.dry_run else left - sum(e['bytes'] for e in gone))}")
    return 0
