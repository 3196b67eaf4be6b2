"""What the back end needs from the operator library: latencies, RTL sources, parameters."""
from __future__ import annotations

from pathlib import Path

from spgen._diagnostics import SpgenError
from spgen.ir import OPS

__all__ = ["op_latency", "op_params", "op_rtl"]


def _oplib():
    from spgen import oplib

    return oplib


def op_latency(op: str) -> int:
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
