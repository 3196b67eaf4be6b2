"""The interfaces between one module's lowering, its helpers and the loader that drives it."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..ir import Graph, Type
from . import _ast as A
from ._consts import ConstEval

__all__ = ["Lowering", "ModuleLoader"]


class ModuleLoader(Protocol):
    """What lowering a module needs of the program it belongs to (``_program.Loader``)."""

    timings: dict[str, float]

    def report(self, severity: str, message: str, loc: A.Loc | None) -> None: ...

    def has_module(self, name: str) -> bool: ...

    def instantiate(self, name: str, overrides: Mapping[str, Any], at: A.Loc | None,
                    stack: tuple[str, ...], given: list | None = None,
                    is_top: bool = False) -> tuple[str, Graph | None]: ...

    def lowered(self, mod: A.Module, params: dict[str, Any], signals: dict,
                graph: Graph) -> None: ...


class Lowering(Protocol):
    """What the built-in call and HDL statement lowerers need of a module's lowering
    (``_lower._ModuleLowering``)."""

    ld: ModuleLoader
    g: Graph
    ok: bool
    stack: tuple[str, ...]
    signals: dict
    const: ConstEval

    def error(self, msg: str, loc: A.Loc | None) -> None: ...

    def expr(self, e: A.Expr) -> Any: ...

    def const_bits(self, e: A.Expr, t: Type) -> int | None: ...

    def materialize(self, v: Any, t: Type | None, loc: Any) -> Any: ...

    def unify(self, a: Any, b: Any, loc: Any, what: str) -> Any: ...

    def select(self, c: Any, a: Any, b: Any, loc: Any, what: str) -> Any: ...
