"""The `spgen` command line: one subcommand module per verb under `spgen.commands`."""
from __future__ import annotations

import argparse
import importlib
import sys

from ._diagnostics import CompileError, SpgenError
from ._fpenv import reset_fp_env

__all__ = ["main"]

# verb -> module under spgen.commands defining add_arguments(parser) and run(args) -> int
_COMMANDS = {
    "check": "Check a program and print its diagnostics.",
    "compile": "Compile a program to Verilog, IR, Graphviz and a report.",
    "emulate": "Run a program natively (LLVM JIT), bit-exact with the hardware.",
    "sim": "Simulate the generated core cycle by cycle in Verilator.",
    "build": "Build the simulated card and the hardware project for a core.",
    "conf": "Reprogram a simulated card's AFU slot with builds, timed (as OPAE's fpgaconf).",
    "bench": "Benchmarks: DMA bandwidth, LBM throughput and stall rate, RDMA.",
    "container": "Build the Singularity/Apptainer image, or say what is missing.",
    "cluster": "Cluster of simulated cards: status of every card's RDMA engine and links.",
    "cache": "The build cache: size per kind, and pruning of entries not used for a while.",
    "lsp": "The SPD language server for editors (LSP on stdin/stdout).",
}


class _Version(argparse.Action):
    """--version: the release and the folder of shell/, runtime/ and cores/ (not line-wrapped)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0,
                         help="show the version and where the shell, runtime and cores are")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from . import __version__
        from ._paths import data_root

        print(f"spgen {__version__} (shell, runtime and cores: {data_root()})")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spgen",
        description="Stream-processing compiler and simulated FPGA platform for .spd programs.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for verb, help_text in _COMMANDS.items():
        try:
            mod = importlib.import_module(f"spgen.commands._{verb}")
        except ModuleNotFoundError as e:
            # Only a missing third-party package is the user's to fix; a module of spgen
            # itself that fails to import is a bug and must not hide its verb.
            if not e.name or e.name.split(".")[0] == "spgen":
                raise
            # no option prefixes: whatever the user typed reaches the clear error below
            p = sub.add_parser(verb, help=help_text, description=help_text, prefix_chars="\0",
                               add_help=False)
            p.add_argument("_ignored", nargs="*", help=argparse.SUPPRESS)
            p.set_defaults(_run=_missing_package(verb, e.name))
            continue
        p = sub.add_parser(verb, help=help_text, description=help_text)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _missing_package(verb: str, package: str):
    """A verb whose Python dependency is not installed: it says which, instead of vanishing."""
    def run(_args):
        raise SpgenError(f"'spgen {verb}' needs the Python package '{package}', which is not "
                         f"installed here (pip install '{package}', or reinstall spgen with "
                         "its dependencies)")
    return run


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 1
    try:
        reset_fp_env()  # a fast-math library loaded earlier must not change SPD's bits
        return int(args._run(args) or 0)
    except CompileError as e:
        e.diagnostics.print()
        return 1
    except SpgenError as e:
        print(f"spgen {args.command}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("spgen: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
