"""Hardware project of one AFU: RTL tree, OPAE afu.json, Platform Designer Tcl, Quartus and
OPAE file lists, all generated from one parameter set so they agree."""
from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .. import oplib
from .._diagnostics import SpgenError
from ._csr import SHELL_DIR, card_clock_mhz, load_csr_map
from ._wrapper import CoreInterface, cores_wrapper

__all__ = ["Project", "afu_top_ports", "write_project"]

# afu_top's Avalon-MM masters and the windows each one reaches (docs/internals.md)
MASTERS = ("tx_rd", "rx_wr", "dsc_rd")
WINDOWS = (("emif_a", 0x0, 32), ("emif_b", 0x1_0000_0000, 32), ("pcie_host", 0x8000_0000_0000_0000, 48))
_AVALON_ROLE = {"address": "address", "read": "read", "write": "write", "burstcount": "burstcount",
                "waitrequest": "waitrequest", "readdata": "readdata", "readdatavalid": "readdatavalid",
                "writedata": "writedata", "byteenable": "byteenable"}


@dataclass
class Project:
    """Paths (relative to `root`) and afu_top parameters of a generated project."""

    root: Path
    params: dict[str, object]
    top: str = "afu_top"                                 # afu_rdma_top on a card with links
    rtl: list[str] = field(default_factory=list)        # Verilog files, compile order (simulation)
    core_file: str | None = None                         # the generated core (own lint rules)
    # The Quartus project's files: ``rtl`` with the FP DSP wrappers over the vendor
    # primitive in place of our behavioural models (equal to ``rtl`` without --hard-fp)
    hw_rtl: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # role -> path


def _top_file(top: str) -> Path:
    return SHELL_DIR / "afu_top.v" if top == "afu_top" else SHELL_DIR / "rdma" / "afu" / f"{top}.v"


# `include "x.vh"`: the shell's shared port lists (afu_ports.vh, mmio_ports.vh, ...)
_INCLUDE = re.compile(r'^\s*`include\s+"([\w.]+)"[^\n]*$', re.MULTILINE)


def _expand_includes(text: str) -> str:
    """`text` with every include of a file in shell/ replaced by that file, recursively."""
    return _INCLUDE.sub(lambda m: _expand_includes((SHELL_DIR / m.group(1)).read_text()), text)


def afu_top_ports(top: str = "afu_top", params: dict[str, object] | None = None) -> list[tuple[str, str, int]]:
    """(direction, name, width) of every port of the AFU's top module (shell/afu_top.v, or
    shell/rdma/afu/afu_rdma_top.v), widths given by parameters evaluated with `params`."""
    text = _expand_includes(_top_file(top).read_text())
    head = text[text.index(f"module {top}"):text.index(");", text.index(") (")) + 2]
    names = {k: v for k, v in (params or {}).items() if isinstance(v, int)}
    ports = []
    for m in re.finditer(r"\b(input|output)\s+wire\s+(?:\[([^\]:]+):0\]\s+)?(\w+)", head):
        width = 1
        if m.group(2):
            expr = re.sub(r"[A-Za-z_]\w*", lambda w: str(names[w.group(0)]), m.group(2))
            width = int(eval(expr, {"__builtins__": {}})) + 1  # digits and + - * only
        ports.append((m.group(1), m.group(3), width))
    return ports


def _reg_defaults_literal(regs: tuple[tuple[str, int], ...]) -> str:
    """afu_top's REG_DEFAULTS: a fixed 8192-bit vector (256 Regs), Reg 0 in the low bits."""
    value = 0
    for i, (_, d) in enumerate(regs):
        value |= d << (32 * i)
    return f"8192'h{value:x}"


# The RDMA block's link port per line rate (`--link-gbps`): LANES 32-bit words a beat, so one
# port sustains its line at the card's 200 MHz (512 bits = 102.4 Gb/s for 40 Gb/s, 1024 bits
# for 100 Gb/s: 1 KiB packets need 98.6 % of it), and buffers for 200 ns cables: an ACK and a
# credit come back after 130-250 cycles, in which a 40 Gb/s line sends 45-90 64-byte packets
# and a 100 Gb/s line 110-220; credits count packets, so at 40 Gb/s 128-packet windows and 64
# packets per VC (32 and 16 held 64-byte packets to 15 Gb/s), at 100 Gb/s 256 and 128 (128
# and 64: 64 Gb/s); a 1 KiB packet's slot is 17 or 9 beats (docs/rdma.md, "Line rate").
LINK_PORT = {40: {"RDMA_LANES": 16, "RDMA_WINDOW": 128, "RDMA_VC_BUF": 64},
             100: {"RDMA_LANES": 32, "RDMA_WINDOW": 256, "RDMA_VC_BUF": 128}}
LINK_GBPS = tuple(LINK_PORT)


def write_project(out: Path, core: CoreInterface | None, core_text: str | None,
                  n_cores: int, links: int = 0, link_gbps: int = 40, op_timeout: int = 2_000_000,
                  sort_scatter: bool = False,
                  dsp: dict[str, tuple[str, str]] | None = None) -> Project:
    """Write the project under `out`; `core` None means loop-back (no core). `links` > 0
    puts the RDMA block (shell/rdma/, top afu_rdma_top) with that many serial-link ports
    beside the shell. `sort_scatter` puts the sort's scatter writer (shell_sort_scatter.v,
    docs/sort.md) on the RX engine's write master. `dsp` (a core built with --hard-fp,
    `VerilogCore.dsp_sources()`): per FP DSP module (model, Quartus wrapper) texts;
    `core_text` is then the core without the models (`VerilogCore.hw_text`)."""
    if not 0 <= links <= 4:
        raise SpgenError(f"--links {links}: a card has 0..4 serial-link ports")
    if link_gbps not in LINK_GBPS:
        raise SpgenError(f"--link-gbps {link_gbps}: must be one of {', '.join(map(str, LINK_GBPS))}")
    out = Path(out)
    csr = load_csr_map()
    try:
        (out / "rtl" / "shell").mkdir(parents=True, exist_ok=True)
        (out / "hw").mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SpgenError(f"{out}: cannot create the build folder ({e})") from None
    regs = core.regs if core else ()
    params: dict[str, object] = {
        "N_CORES": n_cores if core else 0,
        "RECORD_WORDS": core.in_words if core else 1,
        "OUT_RECORD_WORDS": core.out_words if core else 1,
        "N_REGS": len(regs),
        "REG_DEFAULTS": _reg_defaults_literal(regs),
    }
    if core and (core.brch_in_words or core.brch_out_words) and not links:
        kinds = " and ".join(k for k, w in (("Brch_In", core.brch_in_words), ("Brch_Out", core.brch_out_words)) if w)
        raise SpgenError(f"core {core.name} has {kinds}: branch streams run between cards over links; build "
                         "the card with --links N and bind them in the cluster file (\"branches\", docs/rdma.md)")
    if sort_scatter:
        params["SORT_SCATTER"] = 1
    if links:
        params["RDMA_PORTS"] = links
        params.update(LINK_PORT[link_gbps])
        params["RDMA_OP_TIMEOUT"] = op_timeout
        if sort_scatter:  # the sort's single pass puts chunks of 8 KiB: 16 in flight cover their round trip
            params["RDMA_MAX_OPS"] = 16
        if core and core.brch_in_words:
            params["BRCH_IN_WORDS"] = core.brch_in_words
        if core and core.brch_out_words:
            params["BRCH_OUT_WORDS"] = core.brch_out_words
    p = Project(out, params, top="afu_rdma_top" if links else "afu_top")
    for f in sorted(SHELL_DIR.glob("*.vh")) + sorted(SHELL_DIR.glob("*.v")):
        shutil.copyfile(f, out / "rtl" / "shell" / f.name)
        if f.suffix == ".v":
            p.rtl.append(f"rtl/shell/{f.name}")
    if links:  # the RDMA block: engine, router, link ports, CSRs, memory adapter
        for sub in ("rdma", "rdma/afu"):
            (out / "rtl" / "shell" / sub).mkdir(parents=True, exist_ok=True)
            for f in sorted((SHELL_DIR / sub).glob("*.v")):
                shutil.copyfile(f, out / "rtl" / "shell" / sub / f.name)
                p.rtl.append(f"rtl/shell/{sub}/{f.name}")
        # the reductions' f32 adder: the operator library's, as the cores use it
        fadd = oplib.rtl_source("fadd")
        shutil.copyfile(fadd, out / "rtl" / "shell" / "rdma" / fadd.name)
        p.rtl.append(f"rtl/shell/rdma/{fadd.name}")
    p.hw_rtl = list(p.rtl)
    if core:
        (out / "rtl" / f"{core.name}.v").write_text(core_text or "")
        (out / "rtl" / "afu_cores.v").write_text(cores_wrapper(core, n_cores))
        p.core_file = f"rtl/{core.name}.v"
        for module, (model, primitive) in sorted((dsp or {}).items()):
            for sub, text, files in (("dsp_model", model, p.rtl), ("dsp", primitive, p.hw_rtl)):
                (out / "rtl" / sub).mkdir(exist_ok=True)
                _write(out / "rtl" / sub / f"{module}.v", text)
                files.append(f"rtl/{sub}/{module}.v")
        for files in (p.rtl, p.hw_rtl):
            files += [p.core_file, "rtl/afu_cores.v"]
    else:
        shutil.copyfile(SHELL_DIR / "passthrough" / "afu_cores.v", out / "rtl" / "afu_cores.v")
        p.rtl.append("rtl/afu_cores.v")
        p.hw_rtl.append("rtl/afu_cores.v")

    name = f"spgen_{core.name}_x{n_cores}" if core else "spgen_loopback"
    _write(out / "afu_files.txt", "+incdir+rtl/shell\n" + "".join(f + "\n" for f in p.rtl))
    p.files["afu_files"] = "afu_files.txt"

    afu_json = {
        "version": 1,
        "afu-image": {
            "power": 0,
            "afu-top-interface": {"class": "ccip_std_afu_avalon_mm",
                                  "module-ports": [{"class": "local-memory",
                                                    "params": {"num-banks": 2}}]},
            "accelerator-clusters": [{"name": name, "total-contexts": 1,
                                      "accelerator-type-uuid": str(csr.afu_id)}],
        },
        "spgen": {
            "csr-map-version": f"{csr.version[0]}.{csr.version[1]}",
            "core": core.name if core else None,
            "n-cores": params["N_CORES"],
            "in-record-words": params["RECORD_WORDS"],
            "out-record-words": params["OUT_RECORD_WORDS"],
            "in-ports": list(core.in_ports) if core else [],
            "out-ports": list(core.out_ports) if core else [],
            "brch-in-ports": list(core.brch_in_ports) if core else [],
            "brch-out-ports": list(core.brch_out_ports) if core else [],
            "regs": [{"name": n, "index": i, "offset": csr.reg("CORE_REG").address + 8 * i,
                      "default": d} for i, (n, d) in enumerate(regs)],
            "top": p.top,
            "links": links,
            "link-gbps": link_gbps if links else None,
            "sort-scatter": sort_scatter,
        },
    }
    _write(out / "hw" / "afu.json", json.dumps(afu_json, indent=2) + "\n")
    p.files["afu_json"] = "hw/afu.json"
    _write(out / "hw" / "afu_top_hw.tcl", _component_tcl(p))
    p.files["component_tcl"] = "hw/afu_top_hw.tcl"
    _write(out / "hw" / "afu_system.tcl", _system_tcl(p))
    p.files["system_tcl"] = "hw/afu_system.tcl"
    _write(out / "hw" / "afu_files.qsf", _qsf(p))
    p.files["qsf"] = "hw/afu_files.qsf"
    _write(out / "hw" / "afu.sdc", _sdc())
    p.files["sdc"] = "hw/afu.sdc"
    _write(out / "hw" / "filelist.txt", "afu.json\n+incdir+../rtl/shell\nQSYS:afu_system.qsys\n"
           "SDC:afu.sdc\n" + "".join(f"../{f}\n" for f in p.hw_rtl))
    p.files["opae_filelist"] = "hw/filelist.txt"
    return p


# The shell and the cores run on one clock (CLOCK_MHZ of the CSR map, the published
# design's 200 MHz; a PAC's FIM supplies it as the AFU's user clock; this constraint lets
# the AFU be timed on its own).
def _sdc() -> str:
    return ("# Timing constraint of the AFU, generated by spgen build.\n"
            f"create_clock -name afu_clk -period {1e3 / card_clock_mhz():.3f} [get_ports clk]\n"
            "derive_clock_uncertainty\n")


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as e:
        raise SpgenError(f"{path}: cannot write ({e})") from None


def _component_tcl(p: Project) -> str:
    L = [f"# Platform Designer component of the AFU shell (top module {p.top}), generated by spgen build.",
         "package require -exact qsys 18.1", "",
         "set_module_property NAME afu_top",
         "set_module_property VERSION 1.0",
         "set_module_property DISPLAY_NAME {spgen AFU shell}",
         "set_module_property EDITABLE false",
         "add_fileset QUARTUS_SYNTH QUARTUS_SYNTH {} {}",
         f"set_fileset_property QUARTUS_SYNTH TOP_LEVEL {p.top}"]
    for f in p.hw_rtl:
        kind = "TOP_LEVEL_FILE" if f.endswith(f"/{p.top}.v") else ""
        L.append(f"add_fileset_file {Path(f).name} VERILOG PATH ../{f} {kind}".rstrip())
    L += [f"add_fileset_file {f.name} VERILOG_INCLUDE PATH ../rtl/shell/{f.name}"
          for f in sorted(SHELL_DIR.glob("*.vh"))]
    L.append("")
    for k, v in p.params.items():
        kind = "STRING" if isinstance(v, str) else "INTEGER"
        L.append(f"add_parameter {k} {kind} {{{v}}}")
        L.append(f"set_parameter_property {k} HDL_PARAMETER true")
    L += ["", "add_interface clock clock end", "add_interface_port clock clk clk Input 1",
          "add_interface reset reset end", "set_interface_property reset associatedClock clock",
          "set_interface_property reset synchronousEdges BOTH",
          "add_interface_port reset rst reset Input 1",
          "# MMIO and interrupts go to the FIM's CCI-P adapter as conduits",
          "add_interface mmio conduit end", "add_interface irq conduit end"]
    if p.top != "afu_top":
        L += ["# serial links of the RDMA block: to the QSFP transceivers (PHY) as a conduit",
              "add_interface links conduit end"]
    for m in MASTERS:
        L += [f"add_interface {m} avalon start", f"set_interface_property {m} associatedClock clock",
              f"set_interface_property {m} associatedReset reset",
              f"set_interface_property {m} addressUnits SYMBOLS",
              f"set_interface_property {m} maximumPendingReadTransactions 256"]
    for direction, name, width in afu_top_ports(p.top, p.params):
        d = "Input" if direction == "input" else "Output"
        if name in ("clk", "rst"):
            continue
        if name.startswith("mmio_"):
            L.append(f"add_interface_port mmio {name} {name[5:]} {d} {width}")
        elif name in ("irq", "rdma_irq"):
            L.append(f"add_interface_port irq {name} {name} {d} {width}")
        elif name.startswith("link_"):
            L.append(f"add_interface_port links {name} {name[5:]} {d} {width}")
        else:
            m = next(m for m in MASTERS if name.startswith(m + "_"))
            L.append(f"add_interface_port {m} {name} {_AVALON_ROLE[name[len(m) + 1:]]} {d} {width}")
    return "\n".join(L) + "\n"


def _system_tcl(p: Project) -> str:
    L = ["# Platform Designer system: AFU shell + cores, EMIF banks A/B and the PCIe host window.",
         "# Generated by spgen build; run with qsys-script --script=afu_system.tcl.",
         "package require -exact qsys 18.1", "",
         "create_system afu_system",
         "set_project_property DEVICE_FAMILY {Arria 10}",
         "set_project_property DEVICE 10AX115N2F40E2LG", "",
         "add_instance clk clock_source",
         f"set_instance_parameter_value clk clockFrequency {card_clock_mhz() * 1_000_000}",
         "set_instance_parameter_value clk resetSynchronousEdges DEASSERT", "",
         "add_instance afu afu_top 1.0"]
    for k, v in p.params.items():
        L.append(f"set_instance_parameter_value afu {k} {{{v}}}")
    L += ["add_connection clk.clk afu.clock", "add_connection clk.clk_reset afu.reset", ""]
    for inst, _, aw in WINDOWS:
        L += [f"# {inst}: bridge exported to the FIM "
              + ("(PCIe/CCI-P host memory, IOVA)" if inst == "pcie_host" else "(DDR4 EMIF local memory)"),
              f"add_instance {inst} altera_avalon_mm_bridge",
              f"set_instance_parameter_value {inst} DATA_WIDTH 512",
              f"set_instance_parameter_value {inst} SYMBOL_WIDTH 8",
              f"set_instance_parameter_value {inst} ADDRESS_WIDTH {aw}",
              f"set_instance_parameter_value {inst} ADDRESS_UNITS SYMBOLS",
              f"set_instance_parameter_value {inst} MAX_BURST_SIZE 64",
              f"set_instance_parameter_value {inst} MAX_PENDING_RESPONSES 256",
              f"add_connection clk.clk {inst}.clk",
              f"add_connection clk.clk_reset {inst}.reset",
              f"add_interface {inst} avalon start",
              f"set_interface_property {inst} EXPORT_OF {inst}.m0", ""]
    for m in MASTERS:
        for inst, base, _ in WINDOWS:
            L.append(f"add_connection afu.{m} {inst}.s0")
            L.append(f"set_connection_parameter_value afu.{m}/{inst}.s0 baseAddress 0x{base:016x}")
    L += ["", "add_interface mmio conduit end", "set_interface_property mmio EXPORT_OF afu.mmio",
          "add_interface irq conduit end", "set_interface_property irq EXPORT_OF afu.irq", ""]
    if p.top != "afu_top":
        L += ["add_interface links conduit end", "set_interface_property links EXPORT_OF afu.links", ""]
    L += ["save_system afu_system.qsys"]
    return "\n".join(L) + "\n"


def _qsf(p: Project) -> str:
    L = ["# Quartus file list of the AFU, generated by spgen build (source from the project .qsf).",
         "set_global_assignment -name SEARCH_PATH ../rtl/shell",
         "set_global_assignment -name QSYS_FILE afu_system.qsys"]
    L += [f"set_global_assignment -name VERILOG_INCLUDE_FILE ../rtl/shell/{f.name}"
          for f in sorted(SHELL_DIR.glob("*.vh"))]
    L += [f"set_global_assignment -name VERILOG_FILE ../{f}" for f in p.hw_rtl]
    L.append("set_global_assignment -name SDC_FILE afu.sdc")
    return "\n".join(L) + "\n"
