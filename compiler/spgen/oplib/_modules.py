"""Operator modules written from tables: the thin ones whole, the hand-written ones' headers.

Each op keeps its own module `spg_<op>` (the back ends and the tests instantiate one
module per IR op), but where the modules of a family differ only in a parameter of a
shared core or in one operator expression, their text is made here from the family's
template and the op's row: the header comment that justifies the op's latency, then the
ports, then the body. The large modules (fadd, fmul, fdiv, fsqrt, the shared cores, mul
and the DSP models) are hand-written in rtl/: each file there is the module's header
comment and body, and its module line, parameters, ports and parameter checks are written
here from the table ``_HAND``, so that one interface is spelt once.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from .._tools import cache_dir, content_hash

__all__ = ["GENERATED", "HAND_WRITTEN", "RTL_SOURCES", "generated_dir", "hand_written", "ports",
           "written"]

RTL_SOURCES = Path(__file__).resolve().parent / "rtl"

_CE = "    input  wire        clk,\n    input  wire        ce,  // clock enable: the pipeline holds while low\n"
# clk and ce of a combinational module: kept for the uniform interface
_CE_UNUSED = ("    /* verilator lint_off UNUSEDSIGNAL */\n"
              "    input  wire        clk,  // unused: combinational\n"
              "    input  wire        ce,   // unused: combinational\n"
              "    /* verilator lint_on UNUSEDSIGNAL */\n")


def ports(operands: str, y: str, width: str = "[31:0]", clock: str = _CE) -> str:
    """Ports: clk, ce (``_CE_UNUSED`` for a combinational module), the operands and y
    (widths padded to one column). An operand ``s`` is the 1-bit condition of a select."""
    lines = ["    input  wire        s,   // condition: a when true, b when false" if x == "s"
             else f"    input  wire {width} {x}," for x in operands]
    return clock + "".join(line + "\n" for line in lines) + f"    output wire {y} y\n"


class Param(NamedTuple):
    """A module parameter, and the values its initial block accepts (``bad``: the others)."""

    name: str
    default: str
    doc: str
    bad: str
    legal: str
    unused: bool = False  # accepted to keep an interface uniform, never read


def _bit(name: str, doc: str, unused: bool = False) -> Param:
    return Param(name, "0", doc, f"{name} != 0 && {name} != 1", "0 or 1", unused)


_FTZ_DOC = "1: subnormal inputs and results flushed to zero, sign kept"
FTZ = _bit("FTZ", _FTZ_DOC)
FTZ_UNUSED = _bit("FTZ", _FTZ_DOC, unused=True)


def module_head(module: str, params: tuple[Param, ...], port_text: str) -> str:
    """``module`` with its parameters (each commented), ``port_text`` and the initial block
    that rejects an illegal parameter value."""
    if not params:
        return f"module {module} (\n{port_text});\n"
    decls = [f"parameter {p.name} = {p.default}" + ("," if i < len(params) - 1 else "")
             for i, p in enumerate(params)]
    width = max(map(len, decls))
    lines = []
    for p, decl in zip(params, decls, strict=True):
        line = f"    {decl:<{width}}  // {p.doc}\n"
        lines.append(f"    /* verilator lint_off UNUSEDPARAM */\n{line}"
                     "    /* verilator lint_on UNUSEDPARAM */\n" if p.unused else line)
    checks = "".join(f"        if ({p.bad}) begin\n"
                     f'            $display("{module}: {p.name} must be {p.legal}");\n'
                     "            $finish;\n        end\n" for p in params)
    return (f"module {module} #(\n{''.join(lines)}) (\n{port_text});\n"
            f"    initial begin\n{checks}    end\n")


def _wrapper(op: str, doc: str, instance: str, operands: str, y: str = "[31:0]",
             ftz: bool = True) -> str:
    """A module that is one ``instance`` of another module (FTZ passed on if ``ftz``)."""
    head = module_head(f"spg_{op}", (FTZ,) if ftz else (), ports(operands, y))
    return f"{doc}{head}    {instance}\nendmodule\n"


def _core(op: str, doc: str, core: str, params: str, operands: str, y: str = "[31:0]",
          ftz: bool = True) -> str:
    """A module that is one instance of a shared core (``params`` besides FTZ)."""
    conns = "".join(f", .{x}({x})" for x in operands)
    ps = f".FTZ(FTZ), {params}" if ftz else params
    return _wrapper(op, doc, f"{core} #({ps}) core (.clk(clk), .ce(ce){conns}, .y(y));",
                    operands, y, ftz)


def _registered(op: str, doc: str, expr: str, operands: str = "ab", bool_y: bool = False,
                params: tuple[Param, ...] = (), width: str = "[31:0]") -> str:
    """An operation of one cycle: ``expr`` into the output register (1 bit if ``bool_y``)."""
    y = "      " if bool_y else width
    return (f"{doc}{module_head(f'spg_{op}', params, ports(operands, y, width))}"
            f"    reg {'' if bool_y else width + ' '}y_reg;\n"
            f"    always @(posedge clk) if (ce) y_reg <= {expr};\n"
            "    assign y = y_reg;\nendmodule\n")


def _width(op: str, doc: str, expr: str, operands: str = "ab", types: str = "i32/u32",
           registered: bool = True) -> str:
    """A WIDTH-bit operation (bool when WIDTH = 1): ``expr`` into the output register, or
    wiring (latency 0, clk and ce unused). An operand ``s`` is the 1-bit condition."""
    w = "[WIDTH-1:0]"
    width = Param("WIDTH", "32", f"operand width: 32 ({types}) or 1 (bool)",
                  "WIDTH != 32 && WIDTH != 1", "32 or 1")
    if registered:
        return _registered(op, doc, expr, operands, params=(width,), width=w)
    return (f"{doc}{module_head(f'spg_{op}', (width,), ports(operands, w, w, _CE_UNUSED))}"
            f"    assign y = {expr};\nendmodule\n")


def _sign(op: str, doc: str, unused: str, result: str) -> str:
    """A combinational sign-bit operation: FTZ accepted (uniform interface), never used."""
    return (f"{doc}{module_head(f'spg_{op}', (FTZ_UNUSED,), ports('a', '[31:0]', clock=_CE_UNUSED))}"
            f"{unused}    assign y = {result};\nendmodule\n")


def _wire(op: str, doc: str, expr: str, a: str = "[31:0]") -> str:
    """Pure wiring from the one operand ``a`` (of width ``a``), no parameters."""
    return (f"{doc}{module_head(f'spg_{op}', (), ports('a', '[31:0]', a, _CE_UNUSED))}"
            f"    assign y = {expr};\nendmodule\n")


def pipelined(expr: str, b: str = "b") -> str:
    """The body of a latency-3 operation as a DSP block registers it: the operands (b_reg
    takes ``b``), ``expr`` of them, the output."""
    return ("    reg [31:0] a_reg, b_reg, r_reg, y_reg;\n"
            "    always @(posedge clk) if (ce) begin\n"
            f"        a_reg <= a;\n        b_reg <= {b};\n        r_reg <= {expr};\n"
            "        y_reg <= r_reg;\n    end\n    assign y = y_reg;\nendmodule\n")


def _doc(*lines: str) -> str:
    return "`default_nettype none\n" + "".join(f"// {line}\n" for line in lines)


_FCMP_TIMING = ("Latency 1: the shared comparison spg_fcmp_core (FTZ detection, a 32-bit carry",
                "chain, ~3 ns on Arria 10), one 5 ns cycle at 200 MHz.")
_MINMAX_TIMING = ("Latency 1: the shared comparison spg_fcmp_core (FTZ detection, a 32-bit carry",
                  "chain and a 2:1 mux, ~3.5 ns on Arria 10), one 5 ns cycle at 200 MHz.")
_NAN_FALSE = "(IEEE: false when either operand is NaN; -0 == +0)."
_IDIV = ("The shared restoring divider spg_idiv_core (see there for the timing), initiation",
         "interval 1, no DSPs.")
_I2F = ("Results are integers, never",
        "subnormal, so FTZ has no effect; FTZ is accepted to keep the float interface uniform.")
_LOGIC_TIMING = ("Latency 1: one LUT level; registered so that chains of logic operations in a",
                 "generated core never form long combinational paths.")
_SIGN_TIMING = ("Latency 0: pure wiring (one inverter at most). A sign-bit operation, not",
                "arithmetic (IEEE 754 5.5.1): it never flushes, so FTZ has no effect here;",
                "FTZ is accepted so that every float operator has the same interface.")


def _fcmp(op: str, relation: str, pred: int, nan: str = _NAN_FALSE) -> str:
    return _core(op, _doc(f"spg_{op}: f32 {relation} -> bool {nan}", *_FCMP_TIMING),
                 "spg_fcmp_core", f".PRED({pred})", "ab", y="      ")


def _idiv(op: str, what: str, signed: int, rem: int, *latency: str) -> str:
    return _core(op, _doc(f"spg_{op}: {what}", *_IDIV, *latency), "spg_idiv_core",
                 f".SIGNED({signed}), .REMAINDER({rem})", "ab", ftz=False)


def _i2f(op: str, what: str, signed: int, first: str) -> str:
    return _core(op, _doc(f"spg_{op}: {what}, round-to-nearest-even. {_I2F[0]}", _I2F[1],
                          f"Latency 4: the shared converter spg_i2f_core ({first}, leading-zero count,",
                          "normalization shift, rounding: one per 5 ns cycle at 200 MHz on Arria 10)."),
                 "spg_i2f_core", f".SIGNED({signed})", "a")


def _f2i(op: str, what: str, signed: int, *latency: str) -> str:
    return _core(op, _doc(f"spg_{op}: {what}", "Subnormal operands truncate to 0 with or "
                          "without FTZ (FTZ cannot change the result).", *latency),
                 "spg_f2i_core", f".SIGNED({signed})", "a")


_CARRY = ("Latency 1: one 32-bit carry chain or a few LUT levels (~2-3 ns on Arria 10)",
          "fits the 5 ns cycle of 200 MHz with margin for routing.")
_SHIFT = ("Latency 1: a 32-bit barrel shifter is 5 levels of 2:1 muxes, which the 6-input",
          "ALMs of Arria 10 pack into ~3 LUT levels (~2.5 ns), one 5 ns cycle at 200 MHz.")
_MINMAX = ("Latency 1: a 32-bit comparison (carry chain) and a 2:1 mux, ~3 ns on Arria 10,",
           "fit one 5 ns cycle at 200 MHz.")
_ICMP = "Latency 1: one 32-bit comparison (a carry chain, ~2 ns on Arria 10) per 5 ns cycle."
_SHIFTED_OUT = "(b[31:5] != 27'd0) ? "


def _int(op: str, what: str, timing: tuple[str, ...], expr: str, operands: str = "ab") -> str:
    return _registered(op, _doc(f"spg_{op}: {what}", *timing), expr, operands)


def _icmp(op: str, what: str, expr: str) -> str:
    return _registered(op, _doc(f"spg_{op}: {what} -> bool.", _ICMP), expr, bool_y=True)


_MUL = ("Latency 3: input registers, product, output register -- the registers a 32x32",
        "multiplier built from Arria 10 DSP blocks (27x27 / 18x19 modes and the adder",
        "that joins their partial products) absorbs to run well above 200 MHz.")
_MINMAX_FTZ = ("With FTZ the comparison sees flushed operands and the result is the flushed",
               "operand (never a subnormal).")

# op -> the text of its module
GENERATED: dict[str, str] = {
    "flt": _fcmp("flt", "a < b", 0),
    "fle": _fcmp("fle", "a <= b", 1),
    "fgt": _fcmp("fgt", "a > b", 2),
    "fge": _fcmp("fge", "a >= b", 3),
    "feq": _fcmp("feq", "a == b", 4),
    "fne": _fcmp("fne", "a != b", 5,
                 "(IEEE: false when either operand is NaN, except !=; -0 == +0)."),
    "fmin": _core("fmin", _doc("spg_fmin: f32 a < b ? a : b (a NaN operand gives b), as SPD.md "
                               "defines it.", *_MINMAX_FTZ, *_MINMAX_TIMING),
                  "spg_fcmp_core", ".PRED(6)", "ab"),
    "fmax": _core("fmax", _doc("spg_fmax: f32 a > b ? a : b (a NaN operand gives b), as SPD.md "
                               "defines it.", *_MINMAX_FTZ, *_MINMAX_TIMING),
                  "spg_fcmp_core", ".PRED(7)", "ab"),
    "sdiv": _idiv("sdiv", "signed a / b rounded toward zero; b == 0 gives 0; INT_MIN / -1 "
                  "gives INT_MIN.", 1, 0,
                  "Latency 34: operand magnitudes, 32 division steps, negate the quotient when the",
                  "signs differ (b == 0 gives 0)."),
    "srem": _idiv("srem", "signed a % b with the sign of a; b == 0 gives 0; INT_MIN % -1 "
                  "gives 0.", 1, 1,
                  "Latency 34: operand magnitudes, 32 division steps, give the remainder the sign",
                  "of a (b == 0 gives 0)."),
    "udiv": _idiv("udiv", "unsigned a / b; b == 0 gives 0.", 0, 0,
                  "Latency 33: 32 division steps, select the quotient (b == 0 gives 0)."),
    "urem": _idiv("urem", "unsigned a % b; b == 0 gives 0.", 0, 1,
                  "Latency 33: 32 division steps, select the remainder (b == 0 gives 0)."),
    "sitofp": _i2f("sitofp", "i32 -> f32", 1, "negation"),
    "uitofp": _i2f("uitofp", "u32 -> f32", 0, "a register"),
    "fptosi": _f2i("fptosi", "f32 -> i32 toward zero, saturating to INT_MIN/INT_MAX, NaN -> 0.",
                   1, "Latency 2: the shared converter spg_f2i_core (a barrel shifter, then a "
                   "negation", "and saturation, one per 5 ns cycle at 200 MHz on Arria 10)."),
    "fptoui": _f2i("fptoui", "f32 -> u32 toward zero, saturating to UINT_MAX, negative -> 0, "
                   "NaN -> 0.", 0, "Latency 2: the shared converter spg_f2i_core (a barrel "
                   "shifter, then saturation,", "one per 5 ns cycle at 200 MHz on Arria 10)."),
    "fsub": _wrapper("fsub", _doc("spg_fsub: f32 a - b, computed as a + (-b) by spg_fadd "
                                  "(flipping the sign of a",
                                  "NaN b still gives a NaN result), so it has spg_fadd's rounding.",
                                  "Latency: that of spg_fadd (the sign flip is wiring)."),
                     "spg_fadd #(.FTZ(FTZ)) add (.clk(clk), .ce(ce), .a(a), "
                     ".b({~b[31], b[30:0]}), .y(y));", "ab"),
    "add": _int("add", "integer a + b mod 2^32 (i32/u32).", _CARRY, "a + b"),
    "sub": _int("sub", "integer a - b mod 2^32 (i32/u32).", _CARRY, "a - b"),
    "neg": _int("neg", "integer -a mod 2^32.", _CARRY, "32'd0 - a", "a"),
    "iabs": _int("iabs", "i32 a < 0 ? -a : a (abs(INT_MIN) = INT_MIN).", _CARRY,
                 "a[31] ? 32'd0 - a : a", "a"),
    "shl": _int("shl", "a << b; b >= 32 (b unsigned) gives 0.", _SHIFT,
                _SHIFTED_OUT + "32'd0 : a << b[4:0]"),
    "lshr": _int("lshr", "logical a >> b (u32); b >= 32 gives 0.", _SHIFT,
                 _SHIFTED_OUT + "32'd0 : a >> b[4:0]"),
    "ashr": _int("ashr", "arithmetic a >> b (i32); b >= 32 gives the sign fill.", _SHIFT,
                 _SHIFTED_OUT + "{32{a[31]}} : $unsigned($signed(a) >>> b[4:0])"),
    "smin": _int("smin", "signed min.", _MINMAX, "($signed(a) < $signed(b)) ? a : b"),
    "smax": _int("smax", "signed max.", _MINMAX, "($signed(a) > $signed(b)) ? a : b"),
    "umin": _int("umin", "unsigned min.", _MINMAX, "(a < b) ? a : b"),
    "umax": _int("umax", "unsigned max.", _MINMAX, "(a > b) ? a : b"),
    "ieq": _icmp("ieq", "a == b", "a == b"),
    "ine": _icmp("ine", "a != b", "a != b"),
    "slt": _icmp("slt", "signed a < b", "$signed(a) < $signed(b)"),
    "sle": _icmp("sle", "signed a <= b", "$signed(a) <= $signed(b)"),
    "sgt": _icmp("sgt", "signed a > b", "$signed(a) > $signed(b)"),
    "sge": _icmp("sge", "signed a >= b", "$signed(a) >= $signed(b)"),
    "ult": _icmp("ult", "unsigned a < b", "a < b"),
    "ule": _icmp("ule", "unsigned a <= b", "a <= b"),
    "ugt": _icmp("ugt", "unsigned a > b", "a > b"),
    "uge": _icmp("uge", "unsigned a >= b", "a >= b"),
    "and": _width("and", _doc("spg_and: bitwise a & b (i32/u32), logical and (bool, WIDTH = 1).",
                              *_LOGIC_TIMING), "a & b"),
    "or": _width("or", _doc("spg_or: bitwise a | b (i32/u32), logical or (bool, WIDTH = 1).",
                            *_LOGIC_TIMING), "a | b"),
    "xor": _width("xor", _doc("spg_xor: bitwise a ^ b (i32/u32, bool with WIDTH = 1).",
                              *_LOGIC_TIMING), "a ^ b"),
    "not": _width("not", _doc("spg_not: bitwise ~a (i32/u32), logical !a (bool, WIDTH = 1).",
                              "Latency 0: a single inverter, which synthesis absorbs into the LUT "
                              "that reads it."), "~a", "a", registered=False),
    "select": _width("select", _doc("spg_select: s ? a : b for any type (WIDTH = 32 for "
                                    "f32/i32/u32, 1 for bool).", "Latency 1: one 2:1 mux (a "
                                    "single LUT level), registered so that chains of selects in",
                                    "a generated core never form long combinational paths."),
                     "s ? a : b", "sab", types="f32/i32/u32"),
    "fneg": _sign("fneg", _doc("spg_fneg: f32 flip the sign bit (also of NaN).", *_SIGN_TIMING),
                  "", "{~a[31], a[30:0]}"),
    "fabs": _sign("fabs", _doc("spg_fabs: f32 clear the sign bit (also of NaN).", *_SIGN_TIMING),
                  "    /* verilator lint_off UNUSEDSIGNAL */\n"
                  "    wire unused_sign = a[31];  // the result ignores the old sign\n"
                  "    /* verilator lint_on UNUSEDSIGNAL */\n", "{1'b0, a[30:0]}"),
    "mul": f"{_doc('spg_mul: integer a * b mod 2^32 (the low word; the same bits for i32 and u32).', *_MUL)}"
           f"{module_head('spg_mul', (), ports('ab', '[31:0]'))}{pipelined('a_reg * b_reg')}",
    "bitcast": _wire("bitcast", _doc("spg_bitcast: the same 32 bits under a new type (bits(), "
                                     "fbits(), i32 <-> u32).", "Latency 0: pure wiring. Never "
                                     "flushes subnormals, so it has no FTZ parameter."), "a"),
    "booltoint": _wire("booltoint", _doc("spg_booltoint: bool -> i32/u32 0 or 1.",
                                         "Latency 0: pure wiring (zero extension)."),
                       "{31'd0, a}", "      "),
}


_CMP = "0 lt, 1 le, 2 gt, 3 ge, 4 eq, 5 ne (1-bit y); 6 min, 7 max (32-bit y)"
# The hand-written modules, rtl/<path>.v: parameters, operands, the width of y.
_HAND: dict[str, tuple[tuple[Param, ...], str, str]] = {
    "spg_fadd": ((FTZ,), "ab", "[31:0]"),
    "spg_fmul": ((FTZ,), "ab", "[31:0]"),
    "spg_fdiv": ((FTZ,), "ab", "[31:0]"),
    "spg_fsqrt": ((FTZ,), "a", "[31:0]"),
    "spg_fcmp_core": ((FTZ, Param("PRED", "0", _CMP, "PRED < 0 || PRED > 7", "0..7")), "ab",
                      "[((PRED >= 6) ? 32 : 1)-1:0]"),
    "spg_f2i_core": ((FTZ_UNUSED, _bit("SIGNED", "1: i32 result, 0: u32 result")), "a", "[31:0]"),
    "spg_i2f_core": ((FTZ_UNUSED, _bit("SIGNED", "1: a is i32, 0: a is u32")), "a", "[31:0]"),
    "spg_idiv_core": ((_bit("SIGNED", "1: two's complement operands and result"),
                       _bit("REMAINDER", "1: y is the remainder, 0: y is the quotient")), "ab",
                      "[31:0]"),
    "dsp_model/spg_dsp_fadd": ((), "ab", "[31:0]"),
    "dsp_model/spg_dsp_fmul": ((), "ab", "[31:0]"),
}


# The DSP models: rtl/ holds the function a block computes; the pipeline is ``pipelined``'s.
_PIPELINED = {"dsp_model/spg_dsp_fadd": "add(a_reg, b_reg)",
              "dsp_model/spg_dsp_fmul": "mul(a_reg, b_reg)"}


def hand_written(path: str, module: str = "", b: str = "b") -> tuple[str, str, str]:
    """rtl/<path>.v as its header comment (up to the first line that is neither a comment
    nor a directive), the module head written from ``_HAND`` (for ``module``, by default
    the file's own) and its body (a DSP model's with its pipeline, whose b register takes
    ``b``)."""
    lines = (RTL_SOURCES / f"{path}.v").read_text().splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if not line.startswith(("`", "//")))
    params, operands, y = _HAND[path]
    head = module_head(module or Path(path).name, params, ports(operands, y))
    tail = pipelined(_PIPELINED[path], b) if path in _PIPELINED else ""
    return "".join(lines[:n]), head, "".join(lines[n:]) + tail


# path (no .v) -> the text of a hand-written module, whole
HAND_WRITTEN: dict[str, str] = {path: "".join(hand_written(path)) for path in _HAND}


def written(kind: str, files: dict[str, str]) -> Path:
    """A cache folder holding ``files`` (relative path -> text), written once per content."""
    out = cache_dir(kind) / content_hash(*(f"{name}\n{text}" for name, text in sorted(files.items())))
    if not (out / ".complete").exists():
        for name, text in files.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_text(text)
            tmp.replace(path)  # atomic: parallel workers may race
        (out / ".complete").touch()
    return out


def generated_dir() -> Path:
    """The folder holding every module of the library as a file, the hand-written ones with
    their heads (written once per content). The DSP models are the DSP folder's (``_dsp``)."""
    return written("oplib-modules", {**{f"spg_{op}.v": text for op, text in GENERATED.items()},
                                     **{f"{path}.v": text for path, text in HAND_WRITTEN.items()
                                        if "/" not in path}})
