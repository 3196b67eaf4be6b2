"""`spgen build PROG.spd [--cascade N] [--loopback] -o BUILD`: AFU project and simulated card."""
from __future__ import annotations

import argparse
import sys

from .._diagnostics import SpgenError
from ._args import add_program_arguments, parse_param_args

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_program_arguments(parser, optional=True,
                          program_help="the SPD source file (omit with --loopback)")
    parser.add_argument("-o", dest="outdir", metavar="BUILD", required=True,
                        help="output folder: rtl/, hw/ (afu.json, Platform Designer Tcl, "
                             "Quartus and OPAE file lists), sim/ (simulated card), build.json")
    parser.add_argument("--cascade", type=int, default=1, metavar="N",
                        help="number of core instances chained TX -> core 1 -> ... -> core N -> RX")
    parser.add_argument("--loopback", action="store_true",
                        help="no core: TX streams straight into RX (pure DMA transfers)")
    parser.add_argument("--links", type=int, default=0, metavar="N",
                        help="add the RDMA block with N serial-link ports (1..4) for card-to-card "
                             "RDMA and streams (docs/rdma.md); 0 (default): no network")
    parser.add_argument("--link-gbps", type=int, default=40, choices=(40, 100),
                        help="line rate of each link in Gb/s (default 40, the PAC's QSFP+)")
    parser.add_argument("--op-timeout", type=int, default=2_000_000, metavar="CYCLES",
                        help="with --links: cycles after which the RDMA engine fails an operation "
                             "with TIMEOUT (default 2,000,000 = 10 ms at 200 MHz)")
    parser.add_argument("--sort-scatter", action="store_true",
                        help="add the sort's scatter writer on the RX engine's write master "
                             "(SORT_* registers): the distributed sort's data movement runs on "
                             "the card (docs/sort.md)")
    parser.add_argument("--resources", action="store_true",
                        help="map the AFU onto Arria 10 ALMs with Yosys: BUILD/hw/resources.json "
                             "and a summary per core, cascade, shell, RDMA block and sort "
                             "writer, with the fit in the PAC's AFU region (docs/fit.md)")
    parser.add_argument("--no-sim", action="store_true",
                        help="do not build the Verilated simulated-card library")
    parser.add_argument("--core-model", choices=("rtl", "fast"), default="rtl",
                        help="how the simulated card models the cores: rtl (default: the "
                             "Verilated core, exactly the Verilog of rtl/) or fast (the same "
                             "ports and cycles, data from the emulator's native kernel; many "
                             "times faster to build and run; falls back to rtl where it "
                             "cannot be exact, saying why)")
    parser.epilog = ("The project cannot be synthesised here; it is generated from one parameter "
                     "set and checked with Verilator lint, tclsh and JSON checks.")


def run(args: argparse.Namespace) -> int:
    from .. import build

    if args.loopback == bool(args.program):
        raise SpgenError("give either PROG.spd or --loopback")
    result = build(args.program, args.outdir, top=args.top, params=parse_param_args(args.params),
                   ftz=args.ftz, hard_fp=args.hard_fp, cascade=args.cascade, links=args.links,
                   link_gbps=args.link_gbps, op_timeout=args.op_timeout,
                   sort_scatter=args.sort_scatter, sim=not args.no_sim,
                   core_model=args.core_model)
    if result.diagnostics is not None:
        result.diagnostics.print(sys.stderr)
    for note in result.notes:
        print(f"spgen build: note: {note}", file=sys.stderr)
    print(result.summary(args.cascade))
    if args.resources:
        from ..fit import build_report

        print(build_report(result.project, result.core))
    return 0
