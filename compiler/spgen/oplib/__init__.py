"""Verilog operator library: one pipelined module per computing IR op, and its latency table.

The large modules are hand-written in rtl/ (header comment and body; ``_modules`` writes
their heads from its table), the thin ones over a shared core (comparisons, integer
division, conversions, bitwise and sign-bit operations) whole from its table; every module
is a file in one cache folder, which ``rtl_source`` names. The Arria 10
hard floating-point operators (one DSP block each, ``_dsp``) have a Quartus file and a
behavioural model each."""
from __future__ import annotations

import re
from pathlib import Path

from ._dsp import DSP_LATENCY, DSP_OPS, dsp_model_file, dsp_primitive_file, dsp_stub_file
from ._modules import RTL_SOURCES, generated_dir

__all__ = ["DSP_LATENCY", "DSP_OPS", "LATENCY", "RTL_DIR", "dsp_model_file", "dsp_primitive_file",
           "dsp_stub_file", "rtl_dependencies", "rtl_files", "rtl_source"]

# The hand-written sources: each file the header comment and body of a module whose head
# ``_modules`` writes; read the whole modules through rtl_source and rtl_files.
RTL_DIR = RTL_SOURCES

# Cycles from operands to `y` with `ce` held high; 0 = purely combinational.
# The single latency table: the back ends read it, the RTL tests measure every module
# against it. Why each figure closes timing at 200 MHz on Arria 10: the module header.
LATENCY: dict[str, int] = {
    # f32 arithmetic
    "fadd": 6, "fsub": 6, "fmul": 6, "fdiv": 30, "fsqrt": 28,
    "fneg": 0, "fabs": 0, "fmin": 1, "fmax": 1,
    # f32 comparisons
    "flt": 1, "fle": 1, "fgt": 1, "fge": 1, "feq": 1, "fne": 1,
    # integer arithmetic
    "add": 1, "sub": 1, "mul": 3, "neg": 1,
    "sdiv": 34, "udiv": 33, "srem": 34, "urem": 33,
    "shl": 1, "lshr": 1, "ashr": 1,
    "smin": 1, "smax": 1, "umin": 1, "umax": 1, "iabs": 1,
    # integer comparisons
    "ieq": 1, "ine": 1, "slt": 1, "sle": 1, "sgt": 1, "sge": 1,
    "ult": 1, "ule": 1, "ugt": 1, "uge": 1,
    # bitwise / logical, select
    "and": 1, "or": 1, "xor": 1, "not": 0, "select": 1,
    # conversions
    "sitofp": 4, "uitofp": 4, "fptosi": 2, "fptoui": 2, "bitcast": 0, "booltoint": 0,
}

# Which modules have the FTZ and WIDTH parameters: the op table (spgen.ir.OPS, fields
# float and width); the RTL tests check the modules against it.


def rtl_source(op: str) -> Path:
    """Path of the Verilog file of operator `op` (module `spg_<op>`)."""
    if op not in LATENCY:
        from .._diagnostics import SpgenError
        raise SpgenError(f"no operator-library module for IR op {op!r}")
    return generated_dir() / f"spg_{op}.v"


def rtl_files() -> list[Path]:
    """Every Verilog file of the library (one module each, named after it), in a stable order.

    Besides the op modules spg_<op>.v these are the shared cores spg_<name>_core.v that
    several op modules instantiate (spg_idiv_core, spg_fcmp_core, ...); they are no IR ops.
    """
    return sorted(generated_dir().glob("spg_*.v"), key=lambda p: p.name)


# An instantiation `spg_x #(` or `spg_x name (`.
_INSTANCE = re.compile(r"\b(spg_\w+)\s+(?:#\s*\(|\w+\s*\()")


def rtl_dependencies(op: str) -> list[Path]:
    """The files to compile for operator `op`: its own first, then every library module it
    instantiates, transitively (a shared core, spg_fadd for spg_fsub)."""
    by_module = {p.stem: p for p in rtl_files()}
    out = [rtl_source(op)]
    i = 0
    while i < len(out):
        for m in _INSTANCE.findall(out[i].read_text()):
            if m in by_module and by_module[m] not in out:
                out.append(by_module[m])
        i += 1
    return out
