"""The compiler's checks on editor text: the front end run on unsaved buffers, its findings kept."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._diagnostics import CompileError, Diagnostic, Diagnostics
from .._fpenv import ieee_fp
from ..frontend import _ast as A
from ..frontend import _load_into, _sort
from ..frontend._program import Loader
from ..ir import Graph, Program

__all__ = ["CheckResult", "Lowered", "check", "stages"]


@dataclass
class Lowered:
    """What the checks of one module found: Param values, signals, the graph so far."""

    params: dict[str, Any]
    signals: dict
    graph: Graph
    instances: int = 1


@dataclass
class CheckResult:
    diagnostics: list[Diagnostic]
    program: Program | None  # None when there is an error
    lowered: dict[int, Lowered] = field(default_factory=dict)  # id(A.Module) -> findings
    seconds: float = 0.0
    _stages: dict | None = None


class _EditorLoader(Loader):
    """A Loader that reads open documents from memory and reuses their syntax trees."""

    def __init__(self, diags: Diagnostics, texts: dict[str, str], asts: dict[str, A.SourceFile]):
        super().__init__(diags)
        self.texts = texts
        self.asts = asts
        self.found: dict[int, Lowered] = {}

    def read(self, path: str) -> bytes:
        text = self.texts.get(os.path.realpath(path))
        return text.encode("utf-8") if text is not None else super().read(path)

    def parse(self, text: str, path: str) -> A.SourceFile | None:
        sf = self.asts.get(os.path.realpath(path))
        if sf is not None and sf.path == path:
            return sf
        return super().parse(text, path)

    def lowered(self, mod, params, signals, graph) -> None:
        prev = self.found.get(id(mod))
        if prev is None:
            self.found[id(mod)] = Lowered(params, signals, graph)
        else:  # the first instance's findings stay; hover says how many there are
            prev.instances += 1


def check(path: str, texts: dict[str, str], asts: dict[str, A.SourceFile]) -> CheckResult:
    """Run the front end on ``path`` as ``spgen check`` does, with editor texts and trees.

    ``texts`` and ``asts`` are keyed by real path; a file without a tree is parsed by
    the compiler itself (so its syntax errors are exactly the compiler's).
    """
    t0 = time.perf_counter()
    diags = Diagnostics()
    ld = _EditorLoader(diags, texts, asts)
    program = None
    try:
        with ieee_fp():
            program, _ = _load_into(diags, Path(path), None, None, None, loader=ld)
    except CompileError:
        pass
    except RecursionError:
        diags.error("the program is nested too deeply to check", path, 1, 1)
    _sort(diags)
    return CheckResult(diags.items, program, ld.found, time.perf_counter() - t0)


def stages(res: CheckResult) -> tuple[dict[tuple[str, int, int], list[int]], int] | None:
    """Pipeline ticks of the compiled top module per source position, and its latency.

    The Verilog back end's schedule gives a tick per IR node of the optimised graph; a
    source position maps to the ticks of the nodes that still carry it (folded or merged
    expressions have none; an expression of a module instantiated twice has two).
    """
    if res.program is None:
        return None
    if res._stages is None:
        from ..backend.verilog._schedule import schedule
        from ..passes import optimize

        try:
            with ieee_fp():
                graph = optimize(res.program)
            best, _ = schedule(graph)
        except Exception:  # noqa: BLE001 -- no stages then; hover still shows the rest
            res._stages = ({}, -1)
            return None
        ticks: dict[tuple[str, int, int], list[int]] = {}
        for n in graph.nodes:
            t = best.tau.get(n.id)
            if n.loc is None or t is None:
                continue
            key = (os.path.realpath(n.loc.file), n.loc.line, n.loc.col)
            lst = ticks.setdefault(key, [])
            if t not in lst:
                lst.append(t)
        for v in ticks.values():
            v.sort()
        res._stages = (ticks, best.sink)
    return res._stages if res._stages[1] >= 0 else None
