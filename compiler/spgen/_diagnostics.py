"""Compiler diagnostics printed as `file:line:col: error: message` with the source line and a caret."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO

__all__ = ["CompileError", "Diagnostic", "Diagnostics", "SpgenError"]


class SpgenError(Exception):
    """A user-facing error (bad input, bad option). The CLI prints it and exits 1."""


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning" | "note"
    message: str
    file: str | None = None
    line: int = 0
    col: int = 0  # 1-based; 0 = unknown

    def format(self, source_line: str | None = None) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}:{self.col}: " if self.line else f"{self.file}: "
        text = f"{where}{self.severity}: {self.message}"
        if source_line is not None and self.line:
            line = source_line.rstrip("\n").expandtabs(1)
            text += f"\n  {line}\n  {' ' * max(self.col - 1, 0)}^"
        return text


@dataclass
class Diagnostics:
    """Collects every independent diagnostic of one run; sources are read for caret lines."""

    items: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def error(self, message: str, file: str | None = None, line: int = 0, col: int = 0) -> None:
        self.items.append(Diagnostic("error", message, file, line, col))

    def warning(self, message: str, file: str | None = None, line: int = 0, col: int = 0) -> None:
        self.items.append(Diagnostic("warning", message, file, line, col))

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    def render(self) -> str:
        out = []
        split: dict[str, list[str]] = {}  # split each source once: thousands of errors stay linear
        for d in self.items:
            src = self.sources.get(d.file or "")
            line = None
            if src is not None and d.line:
                lines = split.get(d.file or "")
                if lines is None:
                    lines = split[d.file or ""] = src.splitlines()
                if 0 < d.line <= len(lines):
                    line = lines[d.line - 1]
            out.append(d.format(line))
        return "\n".join(out)

    def print(self, stream: TextIO | None = None) -> None:
        if self.items:
            print(self.render(), file=stream or sys.stderr)


class CompileError(SpgenError):
    """Raised when a program has errors; carries every diagnostic of the run."""

    def __init__(self, diagnostics: Diagnostics):
        self.diagnostics = diagnostics
        super().__init__(diagnostics.render())
