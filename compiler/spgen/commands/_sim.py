"""`spgen sim PROG.spd -i IN.npy -o OUT.npy`: the generated core, cycle by cycle in Verilator."""
from __future__ import annotations

import argparse
import sys
import time

from .. import _streams
from ._args import add_program_arguments, name_values, parse_param_args

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_program_arguments(parser)
    parser.add_argument("-i", dest="input", metavar="IN.npy", required=True,
                        help="input stream: structured array, one field per input port")
    parser.add_argument("-o", dest="output", metavar="OUT.npy", required=True,
                        help="output stream: structured array, one field per output port")
    parser.add_argument("--reg", metavar="NAME=VALUE", action="append", default=[],
                        help="set a run-time register (repeatable); others keep their defaults")
    parser.add_argument("--stall-pattern", metavar="SEED", type=int,
                        help="random s_valid bubbles and m_ready stalls from SEED "
                             "(the output must not change)")
    parser.add_argument("--trace", metavar="WAVE.fst", help="write an FST waveform")
    parser.add_argument("--fast-math", action="store_true", help="allow reassociation")
    parser.epilog = ("The Verilator build is cached by content hash (SPGEN_CACHE or "
                     "~/.cache/spgen), so a second run does not rebuild.")


def run(args: argparse.Namespace) -> int:
    from .. import compile as spgen_compile

    regs = name_values(args.reg, "--reg")
    arr = _streams.load_npy(args.input)
    design = spgen_compile(args.program, top=args.top, params=parse_param_args(args.params),
                           ftz=args.ftz, fast_math=args.fast_math,
                           hard_fp=args.hard_fp)
    design.diagnostics.print(sys.stderr)
    t0 = time.perf_counter()
    out = design.simulate(arr, regs=regs, stall_seed=args.stall_pattern, trace=args.trace)
    total = time.perf_counter() - t0
    _streams.save_npy(args.output, out)
    s = design.last_sim or {}
    print(f"{design.name}: {s.get('elements', 0)} elements in {s.get('cycles', 0)} cycles "
          f"({s.get('stall_cycles', 0)} stall cycles, pipeline latency "
          f"{design.report['latency_cycles']}); {s.get('elements_per_s', 0.0):,.0f} elements/s "
          f"simulated ({total:.2f} s with build/cache lookup)")
    if args.trace:
        print(f"  waveform: {args.trace}")
    return 0
