"""`spgen emulate PROG.spd -i IN.npy -o OUT.npy`: run a program natively, bit-exact with the core."""
from __future__ import annotations

import argparse
import sys
import time

from .._diagnostics import SpgenError
from ._args import add_program_arguments, name_values, parse_param_args

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_program_arguments(parser)
    parser.add_argument("-i", "--input", required=True, metavar="IN.npy",
                        help="input stream: a structured array with one field per input port "
                             "(branch ports too, unless --brch-input gives them)")
    parser.add_argument("--brch-input", metavar="BRCH.npy",
                        help="branch input stream as its own structured array (optional)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.npy",
                        help="where to write the output stream (one field per output port)")
    parser.add_argument("--reg", dest="regs", metavar="NAME=VALUE", action="append", default=[],
                        help="set a run-time register (repeatable); others keep their defaults")
    parser.add_argument("--steps", type=int, default=1, metavar="N",
                        help="apply the module N times, outputs fed back as inputs in port "
                             "order (needs matching ports); fused into few sweeps")
    parser.add_argument("--threads", type=int, metavar="T",
                        help="worker threads (default: every CPU this process may use)")
    parser.add_argument("--no-fuse", action="store_true",
                        help="one sweep over memory per step instead of fused cascades")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="where to run: the CPU (LLVM JIT, default) or an NVIDIA GPU "
                             "(needs the optional extra spgen[cuda]); the same bits")
    parser.add_argument("-q", "--quiet", action="store_true", help="print no summary")
    parser.epilog = ("Stream files are .npy structured arrays, field name = port name, dtype "
                     "float32/int32/uint32 as the port type. Exit status 1 on any error.")


def run(args: argparse.Namespace) -> int:
    from .. import _streams, compile

    if args.steps < 1:
        raise SpgenError(f"--steps must be at least 1, got {args.steps}")
    if args.threads is not None and args.threads < 1:
        raise SpgenError(f"--threads must be at least 1, got {args.threads}")
    regs = name_values(args.regs, "--reg")
    design = compile(args.program, top=args.top, params=parse_param_args(args.params),
                     ftz=args.ftz, hard_fp=args.hard_fp)
    design.diagnostics.print(sys.stderr)
    main = _streams.load_npy(args.input)
    inputs = main if args.brch_input is None else {
        "main": main, "brch": _streams.load_npy(args.brch_input)}
    t0 = time.perf_counter()
    from ..backend import emulate_on

    n, bits = _streams.check_inputs(design.graph, inputs)
    reg_bits = _streams.parse_regs(design.graph, regs)
    out = emulate_on(args.device, design.graph, n, bits, reg_bits, steps=args.steps,
                     ftz=design.ftz, threads=args.threads, fuse=not args.no_fuse)
    dt = time.perf_counter() - t0
    _streams.save_npy(args.output, _streams.pack_outputs(design.graph, out, n))
    if not args.quiet:
        rate = n * args.steps / dt / 1e6 if dt > 0 else float("inf")
        print(f"spgen emulate ({args.device}): {design.name}: {n} elements x {args.steps} step(s) in "
              f"{dt:.3f} s ({rate:.1f} Melem/s, JIT included) -> {args.output}", file=sys.stderr)
    return 0
