"""Verilog emission: one self-contained file per core (top, helpers, operators, extern RTL)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from spgen._diagnostics import SpgenError
from spgen.ir import OPS, Graph, Node, Type

from .._stream_iface import StreamControl, StreamInterface, obuf_module
from ._oplib import DSP_OPS, dsp_files, op_params, op_rtl
from ._schedule import SINK, Schedule

__all__ = ["RAM_MIN_BITS", "RAM_MIN_DEPTH", "Emitted", "emit", "prefixed", "segment_plan"]

# A delay segment becomes a RAM ring buffer (block RAM on the FPGA, one array write
# per tick in simulation) when it is at least this long and this many bits; shorter
# ones stay register chains, which cost less than a RAM block's minimum size.
RAM_MIN_DEPTH = 16
RAM_MIN_BITS = 256

# SystemVerilog reserved words a module name must avoid (the common ones an SPD
# module might be called).
_KEYWORDS = frozenset({
    "always", "and", "assign", "automatic", "begin", "bit", "buf", "byte", "case",
    "casex", "casez", "cell", "class", "config", "const", "default", "defparam", "design",
    "disable", "do", "edge", "else", "end", "endcase", "endfunction", "endmodule", "enum",
    "event", "extern", "final", "for", "force", "forever", "fork", "function", "generate",
    "genvar", "if", "initial", "inout", "input", "int", "integer", "interface", "join",
    "local", "localparam", "logic", "longint", "module", "nand", "negedge", "new", "nor",
    "not", "or", "output", "package", "parameter", "posedge", "primitive", "program",
    "property", "real", "reg", "repeat", "return", "shortint", "signed", "specify",
    "static", "string", "struct", "super", "supply0", "supply1", "table", "task", "this",
    "time", "tran", "tri", "type", "typedef", "union", "unique", "unsigned", "var",
    "virtual", "void", "wait", "while", "wire", "wor", "xor",
})


@dataclass
class Emitted:
    """``text`` is self-contained (the FP DSP blocks as our behavioural models, for every
    simulator and Yosys); ``hw_text`` leaves the DSP modules out, for the Quartus project,
    which adds the wrappers over the vendor primitive instead (``dsp_ops``)."""

    text: str
    reg_bits: int = 0   # delay-register bits (register chains)
    ram_bits: int = 0   # ring-buffer bits (RAM)
    rings: int = 0
    helpers: list[str] = field(default_factory=list)
    hw_text: str = ""
    dsp_ops: list[str] = field(default_factory=list)


def segment_plan(taps: list[int], width: int) -> list[tuple[int, int, str]]:
    """(from_delay, to_delay, "reg"|"ram") segments of one shared delay line."""
    out = []
    prev = 0
    for d in taps:
        if d == 0:
            continue
        seg = d - prev
        kind = "ram" if seg >= RAM_MIN_DEPTH and seg * width >= RAM_MIN_BITS else "reg"
        out.append((prev, d, kind))
        prev = d
    return out


def plan_bits(sched: Schedule) -> tuple[int, int]:
    """(register-chain bits, RAM bits) of a schedule's delay lines."""
    regs = rams = 0
    for u, taps in sched.taps.items():
        w = sched.widths[u]
        for a, b, kind in segment_plan(taps, w):
            if kind == "ram":
                rams += w * (b - a - 1)
                regs += w  # the ring's registered read port
            else:
                regs += w * (b - a)
    return regs, rams


def _ident(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", s)


def _vec(width: int) -> str:
    return f"[{width - 1}:0] " if width > 1 else ""


def _helpers(core: str) -> str:
    return f"""
// Fixed delay of DELAY_DEPTH ticks as a register chain.
module {core}_delay #(
    parameter DATA_WIDTH = 32,  // bits per element
    parameter DELAY_DEPTH = 1   // ticks of delay (>= 1)
) (
    input  wire                  clk,
    input  wire                  ce,
    input  wire [DATA_WIDTH-1:0] d,
    output wire [DATA_WIDTH-1:0] q
);
    initial begin
        if (DELAY_DEPTH < 1) begin
            $display("{core}_delay: DELAY_DEPTH must be >= 1");
            $finish;
        end
    end
    reg [DATA_WIDTH-1:0] pipe_reg [0:DELAY_DEPTH-1];
    integer i;
    always @(posedge clk) begin
        if (ce) begin
            pipe_reg[0] <= d;
            for (i = 1; i < DELAY_DEPTH; i = i + 1) pipe_reg[i] <= pipe_reg[i - 1];
        end
    end
    assign q = pipe_reg[DELAY_DEPTH - 1];
endmodule

// Fixed delay of RAM_DEPTH + 1 ticks as a ring buffer with a registered read
// (read-before-write on one address), inferable as block RAM.
module {core}_ring #(
    parameter DATA_WIDTH = 32,  // bits per element
    parameter RAM_DEPTH = 15    // RAM words; the delay is RAM_DEPTH + 1 ticks
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  ce,
    input  wire [DATA_WIDTH-1:0] d,
    output wire [DATA_WIDTH-1:0] q
);
    localparam ADDR_WIDTH = $clog2(RAM_DEPTH);
    initial begin
        if (RAM_DEPTH < 2) begin
            $display("{core}_ring: RAM_DEPTH must be >= 2");
            $finish;
        end
    end
    reg [DATA_WIDTH-1:0] mem [0:RAM_DEPTH-1];
    reg [ADDR_WIDTH-1:0] ptr_reg;
    reg [DATA_WIDTH-1:0] q_reg;
    wire [31:0] ptr_ext = {{{{(32 - ADDR_WIDTH){{1'b0}}}}, ptr_reg}};
    always @(posedge clk) begin
        if (rst) begin
            ptr_reg <= {{ADDR_WIDTH{{1'b0}}}};
        end else if (ce) begin
            mem[ptr_reg] <= d;
            q_reg <= mem[ptr_reg];
            ptr_reg <= (ptr_ext == RAM_DEPTH - 1) ? {{ADDR_WIDTH{{1'b0}}}} : ptr_reg + 1'b1;
        end
    end
    assign q = q_reg;
endmodule

""" + obuf_module(core)


def _rename(text: str, names: list[str], prefix: str) -> str:
    if not names:
        return text
    pat = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                     + r")\b")
    return pat.sub(lambda m: prefix + m.group(1), text)


def _library_text(core: str, files: list[Path]) -> str:
    """Operator library files, every module renamed <core>_spg_* (no clashes)."""
    return "\n".join(f"// ---- operator library: {f.name}\n{prefixed(core, f.read_text())}"
                     for f in files)


def prefixed(core: str, text: str) -> str:
    """Library RTL with its modules renamed <core>_spg_*, as the core instantiates them."""
    return re.sub(r"\bspg_", f"{core}_spg_", text)


def _op_files(ops: set[str]) -> list[Path]:
    files: list[Path] = []
    for op in sorted(ops):
        files += [f for f in op_rtl(op) if f not in files]
    return files


def _extern_text(core: str, node: Node) -> tuple[str, str]:
    path = Path(node.attrs["file"])
    try:
        text = path.read_text()
    except OSError as e:
        raise SpgenError(f"external module {node.attrs['module']}: cannot read {path} ({e})") \
            from None
    declared = re.findall(r"^\s*module\s+(\w+)", text, re.MULTILINE)
    if node.attrs["module"] not in declared:
        raise SpgenError(f"{path}: no module named {node.attrs['module']}")
    return path.name, _rename(text, declared, f"{core}_")


class _Writer:
    def __init__(self, graph: Graph, sched: Schedule, ftz: bool):
        self.g = graph
        self.s = sched
        self.ftz = ftz
        self.core = graph.name
        self.lines: list[str] = []
        self.names: dict[int, str] = {}
        self.unused: list[str] = []
        self.ks: set[int] = set()
        self.ops: set[str] = set()       # soft operators (library modules in logic)
        self.dsp_ops: set[str] = set()   # operators in FP DSP blocks (--hard-fp)
        self.rings = 0

    def w(self, line: str = "") -> None:
        self.lines.append(line)

    def name(self, n: Node) -> str:
        if n.id not in self.names:
            self.names[n.id] = f"n{n.id}" + (f"_{_ident(n.name)}" if n.name else "")
        return self.names[n.id]

    def tap(self, u: Node, delay: int) -> str:
        if u.id in self.s.static or delay == 0:
            return self.name(u)
        return f"{self.name(u)}_d{delay}"

    def real(self, k: int) -> str:
        self.ks.add(k)
        return f"real_{k}"

    # ---- body ---------------------------------------------------------------
    def node(self, n: Node, users: dict) -> None:
        nm = self.name(n)
        width = n.type.width if isinstance(n.type, Type) else 32
        static = n.id in self.s.static
        ce = "1'b1" if static else "ce"
        if n.op == "input":
            src = "s_brch_data" if n.attrs["stream"] == "brch" else "s_data"
            self.w(f"    wire [31:0] {nm} = {src}[{32 * n.attrs['index']} +: 32];")
        elif n.op == "reg":
            reg = f"reg_{n.attrs.get('name', n.name)}"
            self.w(f"    wire {_vec(width)}{nm} = {reg}" + ("[0];" if width == 1 else ";"))
            if width == 1:
                self.unused.append(f"{reg}[31:1]")
        elif n.op == "const":
            self.w(f"    wire {_vec(width)}{nm} = {width}'h{n.attrs['bits']:x};")
        elif n.op == "shift":
            x = n.args[0]
            d = int(n.attrs["offset"])
            tau_x = 0 if x.id in self.s.static else self.s.tau[x.id]
            delay = self.s.tau[n.id] + d - 1 - tau_x
            k = self.s.tau[n.id] + d - 1
            fill = int(n.attrs["fill"]) & ((1 << width) - 1)
            self.w(f"    reg {_vec(width)}{nm}_reg;")
            self.w(f"    always @(posedge clk) if (ce) {nm}_reg <= {self.real(k)} ? "
                   f"{self.tap(x, delay)} : {width}'h{fill:x};")
            self.w(f"    wire {_vec(width)}{nm} = {nm}_reg;")
        elif n.op == "extern":
            self.extern(n, users)
        elif n.op == "proj":
            pass  # declared by its extern
        else:
            self.operator(n, static, ce)
        if not users[n] and n.op not in ("extern", "proj") and not self.is_output(n):
            self.unused.append(nm)

    def is_output(self, n: Node) -> bool:
        return any(o.node is n for o in self.g.outputs)

    def operand(self, v: Node, u: Node) -> str:
        if u.id in self.s.static:
            return self.name(u)
        lat = self.s.tau[v.id] - self.s.tau[u.id]
        return self.tap(u, lat - self.s.latency(v))

    def operator(self, n: Node, static: bool, ce: str) -> None:
        if n.op not in OPS or OPS[n.op].arity is None:
            raise SpgenError(f"cannot emit operator {n.op!r}")
        if self.s.hard_fp and n.op in DSP_OPS:
            self.dsp_ops.add(n.op)
            nm = self.name(n)
            a, b = (self.operand(n, x) for x in n.args)
            self.w(f"    wire [31:0] {nm};")
            self.w(f"    {self.core}_spg_dsp_{n.op} u_{nm} (.clk(clk), .ce({ce}), .a({a}), "
                   f".b({b}), .y({nm}));")
            return
        self.ops.add(n.op)
        params = op_params(n.op)
        ps = []
        if "FTZ" in params:
            ps.append(f".FTZ({int(self.ftz)})")
        if "WIDTH" in params:
            ps.append(f".WIDTH({n.type.width})")
        pstr = f" #({', '.join(ps)})" if ps else ""
        pins = ["s", "a", "b"] if n.op == "select" else ["a", "b"]
        conns = [f".{p}({self.operand(n, a)})" for p, a in zip(pins, n.args)]
        width = n.type.width
        nm = self.name(n)
        self.w(f"    wire {_vec(width)}{nm};")
        self.w(f"    {self.core}_spg_{n.op}{pstr} u_{nm} (.clk(clk), .ce({ce}), "
               f"{', '.join(conns)}, .y({nm}));")

    def extern(self, n: Node, users: dict) -> None:
        label = _ident(str(n.attrs.get("label", n.id)))
        projs = {p.attrs["index"]: p for p in users[n] if p.op == "proj"}
        outs = []
        for i, t in enumerate(n.attrs["out_types"]):
            if i in projs:
                pn = self.name(projs[i])
            else:
                pn = f"{self.name(n)}_o{i}"
                self.unused.append(pn)
            self.w(f"    wire [31:0] {pn};")
            outs.append(f".o_{i}({pn})")
        ins = [f".i_{i}({self.operand(n, a)})" for i, a in enumerate(n.args)]
        self.w(f"    {self.core}_{n.attrs['module']} u_{label} (.clk(clk), .ce(ce), "
               f"{', '.join(ins + outs)});")

    def delay_lines(self) -> int:
        bits = 0
        by_id = {n.id: n for n in self.g.nodes}
        for uid, taps in sorted(self.s.taps.items()):
            if uid == SINK or uid not in by_id:
                continue
            u = by_id[uid]
            width = self.s.widths[uid]
            for a, b, kind in segment_plan(taps, width):
                src, dst = self.tap(u, a), self.tap(u, b)
                self.w(f"    wire {_vec(width)}{dst};")
                if kind == "ram":
                    self.rings += 1
                    self.w(f"    {self.core}_ring #(.DATA_WIDTH({width}), .RAM_DEPTH({b - a - 1})) "
                           f"u_{dst} (.clk(clk), .rst(rst), .ce(ce), .d({src}), .q({dst}));")
                else:
                    self.w(f"    {self.core}_delay #(.DATA_WIDTH({width}), .DELAY_DEPTH({b - a})) "
                           f"u_{dst} (.clk(clk), .ce(ce), .d({src}), .q({dst}));")
                bits += width * (b - a)
        return bits


_DECLARATION = re.compile(r"\s*(wire|reg)\b[^=]*;")


def _split_declarations(lines: list[str]) -> tuple[list[str], list[str]]:
    """(plain net declarations, everything else) of ``lines``, each in its order."""
    decls = [ln for ln in lines if _DECLARATION.fullmatch(ln)]
    return decls, [ln for ln in lines if not _DECLARATION.fullmatch(ln)]


def emit(graph: Graph, sched: Schedule, *, ftz: bool = False) -> Emitted:
    """The core's complete Verilog text."""
    core = graph.name
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", core) or core in _KEYWORDS:
        raise SpgenError(f"module name {core!r} cannot name a Verilog module (a reserved "
                         "word); rename the SPD module")
    wr = _Writer(graph, sched, ftz)
    users = graph.users()
    ins = {s: sorted((p for p in graph.inputs if p.stream == s), key=lambda p: p.index)
           for s in ("main", "brch")}
    outs = {s: sorted((o for o in graph.outputs if o.port.stream == s), key=lambda o: o.port.index)
            for s in ("main", "brch")}
    if not ins["main"]:
        raise SpgenError(f"module {core} has no main input port")
    if not outs["main"]:
        raise SpgenError(f"module {core} has no main output port")
    for o in graph.outputs:
        if o.port.type is Type.BOOL:
            raise SpgenError(f"output {o.port.name}: bool values cannot be stream ports")

    for n in graph.nodes:
        wr.node(n, users)
    body = wr.lines
    wr.lines = []
    wr.delay_lines()
    delays = wr.lines
    drain = sched.sink

    # Output alignment: every output read at the sink tick.
    wr.lines = []
    out_words = {}
    for s in ("main", "brch"):
        words = []
        for o in outs[s]:
            if o.node.id in sched.static:
                words.append(wr.name(o.node))
            else:
                words.append(wr.tap(o.node, drain - sched.tau[o.node.id]))
        out_words[s] = "{" + ", ".join(reversed(words)) + "}" if words else ""
    push_k = wr.real(drain)
    outputs = wr.lines

    kmax = max(wr.ks) if wr.ks else 0
    has_bi = bool(ins["brch"])
    ctl = StreamControl(drain, kmax, has_bi)
    jw, tw = ctl.jw, ctl.tw
    has_bo = bool(outs["brch"])

    L: list[str] = []
    a = L.append
    a("`default_nettype none")
    a(f"// {core}: generated by spgen from the SPD module {core}. Do not edit.")
    a(f"// Pipeline: {drain} ticks from s_data to m_data (drained after s_last); one")
    a("// element per cycle when s_valid is high and m_ready is high.")
    iface = StreamInterface(core, len(ins["main"]), len(outs["main"]), len(ins["brch"]),
                            len(outs["brch"]), tuple(r.name for r in graph.regs))
    L += iface.module_header()
    a("")
    a("    // ---- control: one tick per accepted element, DRAIN more after s_last")
    a("    wire out_space;")
    L += ctl.counters()
    L += ctl.handshake()
    a("    always @(posedge clk) begin")
    a("        if (rst) begin")
    L += ctl.reset(12)
    a("        end else if (ce) begin")
    L += ctl.advance(12)
    a("        end")
    a("    end")
    a("    // real_K: the element K ticks behind the current one exists (0 <= index < N)")
    for k in sorted(wr.ks):
        cj = "1'b1" if k == 0 else f"(j_cnt >= {jw}'d{k})"
        if k == 0:
            a(f"    wire real_{k} = !draining_reg;")
        else:
            if k <= drain - 1:
                a(f"    wire real_{k} = {cj} && (!draining_reg || (t_cnt < {tw}'d{k}));")
            else:  # the drain is shorter than K: every drained element exists
                a(f"    wire real_{k} = {cj};")
    a("")
    # Every net is declared before any statement reads it (stricter tools require it):
    # operands are delay taps, declared with the delay lines that follow the datapath.
    decls, body = _split_declarations(body)
    tap_decls, delays = _split_declarations(delays)
    a("    // ---- nets of the datapath and its delay lines")
    L += decls + tap_decls
    a("    // ---- datapath")
    L += body
    a("    // ---- delay lines (shared taps)")
    L += delays
    a("")
    a("    // ---- outputs: aligned at the drain tick, buffered two deep")
    L += outputs
    last = "s_last" if drain == 0 else "stream_end"
    for s, pre in (("main", "m_"), ("brch", "m_brch_")):
        if not outs[s]:
            continue
        width = 32 * len(outs[s]) + 1
        a(f"    wire {s}_space;")
        a(f"    wire [{width - 1}:0] {s}_q;")
        a(f"    {core}_obuf #(.DATA_WIDTH({width})) u_obuf_{s} (.clk(clk), .rst(rst), "
          f".push(ce && {push_k}), .d({{{last}, {out_words[s]}}}), .space({s}_space), "
          f".valid({pre}valid), .ready({pre}ready), .q({s}_q));")
        a(f"    assign {pre}data = {s}_q[{width - 2}:0];")
        a(f"    assign {pre}last = {s}_q[{width - 1}];")
    a("    assign out_space = main_space" + (" && brch_space;" if has_bo else ";"))
    unused = list(wr.unused)
    if drain == 0:
        unused.append("t_cnt")
    if has_bi:
        unused.append("s_brch_last")
    if unused:
        a("    // Signals nothing reads (unused ports, dead extern outputs).")
        a("    /* verilator lint_off UNUSEDSIGNAL */")
        a(f"    wire unused_ok = &{{1'b0, {', '.join(unused)}}};")
        a("    /* verilator lint_on UNUSEDSIGNAL */")
    a("endmodule")
    a("")
    a("// Everything below belongs to this core only (names prefixed with the core's) and")
    a("// shares this one file, so file and module names cannot match.")
    a("/* verilator lint_off DECLFILENAME */")
    text = "\n".join(L) + "\n" + _helpers(core)
    text += "\n" + _library_text(core, _op_files(wr.ops))
    externs = {}
    for n in graph.nodes:
        if n.op == "extern" and n.attrs["module"] not in externs:
            fname, etext = _extern_text(core, n)
            externs[n.attrs["module"]] = f"// ---- external module: {fname}\n{etext}"
    text += "\n" + "\n".join(externs.values())
    end = "\n/* verilator lint_on DECLFILENAME */\n`default_nettype wire\n"
    models = _library_text(core, [dsp_files(op)[0] for op in sorted(wr.dsp_ops)])
    regs_bits, ram_bits = plan_bits(sched)
    return Emitted(text + ("\n" + models if models else "") + end, regs_bits, ram_bits, wr.rings,
                   hw_text=text + end, dsp_ops=sorted(wr.dsp_ops))
