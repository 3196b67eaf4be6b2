"""The fast core model: the core's exact port behaviour in Verilog, its data from the emulator."""
from __future__ import annotations

from dataclasses import dataclass

from ..._diagnostics import SpgenError
from ...ir import Graph
from ..llvm._native import NativeKernel, native_kernel

__all__ = ["FastCoreModel", "FastModelUnsupported", "fast_core_model"]


class FastModelUnsupported(SpgenError):
    """The fast model cannot stand in for this core (the message says why)."""


@dataclass(frozen=True)
class FastCoreModel:
    """``verilog``: a module named like the core, with its ports; ``header``: the
    kernel layout for ``fast_core.cpp``; ``obj``: the kernel's object code."""

    name: str
    verilog: str
    header: str
    obj: bytes


def _unsupported(graph: Graph, report: dict) -> str | None:
    ext = sorted({n.attrs.get("module", "?") for n in graph.nodes if n.op == "extern"})
    if ext:
        return (f"it instantiates external Verilog ({', '.join(ext)}), which only the RTL "
                "simulates (the emulator computes SPD operations)")
    if any(p.stream == "brch" for p in graph.inputs) or \
            any(o.port.stream == "brch" for o in graph.outputs):
        return "it has branch streams (the fast model covers main streams only)"
    if report["element_delay"] > report["latency_cycles"]:
        return (f"its look-ahead ({report['element_delay']} elements) exceeds its latency "
                f"({report['latency_cycles']} cycles)")
    return None


def fast_core_model(graph: Graph, report: dict, *, ftz: bool) -> FastCoreModel:
    """The fast model of the core that ``report`` (its VerilogCore report) describes.

    Raises ``FastModelUnsupported`` naming the core and the reason where it cannot
    be exact; the caller then builds with the RTL core.
    """
    why = _unsupported(graph, report)
    if why:
        raise FastModelUnsupported(f"core {graph.name}: no fast model: {why}")
    kernel = native_kernel(graph, ftz)
    return FastCoreModel(graph.name, wrapper_verilog(report), _header(graph.name, report, kernel),
                         kernel.obj)


def wrapper_verilog(report: dict) -> str:
    """The core's module with the RTL's handshake, drain, output buffer and reset, whose
    control and data come from ``spg_fast_cycle`` (DPI-C, ``fast_core.cpp``).

    The control is the generated core's (``backend/verilog/_emit.py``): one tick per
    accepted element, ``S`` drain ticks after ``s_last``, a push once the element ``S``
    ticks behind exists, a two-entry output buffer; ``FastCore::cycle`` steps it
    register for register once per rising edge, and the module keeps the registers its
    ports show (the buffer's fill, draining, the first entry's last flag and data).
    One call per core and cycle: the control in Verilog cost more than the data side.
    """
    name, s = report["name"], int(report["latency_cycles"])
    iw = 32 * len(report["ports"]["s_data"])
    ow = 32 * len(report["ports"]["m_data"])
    regs = [r["port"] for r in report["registers"]]
    rw = 32 * max(1, len(regs))
    reg_bus = "{" + ", ".join(reversed(regs)) + "}" if regs else "32'd0"
    L = ["`default_nettype none",
         f"// {name}: fast model of the spgen core {name} for card simulation (spgen build",
         "// --core-model fast). Same ports, handshake, drain and output buffer as the RTL",
         f"// (latency {s}); the control steps in C++ and the data of each pushed element come",
         "// from the emulator's kernel, over DPI-C.",
         f"module {name} (",
         "    input  wire clk,",
         "    input  wire rst,  // synchronous, active high",
         "    // main input stream",
         "    input  wire s_valid,", "    output wire s_ready,",
         f"    input  wire [{iw - 1}:0] s_data,", "    input  wire s_last,",
         "    // main output stream",
         "    output wire m_valid,", "    input  wire m_ready,",
         f"    output wire [{ow - 1}:0] m_data,", "    output wire m_last" + ("," if regs else "")]
    if regs:
        L.append("    // run-time registers (CSRs)")
        L += [f"    input  wire [31:0] {r}" + ("," if i < len(regs) - 1 else "")
              for i, r in enumerate(regs)]
    L += [");",
          "    // spg_fast_open names the instance (svGetScope): cores of a cascade pass their",
          "    // records to each other in C++ (fast_core.cpp)",
          '    import "DPI-C" context function chandle spg_fast_open();',
          '    import "DPI-C" function void spg_fast_close(input chandle h);',
          f'    import "DPI-C" function void spg_fast_feed(input chandle h, input bit [{iw - 1}:0] s_data);',
          '    import "DPI-C" function int spg_fast_cycle(input chandle h, input bit rst, input bit s_valid,',
          f'        input bit s_last, input bit m_ready, input bit [{rw - 1}:0] regs);',
          f'    import "DPI-C" function void spg_fast_output(input chandle h, output bit [{ow - 1}:0] y);',
          "    chandle h;",
          "    initial h = spg_fast_open();",
          "    final spg_fast_close(h);",
          "",
          f"    wire [{rw - 1}:0] regs = {reg_bus};",
          "    // The registers the ports show, as FastCore::cycle leaves them at each edge:",
          "    // [1:0] the output buffer's fill, [2] draining, [3] the last flag of its first",
          "    // entry, [5:4] links (set at reset: [0] the input records come from the fast",
          "    // core before this one in the cascade, [1] the output records go to the one",
          "    // after it, in C++; s_data, resp. m_data, are then unused), [6] m_data changed.",
          "    reg [6:0] state_reg;",
          "    reg [6:0] st;",
          f"    reg [{ow - 1}:0] q0_data, y;",
          "    wire [1:0] count = state_reg[1:0];",
          "    wire [1:0] links = state_reg[5:4];",
          "    assign s_ready = !state_reg[2] && count != 2'd2;",
          "    always @(posedge clk) begin",
          "        if (!rst && s_valid && s_ready && !links[0]) spg_fast_feed(h, s_data);",
          "        st = spg_fast_cycle(h, rst, s_valid, s_last, m_ready, regs);",
          "        if (st[6]) begin",
          "            spg_fast_output(h, y);",
          "            q0_data <= y;",
          "        end",
          "        state_reg <= st;",
          "    end",
          "    assign m_valid = count != 2'd0;",
          "    assign m_data = q0_data;",
          "    assign m_last = state_reg[3];",
          "endmodule",
          "`default_nettype wire", ""]
    return "\n".join(L)


def _header(name: str, report: dict, k: NativeKernel) -> str:
    lay = k.layout
    kinds = {"in": "SPG_FAST_IN", "out": "SPG_FAST_OUT", "ring": "SPG_FAST_RING"}
    keys = ",\n".join(f"    {{{kinds[x['kind']]}, {x['index']}, {x['mod']}LL, {x['d']}, {x['phase']}}}"
                      for x in lay["keys"])
    return "\n".join([
        f"// Kernel layout of the fast model of {name}. Generated by spgen build; do not edit.",
        "#pragma once",
        "#include <cstdint>",
        f'#define SPG_FAST_CORE "{name}"',
        f"#define SPG_FAST_SYMBOL {k.symbol}",
        f"#define SPG_FAST_CHUNK {lay['chunk']}",
        f"#define SPG_FAST_RING_WORDS {lay['ring_words']}",
        f"#define SPG_FAST_REACH_PAST {lay['reach_past']}",
        f"#define SPG_FAST_REACH_FUTURE {lay['reach_future']}",
        f"#define SPG_FAST_LOOKAHEAD {report['element_delay']}",
        f"#define SPG_FAST_LATENCY {int(report['latency_cycles'])}",
        f"#define SPG_FAST_REGS {len(lay['regs'])}",
        f"#define SPG_FAST_IN_WORDS {len(report['ports']['s_data'])}  // s_data, 32-bit words",
        f"#define SPG_FAST_OUT_WORDS {len(report['ports']['m_data'])}  // m_data",
        "enum { SPG_FAST_IN, SPG_FAST_OUT, SPG_FAST_RING };",
        "struct SpgFastKey { int kind; int64_t index; int64_t mod; int64_t d; int phase; };",
        "static const SpgFastKey spg_fast_keys[] = {", keys, "};",
        "static const int64_t spg_fast_lags[] = {" + ", ".join(map(str, lay["lags"])) + "};",
        "// record word of each input slot and output row",
        "static const int spg_fast_in_word[] = {" + ", ".join(map(str, lay["in_words"])) + "};",
        "static const int spg_fast_out_word[] = {" + ", ".join(map(str, lay["out_words"])) + "};",
        ""])
