"""`spgen check PROG.spd`: parse and check a program, print its diagnostics."""
from __future__ import annotations

import argparse
import sys

from .._diagnostics import SpgenError

__all__ = ["add_arguments", "parse_param_args", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("program", metavar="PROG.spd", help="the SPD source file")
    parser.add_argument("-P", dest="params", metavar="NAME=VALUE", action="append", default=[],
                        help="override a Param of the top module (repeatable), e.g. -P W=128")
    parser.add_argument("--top", metavar="NAME",
                        help="top module (default: the last module of the file)")
    parser.epilog = ("Prints every error and warning as file:line:col with the source line; "
                     "exit status 1 when there is an error, 0 otherwise.")


def parse_param_args(items: list[str]) -> dict[str, str]:
    """`-P NAME=VALUE` options as a dict (values are parsed by the front end)."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier() or not value.strip():
            raise SpgenError(f"-P expects NAME=VALUE, got {item!r}")
        out[name] = value.strip()
    return out


def run(args: argparse.Namespace) -> int:
    from ..frontend import load_program

    params = parse_param_args(args.params)
    _, diags = load_program(args.program, top=args.top, params=params)
    diags.print(sys.stderr)
    return 0
