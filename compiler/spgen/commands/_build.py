"""`spgen build PROG.spd [--cascade N] [--loopback] -o BUILD`: AFU project and simulated card."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

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


def _fast_model(design, out: Path):
    """The fast core model written to ``sim/``, or None (RTL) with the reason on stderr."""
    from ..backend.fast import FastModelUnsupported, fast_core_model

    try:
        fast = fast_core_model(design.graph, design.verilog.report, ftz=design.ftz)
    except FastModelUnsupported as e:
        print(f"spgen build: note: {e}; the card simulates the RTL core instead",
              file=sys.stderr)
        return None
    (out / "sim").mkdir(parents=True, exist_ok=True)
    (out / "sim" / f"{fast.name}_fast.v").write_text(fast.verilog)
    return fast


def run(args: argparse.Namespace) -> int:
    from ..shellgen import check_project, core_interface, write_project

    t0 = time.perf_counter()
    if args.loopback == bool(args.program):
        raise SpgenError("give either PROG.spd or --loopback")
    if not 1 <= args.cascade <= 255:
        raise SpgenError(f"--cascade {args.cascade}: must be 1..255")
    out = Path(args.outdir).resolve()   # tools run with the build folder as cwd
    core = text = None
    if args.program:
        from .. import compile as spgen_compile

        design = spgen_compile(args.program, top=args.top, params=parse_param_args(args.params),
                               ftz=args.ftz, hard_fp=args.hard_fp)
        design.diagnostics.print(sys.stderr)
        vcore = design.verilog
        core, text = core_interface(vcore.report), vcore.hw_text
        out.mkdir(parents=True, exist_ok=True)
        (out / "core.json").write_text(json.dumps(vcore.report, indent=2) + "\n")
    if args.links and not 1 <= args.links <= 4:
        raise SpgenError(f"--links {args.links}: must be 1..4")
    if args.op_timeout < 1000:
        raise SpgenError(f"--op-timeout {args.op_timeout}: at least 1000 cycles")
    project = write_project(out, core, text, args.cascade, links=args.links, link_gbps=args.link_gbps,
                            op_timeout=args.op_timeout, sort_scatter=args.sort_scatter,
                            dsp=vcore.dsp_sources() if core else None)
    # The project's checks (mostly Verilator's lint) run beside the card's build: they are
    # independent and of about the same length, so the build takes the time of one of them.
    pool = ThreadPoolExecutor(max_workers=1)
    checking = pool.submit(check_project, project)
    pool.shutdown(wait=False)
    checks: list[str] = []
    sources = [out / f for f in project.rtl]
    fast = None
    model = "rtl" if core else None
    if core and args.core_model == "fast":
        fast = _fast_model(design, out)
        if fast is not None:
            sources[project.rtl.index(project.core_file)] = out / "sim" / f"{core.name}_fast.v"
            model = "fast"

    card = None
    if not args.no_sim:
        try:
            from ..runtime._build import build_card, link_bits
        except ImportError:
            raise SpgenError("the runtime package (spgen.runtime) is missing: "
                             "build with --no-sim or install the runtime") from None
        info: dict[str, object] = {"target": core.name if core else "loopback",
                                   "n_cores": project.params["N_CORES"]}
        if args.links:
            info.update(links=args.links, link_bits=link_bits(project.params), link_gbps=args.link_gbps,
                        rdma_op_timeout=args.op_timeout)
            # what the cluster checks between cards: a stream's element size on both ends
            if core and core.brch_in_words:
                info["brch_in_words"] = core.brch_in_words
            if core and core.brch_out_words:
                info["brch_out_words"] = core.brch_out_words
        if args.sort_scatter:
            info["sort_scatter"] = 1
        for i, (name, _) in enumerate(core.regs if core else ()):
            info[f"reg.{name}"] = i
        # the records' fields (name:type, port 0 first), so the runtime returns typed records
        for key in (("s_data", "in_ports"), ("m_data", "out_ports")) if core else ():
            info[key[1]] = ",".join(f"{q['name']}:{q['type']}" for q in vcore.report["ports"][key[0]])
        # each Reg's type, so the runtime converts values by it (a float to its binary32 bits)
        for r in (vcore.report.get("registers", []) if core else ()):
            info[f"regtype.{r['name']}"] = r["type"]
        # the core's Params as built: the runtime and host helpers check them (a stencil
        # core's line buffers hold rows of exactly W cells: another width gives wrong results)
        for name, value in (design.graph.params.items() if core else ()):
            info[f"param.{name}"] = value
        if model == "fast":  # RTL cards keep their content hash (and cached builds)
            info["core_model"] = model
        lib = build_card(sources, params=project.params,
                         include_dirs=[out / "rtl" / "shell"], info=info, top=project.top,
                         fast_core=fast)
        (out / "sim").mkdir(exist_ok=True)
        card = out / "sim" / "libafucard.so"
        # a new file renamed over the old one, never written in place: a simulation still
        # running the previous build has that file mapped, and truncating it kills the
        # simulation with SIGBUS
        tmp = card.with_name(f"{card.name}.{os.getpid()}.tmp")
        shutil.copyfile(lib, tmp)
        os.replace(tmp, card)
        checks.append(f"simulated card: {card} (cached build {lib.parent.name})")

    checks = checking.result() + checks
    summary = {"core": core.name if core else None, "params": project.params,
               "core_model": model,
               "core_params": dict(design.graph.params) if core else {},
               "links": args.links, "link_gbps": args.link_gbps if args.links else None,
               "rtl": project.rtl, "hw_rtl": project.hw_rtl, "files": project.files,
               "checks": checks,
               "card": str(card) if card else None}
    (out / "build.json").write_text(json.dumps(summary, indent=2) + "\n")
    what = f"{args.cascade} x {core.name}" if core else "loop-back"
    print(f"AFU ({what}) in {out}  ({time.perf_counter() - t0:.1f} s)")
    for c in checks:
        print(f"  ok  {c}")
    for role, path in project.files.items():
        print(f"  {role:<14} {out / path}")
    if args.resources:
        from ..fit import build_report

        print(build_report(project, core.name if core else None))
    return 0
