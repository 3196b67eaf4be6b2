"""What the back end needs from the operator library: latencies, RTL sources, parameters."""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from spgen._diagnostics import SpgenError

__all__ = ["library_modules", "op_latency", "op_params", "op_source"]


def _oplib():
    from spgen import oplib

    return oplib


def op_latency(op: str) -> int:
    try:
        return int(_oplib().LATENCY[op])
    except KeyError:
        raise SpgenError(f"operator {op!r} has no entry in the operator library") from None


def op_source(op: str) -> Path:
    try:
        return Path(_oplib().rtl_source(op))
    except (KeyError, FileNotFoundError):
        raise SpgenError(f"operator {op!r} has no RTL in the operator library") from None


@cache
def _text(path: str) -> str:
    return Path(path).read_text()


def op_params(op: str) -> set[str]:
    """Parameter names the operator's module declares (FTZ, WIDTH)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", _text(str(op_source(op))), flags=re.DOTALL)
    m = re.search(rf"\bmodule\s+spg_{op}\s*#\s*\((.*?)\)\s*\(", text, re.DOTALL)
    if not m:
        return set()
    return set(re.findall(r"\bparameter\s+(?:integer\s+)?(\w+)", m.group(1)))


def library_modules() -> dict[str, Path]:
    """Module name -> file for every module of the operator library."""
    out: dict[str, Path] = {}
    for f in _oplib().rtl_files():
        for m in re.findall(r"^\s*module\s+(\w+)", _text(str(f)), re.MULTILINE):
            out[m] = Path(f)
    return out
