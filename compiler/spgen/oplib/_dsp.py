"""Arria 10 hard floating-point DSP operators: Quartus wrappers and their behavioural models."""
from __future__ import annotations

from pathlib import Path

from ._modules import HAND_WRITTEN, hand_written, module_head, ports, written

__all__ = ["DSP_LATENCY", "DSP_OPS", "dsp_model_file", "dsp_primitive_file", "dsp_stub_file"]

# The ops one FP32 DSP block computes (module spg_dsp_<op>, ports clk ce a b y).
DSP_OPS = frozenset({"fadd", "fsub", "fmul"})
# Cycles from operands to `y` with `ce` high: every register of the block on (input,
# multiplier or adder-input pipeline, output), as Intel's generated code sets them.
DSP_LATENCY = 3

# The block's register settings in the order of Intel's generated code; each is clk[0]
# ("0") where the op's path runs through it, else "NONE".
_CLOCKS = ("ax", "ay", "az", "mult_pipeline", "adder_input", "ax_chainin_pl", "accumulate",
           "accum_pipeline", "accum_adder", "output")
# The inputs that are tied to 0 whatever the op (no chain, no accumulator).
_TIED = ((".chainin", "32'd0"), (".accumulate", "1'b0"), (".chainin_overflow", "1'b0"),
         (".chainin_invalid", "1'b0"), (".chainin_underflow", "1'b0"),
         (".chainin_inexact", "1'b0"))
# The block's other parameters, each with a placeholder default, and what the stub says of
# the parameters it declares (Intel's names; the defaults matter to no tool that reads it).
_MODES = (("operation_mode", '"sp_mult"', "sp_mult, sp_add, sp_mult_add, sp_mult_acc, ..."),
          ("adder_subtract", '"false"', '"true": the adder computes ay - ax'),
          ("use_chainin", '"false"', '"true": chainin replaces ax'))
_CLOCK_DOC = {"ax": 'input registers: "NONE" or clk[0..2]', "mult_pipeline": "multiplier pipeline "
              "register", "adder_input": "adder input register", "ax_chainin_pl": "ax / chainin "
              "pipeline register", "accumulate": "accumulate-control registers",
              "output": "output register"}
_STUB_DOC = """`default_nettype none
// twentynm_fp_mac, the Arria 10 floating-point DSP block primitive, as a black box: the
// ports and parameters that the spg_dsp_* wrappers use (written by spgen.oplib from the
// wrappers' own table, so the two agree), so that Verilator lint and Yosys can read those
// wrappers. Never part of a Quartus project (Quartus has the real primitive) and never
// simulated: the behavioural models stand for the wrappers. The names follow Intel's
// generated code; the defaults here are placeholders. The file is named for what it is,
// hence the lint waivers (and the body is empty).
"""
_WAIVED = ("DECLFILENAME", "UNUSEDPARAM", "UNUSEDSIGNAL", "UNDRIVEN")


def _stub() -> str:
    """The black-box declaration of twentynm_fp_mac: the parameters and pins above."""
    params = [*_MODES, *((f"{c}_clock", '"NONE"', _CLOCK_DOC.get(c, "")) for c in _CLOCKS)]
    decls = [f"parameter {name} = {default}" + ("," if i < len(params) - 1 else "")
             for i, (name, default, _) in enumerate(params)]
    width = max(map(len, decls))
    lines = [f"    {d:<{width}}  // {doc}".rstrip(" /") for d, (_, _, doc) in zip(decls, params,
                                                                             strict=True)]
    pins = [("[2:0] ", "clk"), ("[2:0] ", "ena"), ("[1:0] ", "aclr"),
            *(("[31:0]", r) for r in ("ax", "ay", "az")),
            *(("[31:0]" if value.startswith("32") else "      ", pin[1:]) for pin, value in _TIED)]
    return (_STUB_DOC + "".join(f"/* verilator lint_off {w} */\n" for w in _WAIVED)
            + "(* blackbox *)\nmodule twentynm_fp_mac #(\n" + "\n".join(lines) + "\n) (\n"
            + "".join(f"    input  wire {w} {name},\n" for w, name in pins)
            + "    output wire [31:0] resulta\n);\nendmodule\n"
            + "".join(f"/* verilator lint_on {w} */\n" for w in reversed(_WAIVED)))


class _Block:
    """How one op sets up the block: mode, adder direction, the path's registers, operands."""

    def __init__(self, symbol: str, mode: str, subtract: str, registers: tuple[str, ...],
                 operands: dict[str, str]):
        self.symbol, self.mode, self.subtract = symbol, mode, subtract
        self.registers, self.operands = registers, operands

    def wrapper(self, op: str) -> str:
        """spg_dsp_<op> for Quartus: one twentynm_fp_mac instance."""
        adder = self.mode == "sp_add"
        inputs = [r for r in self.registers if len(r) == 2]
        result = ("ay - ax" if self.subtract == "true" else "ay + ax") if adder else "ay * az"
        mode = f'"{self.mode}" mode' + (' with adder_subtract = "true"' if self.subtract == "true"
                                        else "")
        path = (("adder", "adder input") if adder else ("multiplier", "multiplier pipeline"))
        clocks = [f'        .{c}_clock("{"0" if c in self.registers else "NONE"}"),' for c in _CLOCKS]
        pins = [*((f".{r}", self.operands.get(r, "32'd0")) for r in ("ax", "ay", "az")), *_TIED]
        return (
            "`default_nettype none\n"
            f"// spg_dsp_{op} (Quartus): f32 y = a {self.symbol} b in one Arria 10 FP32 DSP block,\n"
            f"// twentynm_fp_mac in {mode} (resulta = {result}).\n"
            "// Written by spgen.oplib from one template for the three DSP ops. For simulation,\n"
            f"// lint and Yosys, read the behavioural model spg_dsp_{op} (dsp_model_file) instead:\n"
            "// same module, ports and latency, the behaviour Intel documents (round to nearest\n"
            "// even, subnormals flushed to zero).\n"
            f"// Latency 3: every register of the {path[0]} path on clk[0] with ena[0] = ce, as\n"
            f"// Intel's generated code sets them: input ({', '.join(inputs)}), {path[1]}, output.\n"
            "// aclr is tied off (the pipeline needs no reset; ce holds it). Unused inputs are\n"
            "// tied to 0.\n"
            + module_head(f"spg_dsp_{op}", (), ports("ab", "[31:0]")) +
            "    twentynm_fp_mac #(\n"
            f'        .operation_mode("{self.mode}"),\n'
            f'        .adder_subtract("{self.subtract}"),\n'
            '        .use_chainin("false"),\n'
            + "\n".join(clocks).rstrip(",") + "\n"
            "    ) dsp (\n"
            "        .clk({2'b00, clk}),\n"
            "        .ena({2'b00, ce}),\n"
            "        .aclr(2'b00),\n"
            + "".join(f"        {pin}({value}),\n" for pin, value in pins)
            + "        .resulta(y)\n    );\nendmodule\n")


_ADDER = ("ax", "ay", "adder_input", "output")
_BLOCKS = {
    "fadd": _Block("+", "sp_add", "false", _ADDER, {"ax": "b", "ay": "a"}),
    "fsub": _Block("-", "sp_add", "true", _ADDER, {"ax": "b", "ay": "a"}),
    "fmul": _Block("*", "sp_mult", "false", ("ay", "az", "mult_pipeline", "output"),
                   {"ay": "b", "az": "a"}),
}

# The subtractor's model is the adder's with the sign of b flipped as it enters the
# pipeline (a NaN b stays a NaN): made from spg_dsp_fadd's file, so the two cannot drift.
_FSUB_DOC = """`default_nettype none
// spg_dsp_fsub (behavioural model): f32 y = a - b as one Arria 10 FP32 DSP block in
// "sp_add" mode with adder_subtract = "true" computes it (ay - ax), for Verilator, Yosys
// and the simulated card (Intel's own model is encrypted). Quartus builds the wrapper
// spg_dsp_fsub (spgen.oplib.dsp_primitive_file) instead: same module, same ports, same
// latency. The sum is that of spg_dsp_fadd with the sign of b flipped (a NaN b stays a
// NaN), so x - x = +0 and (-0) - (+0) = -0; see spg_dsp_fadd for the semantics. Bit for
// bit what spg_fsub #(.FTZ(1)) computes. Written from spg_dsp_fadd's file by spgen.oplib.
// Latency 3, the block's registers all on: inputs (ax, ay), adder input, output.
// Simulation only: the sum is exact in a 280-bit fixed-point register, then rounded.
"""


def _fsub_model() -> str:
    _, head, body = hand_written("dsp_model/spg_dsp_fadd", "spg_dsp_fsub", b="{~b[31], b[30:0]}")
    return _FSUB_DOC + head + body


def _written() -> Path:
    files = {f"dsp/spg_dsp_{op}.v": block.wrapper(op) for op, block in _BLOCKS.items()}
    files.update({f"{path}.v": text for path, text in HAND_WRITTEN.items()
                  if path.startswith("dsp_model/")})
    files["dsp_model/spg_dsp_fsub.v"] = _fsub_model()
    files["dsp/twentynm_fp_mac_stub.v"] = _stub()
    return written("oplib-dsp", files)


def _check(op: str) -> None:
    if op not in DSP_OPS:
        from .._diagnostics import SpgenError
        raise SpgenError(f"no hard floating-point DSP module for IR op {op!r} "
                         f"(only {', '.join(sorted(DSP_OPS))})")


def dsp_model_file(op: str) -> Path:
    """Behavioural model of spg_dsp_<op> (Verilator, Yosys, the simulated card); one file,
    no dependencies; bit-exact with spg_<op> at FTZ = 1."""
    _check(op)
    return _written() / "dsp_model" / f"spg_dsp_{op}.v"


def dsp_primitive_file(op: str) -> Path:
    """spg_dsp_<op> for Quartus: one twentynm_fp_mac instance; one file."""
    _check(op)
    return _written() / "dsp" / f"spg_dsp_{op}.v"


def dsp_stub_file() -> Path:
    """Black-box declaration of twentynm_fp_mac, for lint and Yosys only (Quartus has its own)."""
    return _written() / "dsp" / "twentynm_fp_mac_stub.v"
