"""`spgen check PROG.spd`: parse and check a program, print its diagnostics."""
from __future__ import annotations

import argparse
import sys

from ._args import add_program_arguments, parse_param_args

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_program_arguments(parser, ftz=False)
    parser.epilog = ("Prints every error and warning as file:line:col with the source line; "
                     "exit status 1 when there is an error, 0 otherwise.")


def run(args: argparse.Namespace) -> int:
    from ..frontend import load_program

    params = parse_param_args(args.params)
    _, diags = load_program(args.program, top=args.top, params=params)
    diags.print(sys.stderr)
    return 0
