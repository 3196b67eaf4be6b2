"""The runtime's one error type: a failed C API call as an exception with its afu_result."""
from __future__ import annotations

from typing import Any

from .._diagnostics import SpgenError
from ._build import load_extension

__all__ = ["AfuError", "check"]


class AfuError(SpgenError):
    """A runtime call failed; `code` is the C API's afu_result, `name` its short name."""

    def __init__(self, code: int, message: str) -> None:
        ext = load_extension()
        self.code = code
        self.name = next((k for k, v in ext.CODES.items() if v == code), str(code))
        super().__init__(f"{message} [{ext.error_name(code)}]")


def check(result: tuple[int, str, Any]) -> Any:
    """The value of an extension call's (code, message, value), or AfuError."""
    code, msg, value = result
    if code:
        raise AfuError(code, msg)
    return value
