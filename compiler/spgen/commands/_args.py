"""Arguments that several commands share: the program, its Params and top module, NAME=VALUE."""
from __future__ import annotations

import argparse

from .._diagnostics import SpgenError

__all__ = ["add_program_arguments", "name_values", "parse_param_args"]


def add_program_arguments(parser: argparse.ArgumentParser, *, optional: bool = False,
                          program_help: str = "the SPD source file", ftz: bool = True) -> None:
    """PROG.spd, `-P NAME=VALUE`, `--top NAME` and (``ftz``) `--ftz`, as every command that
    compiles takes them."""
    parser.add_argument("program", metavar="PROG.spd", nargs="?" if optional else None,
                        help=program_help)
    parser.add_argument("-P", dest="params", metavar="NAME=VALUE", action="append", default=[],
                        help="override a Param of the top module (repeatable), e.g. -P W=128")
    parser.add_argument("--top", metavar="NAME",
                        help="top module (default: the last module of the file)")
    if ftz:
        parser.add_argument("--ftz", action="store_true",
                            help="flush subnormal f32 operands and results to zero, as the "
                                 "Arria 10 FP DSPs do")
        parser.add_argument("--hard-fp", action="store_true",
                            help="f32 add, sub and mul in the Arria 10's hardened floating-point "
                                 "DSP blocks (3-cycle latency, a fraction of the logic); implies "
                                 "--ftz, the blocks' arithmetic (docs/oplib.md)")


def name_values(items: list[str], option: str) -> dict[str, str]:
    """Repeated `option NAME=VALUE` arguments as a dict (values are parsed by their user)."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier() or not value.strip():
            raise SpgenError(f"{option} expects NAME=VALUE, got {item!r}")
        out[name] = value.strip()
    return out


def parse_param_args(items: list[str]) -> dict[str, str]:
    """`-P NAME=VALUE` options as a dict (values are parsed by the front end)."""
    return name_values(items, "-P")
