"""The fast core model: the core's exact port behaviour in Verilog, its data from the emulator."""
from __future__ import annotations

from dataclasses import dataclass

from ..._diagnostics import SpgenError
from ...ir import Graph
from .._stream_iface import (
    OBUF_SPACE,
    OBUF_VALID,
    StreamControl,
    StreamInterface,
    obuf_count,
    obuf_moves,
)
from ..llvm import NativeKernel, native_kernel

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
    pushed data come from ``spg_fast_step`` (DPI-C, ``fast_core.cpp``).

    The control and output buffer are the generated core's (``backend/_stream_iface.py``):
    one tick per accepted element, ``S`` drain ticks after ``s_last``, a push once the
    element ``S`` ticks behind exists, a two-entry output buffer. The datapath is replaced.
    """
    iface = StreamInterface.from_report(report, branches=False)
    name, s = iface.name, int(report["latency_cycles"])
    iw, ow = 32 * iface.in_words, 32 * iface.out_words
    regs = [f"reg_{r}" for r in iface.regs]
    rw = 32 * max(1, len(regs))
    reg_bus = "{" + ", ".join(reversed(regs)) + "}" if regs else "32'd0"
    ctl = StreamControl(s, s)
    jw = ctl.jw
    L = ["`default_nettype none",
         f"// {name}: fast model of the spgen core {name} for card simulation (spgen build",
         "// --core-model fast). Same ports, handshake, drain and output buffer as the RTL;",
         "// the data of each pushed element come from the emulator's kernel over DPI-C.",
         *iface.module_header()]
    L += ["    // spg_fast_open names the instance (svGetScope): cores of a cascade pass their",
          "    // records to each other in C++ (fast_core.cpp)",
          '    import "DPI-C" context function chandle spg_fast_open();',
          '    import "DPI-C" function void spg_fast_close(input chandle h);',
          '    import "DPI-C" function int spg_fast_reset(input chandle h);',
          f'    import "DPI-C" function void spg_fast_feed(input chandle h, input bit [{iw - 1}:0] s_data);',
          '    import "DPI-C" function void spg_fast_step(input chandle h, input bit fire, input bit last,',
          f'        input bit push, input bit done, input bit [{rw - 1}:0] regs);',
          f'    import "DPI-C" function void spg_fast_output(input chandle h, output bit [{ow - 1}:0] y);',
          "    chandle h;",
          "    initial h = spg_fast_open();",
          "    final spg_fast_close(h);",
          "    // Set at reset by the C++ side: [0] the input records come from the fast core",
          "    // before this one in the cascade, [1] the output records go to the one after it,",
          "    // in C++; s_data, resp. the data of the output buffer (m_data), are then unused.",
          "    reg [1:0] links = 2'b00;",
          "",
          f"    wire [{rw - 1}:0] regs = {reg_bus};",
          "    reg [1:0] count_reg;  // output buffer fill",
          "    reg q0_last, q1_last;",
          f"    reg [{ow - 1}:0] q0_data, q1_data, y;",
          *ctl.counters(f"saturating at {s}"),
          f"    wire out_space = {OBUF_SPACE};",
          *ctl.handshake()]
    if s == 0:
        L += ["    wire push = ce;",
              "    wire last_out = s_last;"]
    else:
        L += [f"    wire push = ce && j_cnt == {jw}'d{s};",
              "    wire last_out = stream_end;"]
    L += ["    wire pop = m_valid && m_ready;",
          "    always @(posedge clk) begin",
          "        if (rst) begin",
          *ctl.reset(12),
          "            count_reg <= 2'd0;",
          "            links <= 2'(spg_fast_reset(h));",
          "        end else begin",
          "            if (ce) begin",
          "                if (s_fire && !links[0]) spg_fast_feed(h, s_data);",
          "                spg_fast_step(h, s_fire, s_last, push, stream_end, regs);",
          "                if (push && !links[1]) spg_fast_output(h, y);",
          *ctl.advance(16),
          "            end",
          *obuf_count(12),
          "        end",
          "        // the output buffer moves as in the RTL's (reset or not)",
          *obuf_moves("q0_last", "q1_last", "last_out", 8),
          "        if (!links[1]) begin",
          *obuf_moves("q0_data", "q1_data", "y", 12),
          "        end",
          "    end",
          f"    assign m_valid = {OBUF_VALID};",
          "    assign m_data = q0_data;",
          "    assign m_last = q0_last;",
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
