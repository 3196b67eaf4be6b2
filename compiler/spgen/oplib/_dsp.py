"""Arria 10 hard floating-point DSP operators: Quartus wrappers and their behavioural models."""
from __future__ import annotations

from pathlib import Path

__all__ = ["DSP_LATENCY", "DSP_OPS", "dsp_model_file", "dsp_primitive_file", "dsp_stub_file"]

_RTL = Path(__file__).resolve().parent / "rtl"

# The ops one FP32 DSP block computes (module spg_dsp_<op>, ports clk ce a b y).
DSP_OPS = frozenset({"fadd", "fsub", "fmul"})
# Cycles from operands to `y` with `ce` high: every register of the block on (input,
# multiplier or adder-input pipeline, output), as Intel's generated code sets them.
DSP_LATENCY = 3


def _check(op: str) -> None:
    if op not in DSP_OPS:
        from .._diagnostics import SpgenError
        raise SpgenError(f"no hard floating-point DSP module for IR op {op!r} "
                         f"(only {', '.join(sorted(DSP_OPS))})")


def dsp_model_file(op: str) -> Path:
    """Behavioural model of spg_dsp_<op> (Verilator, Yosys, the simulated card); one file,
    no dependencies; bit-exact with spg_<op> at FTZ = 1."""
    _check(op)
    return _RTL / "dsp_model" / f"spg_dsp_{op}.v"


def dsp_primitive_file(op: str) -> Path:
    """spg_dsp_<op> for Quartus: one twentynm_fp_mac instance; one file."""
    _check(op)
    return _RTL / "dsp" / f"spg_dsp_{op}.v"


def dsp_stub_file() -> Path:
    """Black-box declaration of twentynm_fp_mac, for lint and Yosys only (Quartus has its own)."""
    return _RTL / "dsp" / "twentynm_fp_mac_stub.v"
