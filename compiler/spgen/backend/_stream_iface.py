"""A core's stream interface, written once: its ports, handshake, drain counters, output buffer."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["OBUF_SPACE", "OBUF_VALID", "SIGNALS", "StreamControl", "StreamInterface", "clog2",
           "obuf_count", "obuf_module", "obuf_moves", "port_map"]

# The four signals of every stream, as ``<prefix>_<signal>`` ports: ``s``/``s_brch``
# flow into the core, ``m``/``m_brch`` out of it.
SIGNALS = ("valid", "ready", "data", "last")

_LOCKSTEP = " (lock-step with the main stream)"

# The two-entry output buffer's fill level ``count_reg``: room for a push, data to pop.
OBUF_SPACE = "count_reg != 2'd2"
OBUF_VALID = "count_reg != 2'd0"


def clog2(x: int) -> int:
    """Bits of a counter that holds 0 .. x - 1 (at least one)."""
    return max(1, (x - 1).bit_length()) if x > 1 else 1


def port_map(prefix: str, exprs: Mapping[str, str] | str, sep: str = "") -> list[str]:
    """Named connections ``.<prefix>_<signal><sep>(<expr>)`` of one stream, in port order;
    ``exprs`` maps each signal to its net, or is a pattern whose ``{}`` the signal fills."""
    def net(sig: str) -> str:
        return exprs.format(sig) if isinstance(exprs, str) else exprs[sig]

    return [f".{prefix}_{sig}{sep}({net(sig)})" for sig in SIGNALS]


def _stream_ports(prefix: str, words: int, comment: str) -> list[str]:
    fwd, back = ("input ", "output") if prefix.startswith("s") else ("output", "input ")
    return [f"    // {comment}", f"    {fwd} wire {prefix}_valid,", f"    {back} wire {prefix}_ready,",
            f"    {fwd} wire [{32 * words - 1}:0] {prefix}_data,", f"    {fwd} wire {prefix}_last,"]


@dataclass(frozen=True)
class StreamInterface:
    """The ports of a generated core: 32-bit words per element of each stream (0: the
    branch stream is absent) and its run-time registers (port ``reg_<name>``)."""

    name: str
    in_words: int
    out_words: int
    brch_in_words: int = 0
    brch_out_words: int = 0
    regs: tuple[str, ...] = ()

    @classmethod
    def from_report(cls, report: dict, *, branches: bool = True) -> StreamInterface:
        """From a VerilogCore report; ``branches=False`` leaves the branch streams out."""
        ports = report.get("ports", {})

        def words(key: str) -> int:
            return len(ports.get(key, [])) if branches or "brch" not in key else 0

        return cls(report["name"], words("s_data"), words("m_data"), words("s_brch_data"),
                   words("m_brch_data"), tuple(r["name"] for r in report.get("registers", [])))

    def words(self, prefix: str) -> int:
        """Words per element of the stream ``s``, ``s_brch``, ``m`` or ``m_brch`` (0: none)."""
        return {"s": self.in_words, "s_brch": self.brch_in_words, "m": self.out_words,
                "m_brch": self.brch_out_words}[prefix]

    def reg_map(self, bits: Callable[[int], str], sep: str = "") -> list[str]:
        """Named connections ``.reg_<name><sep>(<bits(i)>)`` of the registers, in CSR order."""
        return [f".reg_{r}{sep}({bits(i)})" for i, r in enumerate(self.regs)]

    def streams(self) -> list[tuple[str, int, str]]:
        """(port prefix, words, comment) of each stream the core has, in port order."""
        out = [("s", self.in_words, "main input stream")]
        if self.brch_in_words:
            out.append(("s_brch", self.brch_in_words, "branch input stream" + _LOCKSTEP))
        out.append(("m", self.out_words, "main output stream"))
        if self.brch_out_words:
            out.append(("m_brch", self.brch_out_words, "branch output stream" + _LOCKSTEP))
        return out

    def module_header(self) -> list[str]:
        """``module <name> (`` and the port list up to ``);``."""
        ports = ["    input  wire clk,", "    input  wire rst,  // synchronous, active high"]
        for prefix, words, comment in self.streams():
            ports += _stream_ports(prefix, words, comment)
        if self.regs:
            ports.append("    // run-time registers (CSRs)")
            ports += [f"    input  wire [31:0] reg_{r}," for r in self.regs]
        ports[-1] = ports[-1].rstrip(",")
        return [f"module {self.name} (", *ports, ");"]


@dataclass(frozen=True)
class StreamControl:
    """The control of a core: one tick (``ce``) per accepted element, ``drain`` more ticks
    after ``s_last``, ``j_cnt`` counting ticks since the stream began up to ``horizon``
    and ``t_cnt`` ticks since draining began; ``out_space`` holds the input back."""

    drain: int
    horizon: int
    brch_in: bool = False

    @property
    def jw(self) -> int:
        return clog2(self.horizon + 1)

    @property
    def tw(self) -> int:
        return clog2(max(self.drain, 1))

    def counters(self, saturating: str = "saturating") -> list[str]:
        return ["    reg draining_reg;",
                f"    reg [{self.tw - 1}:0] t_cnt;  // ticks since draining began",
                f"    reg [{self.jw - 1}:0] j_cnt;  // ticks since the stream began, {saturating}"]

    def handshake(self) -> list[str]:
        """``s_ready`` (both inputs in lock-step), ``s_fire``, ``ce`` and ``stream_end``."""
        L = ["    wire in_open = !draining_reg && out_space;"]
        if self.brch_in:
            L += ["    assign s_ready = in_open && s_brch_valid;",
                  "    assign s_brch_ready = in_open && s_valid;"]
        else:
            L.append("    assign s_ready = in_open;")
        valid_in = "s_valid && s_brch_valid" if self.brch_in else "s_valid"
        L += [f"    wire s_fire = in_open && {valid_in};",
              "    wire ce = s_fire || (draining_reg && out_space);"]
        if self.drain == 0:
            L.append("    wire stream_end = s_fire && s_last;")
        else:
            L.append(f"    wire stream_end = draining_reg && t_cnt == {self.tw}'d{self.drain - 1};")
        return L

    def reset(self, indent: int) -> list[str]:
        pad = " " * indent
        return [f"{pad}draining_reg <= 1'b0;", f"{pad}t_cnt <= {self.tw}'d0;",
                f"{pad}j_cnt <= {self.jw}'d0;"]

    def advance(self, indent: int) -> list[str]:
        """The counters' step on a tick (inside ``if (ce)``)."""
        pad, jw = " " * indent, self.jw
        L = [f"{pad}if (stream_end) begin", *self.reset(indent + 4), f"{pad}end else begin",
             f"{pad}    if (j_cnt != {jw}'d{self.horizon}) j_cnt <= j_cnt + 1'b1;"]
        if self.drain > 0:
            L += [f"{pad}    if (draining_reg) t_cnt <= t_cnt + 1'b1;",
                  f"{pad}    else if (s_last) draining_reg <= 1'b1;"]
        return L + [f"{pad}end"]


def obuf_count(indent: int) -> list[str]:
    """The output buffer's fill level after a ``push`` and a ``pop`` (outside reset)."""
    pad = " " * indent
    return [f"{pad}if (push && !pop) count_reg <= count_reg + 2'd1;",
            f"{pad}if (pop && !push) count_reg <= count_reg - 2'd1;"]


def obuf_moves(q0: str, q1: str, d: str, indent: int) -> list[str]:
    """The output buffer's two entries ``q0`` (the head) and ``q1`` taking ``d``."""
    pad = " " * indent
    return [f"{pad}if (pop) {q0} <= (count_reg == 2'd2) ? {q1} : {d};",
            f"{pad}else if (push && count_reg == 2'd0) {q0} <= {d};",
            f"{pad}if (push && (count_reg == 2'd2 || (count_reg == 2'd1 && !pop))) {q1} <= {d};"]


def obuf_module(core: str) -> str:
    """``<core>_obuf``: the two-entry output buffer of every output stream."""
    return "\n".join([
        "// Two-entry output buffer: the pipeline enable depends only on its registered",
        "// fill level, never combinationally on the downstream ready.",
        f"module {core}_obuf #(",
        "    parameter DATA_WIDTH = 32  // bits per element, m_last included",
        ") (",
        "    input  wire                  clk,",
        "    input  wire                  rst,",
        "    input  wire                  push,",
        "    input  wire [DATA_WIDTH-1:0] d,",
        "    output wire                  space,",
        "    output wire                  valid,",
        "    input  wire                  ready,",
        "    output wire [DATA_WIDTH-1:0] q",
        ");",
        "    reg [DATA_WIDTH-1:0] q0_reg;",
        "    reg [DATA_WIDTH-1:0] q1_reg;",
        "    reg [1:0] count_reg;",
        "    wire pop = valid && ready;",
        "    always @(posedge clk) begin",
        "        if (rst) begin",
        "            count_reg <= 2'd0;",
        "        end else begin",
        *obuf_count(12),
        "        end",
        *obuf_moves("q0_reg", "q1_reg", "d", 8),
        "    end",
        f"    assign space = {OBUF_SPACE};",
        f"    assign valid = {OBUF_VALID};",
        "    assign q = q0_reg;",
        "endmodule",
        ""])
