"""What the back end needs from the operator library: latencies, RTL sources, parameters."""
from __future__ import annotations

from pathlib import Path

from spgen._diagnostics import SpgenError
from spgen.ir import OPS

# f32 operators an Arria 10 floating-point DSP block computes with --hard-fp: one block each,
# in its single-precision add or multiply mode. Everything else stays logic.
from spgen.oplib import DSP_OPS

__all__ = ["DSP_OPS", "dsp_files", "op_latency", "op_params", "op_rtl"]


def _oplib():
    from spgen import oplib

    return oplib


def op_latency(op: str, hard_fp: bool = False) -> int:
    """Cycles from operands to result; with ``hard_fp`` the DSP block's for DSP_OPS."""
    if hard_fp and op in DSP_OPS:
        return int(_oplib().DSP_LATENCY)
    try:
        return int(_oplib().LATENCY[op])
    except KeyError:
        raise SpgenError(f"operator {op!r} has no entry in the operator library") from None


def op_rtl(op: str) -> list[Path]:
    """The files of the operator's module and every library module it instantiates."""
    try:
        return _oplib().rtl_dependencies(op)
    except (KeyError, FileNotFoundError):
        raise SpgenError(f"operator {op!r} has no RTL in the operator library") from None


def op_params(op: str) -> set[str]:
    """Parameter names the operator's module declares (the op table's float and width)."""
    info = OPS[op]
    return ({"FTZ"} if info.float else set()) | ({"WIDTH"} if info.width else set())


def dsp_files(op: str) -> tuple[Path, Path]:
    """(behavioural model, Quartus wrapper over twentynm_fp_mac) of DSP operator ``op``."""
    lib = _oplib()
    return lib.dsp_model_file(op), lib.dsp_primitive_file(op)
