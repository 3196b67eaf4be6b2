"""`spgen compile PROG.spd`: pipelined Verilog, a JSON report, IR, Graphviz and a C header."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .._diagnostics import SpgenError
from ._args import add_program_arguments, parse_param_args

__all__ = ["add_arguments", "run", "summary"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_program_arguments(parser)
    parser.add_argument("-o", dest="outdir", metavar="DIR",
                        help="write DIR/<top>.v (self-contained) and DIR/<top>.json (report)")
    parser.add_argument("--emit", choices=("ir", "verilog", "report"),
                        help="print the optimised IR, the Verilog or the JSON report to stdout")
    parser.add_argument("--dot", metavar="FILE", help="write the dataflow graph as Graphviz")
    parser.add_argument("--emit-header", metavar="FILE",
                        help="write a C header with the register (CSR) offsets")
    parser.add_argument("--fast-math", action="store_true",
                        help="allow reassociation (the emulator runs the same transformed graph)")
    parser.add_argument("--resources", action="store_true",
                        help="map the core onto Arria 10 ALMs with Yosys and print its resources "
                             "and estimated timing (docs/fit.md); with -o also DIR/<top>.fit.json")
    parser.epilog = ("Without -o/--emit prints a one-screen summary: latency, element delay, "
                     "operators, FLOPs per element, delay bits, ports and registers.")


def summary(report: dict, seconds: float | None = None) -> str:
    """The one-screen summary `spgen compile` prints."""
    r = report
    db = r["delay_bits"]
    ops = {k: v for k, v in r["operations"].items() if k not in ("input", "reg", "const", "proj")}
    lines = [f"core {r['name']}" + (f"  (compiled in {seconds:.2f} s)" if seconds else ""),
             f"  pipeline latency   {r['latency_cycles']} cycles (drained after s_last)",
             f"  element delay      {r['element_delay']} elements (look-ahead of negative shifts)",
             f"  operators          {r['operators']}: "
             + ", ".join(f"{k} {v}" for k, v in ops.items()),
             f"  FLOPs per element  {r['flops_per_element']['total']} ("
             + ", ".join(f"{k} {v}" for k, v in r["flops_per_element"].items() if k != "total")
             + ")",
             "  floating point     " + (
                 f"{r['dsp_blocks']} Arria 10 FP DSP blocks (f32 add, sub, mul), the rest in "
                 "logic; subnormals flushed" if r.get("hard_fp") else
                 "in logic" + ("; subnormals flushed" if r.get("ftz") else "")
                 + " (--hard-fp: add, sub, mul in FP DSP blocks)"),
             (f"  delay bits         {db['minimised']['total']} minimised "
              f"({db['minimised']['registers']} in registers, {db['minimised']['ram']} in "
              f"{r['ring_buffers']} RAM ring buffers); {db['asap']['total']} scheduled ASAP")]
    for key, title in (("s_data", "in "), ("s_brch_data", "in brch"), ("m_data", "out"),
                       ("m_brch_data", "out brch")):
        if key in r["ports"]:
            ps = r["ports"][key]
            lines.append(f"  {title:<18} {key}[{32 * len(ps) - 1}:0] = "
                         + ", ".join(f"{p['name']}:{p['type']}" for p in ps))
    for reg in r["registers"]:
        lines.append(f"  register           {reg['port']} at CSR +0x{reg['offset']:02x} "
                     f"({reg['type']}, default 0x{reg['default']:08x})")
    return "\n".join(lines)


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text)
    except OSError as e:
        raise SpgenError(f"{path}: cannot write ({e})") from None


def run(args: argparse.Namespace) -> int:
    from .. import compile as spgen_compile
    from ..ir import to_dot

    t0 = time.perf_counter()
    design = spgen_compile(args.program, top=args.top, params=parse_param_args(args.params),
                           ftz=args.ftz, fast_math=args.fast_math,
                           hard_fp=args.hard_fp)
    design.diagnostics.print(sys.stderr)  # warnings only: errors raised above
    if args.emit == "ir":
        sys.stdout.write(design.graph.to_text())
    if args.dot:
        _write(args.dot, to_dot(design.graph))
    needs_core = args.emit in ("verilog", "report") or args.outdir or args.emit_header \
        or not args.emit or args.resources
    if not needs_core:
        return 0
    core = design.verilog
    seconds = time.perf_counter() - t0
    if args.emit == "verilog":
        sys.stdout.write(core.text)
    elif args.emit == "report":
        sys.stdout.write(json.dumps(core.report, indent=2) + "\n")
    if args.outdir:
        core.write(args.outdir)
    if args.emit_header:
        _write(args.emit_header, core.header())
    if not args.emit:
        print(summary(core.report, seconds))
        if args.outdir:
            print(f"  wrote {Path(args.outdir) / (core.name + '.v')} and "
                  f"{Path(args.outdir) / (core.name + '.json')}"
                  + (f"; for Quartus {Path(args.outdir) / 'quartus'}/" if core.dsp_ops else ""))
    if args.resources:
        from ..fit import core_summary

        print(core_summary(core.text, core.name,
                           Path(args.outdir) / f"{core.name}.fit.json" if args.outdir else None))
    return 0
