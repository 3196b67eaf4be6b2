"""`spgen bench`: one subcommand per benchmark, each in its own `_bench_<name>.py` module."""
from __future__ import annotations

import argparse
import importlib
import pkgutil

__all__ = ["add_arguments", "run"]


def _modules() -> dict[str, object]:
    """Every `spgen.commands._bench_<name>` module with add_arguments/run/HELP."""
    from spgen import commands

    found: dict[str, object] = {}
    for info in pkgutil.iter_modules(commands.__path__):
        if info.name.startswith("_bench_"):
            mod = importlib.import_module(f"spgen.commands.{info.name}")
            if hasattr(mod, "add_arguments") and hasattr(mod, "run"):
                found[info.name[len("_bench_"):]] = mod
    return dict(sorted(found.items()))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    for name, mod in _modules().items():
        text = getattr(mod, "HELP", name)
        p = sub.add_parser(name, help=text, description=text)
        mod.add_arguments(p)  # type: ignore[attr-defined]
        p.set_defaults(_bench_run=mod.run)  # type: ignore[attr-defined]
    parser.set_defaults(_bench_parser=parser)


def run(args: argparse.Namespace) -> int:
    fn = getattr(args, "_bench_run", None)
    if fn is None:
        args._bench_parser.print_help()
        return 1
    return int(fn(args) or 0)
