"""Files, includes, Params and module instances: everything above one module's lowering."""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from .._diagnostics import Diagnostic, Diagnostics
from ..ir import Graph
from . import _ast as A
from ._consts import ConstError, ConstEval
from ._lower import lower_module
from ._parse import parse_text

__all__ = ["Loader"]


class _Failed:
    """A Param whose value has an error (reported once); its uses stay silent."""


FAILED = _Failed()


class Loader:
    """One run of the front end: reads files, resolves includes, lowers module instances."""

    def __init__(self, diags: Diagnostics, timings: dict[str, float] | None = None):
        self.diags = diags
        self.timings: dict[str, float] = {} if timings is None else timings
        self.files: dict[str, A.SourceFile | None] = {}
        self.modules: dict[str, A.Module] = {}
        self.instances: dict[tuple, tuple[str, Graph | None]] = {}
        self._reported: set[tuple] = set()
        self.syntax_ok = True

    # ---- diagnostics --------------------------------------------------------------
    def report(self, severity: str, message: str, loc: A.Loc | None) -> None:
        if not message:
            return
        key = (severity, message, loc)
        if key in self._reported:  # the same module lowered with other Params
            return
        self._reported.add(key)
        if loc is None:
            self.diags.items.append(Diagnostic(severity, message))
        else:
            self.diags.items.append(Diagnostic(severity, message, loc.file, loc.line, loc.col))

    # ---- files ---------------------------------------------------------------------
    def load_file(self, path: str, chain: tuple[str, ...] = (), at: A.Loc | None = None) -> None:
        if "\x00" in path:  # the OS refuses such names (ValueError, not OSError)
            self.report("error", f"cannot read {path!r}: the path contains a NUL character",
                        at or A.Loc(path.replace("\x00", "\\0"), 0, 0))
            return
        key = os.path.realpath(path)
        if key in chain:
            names = [os.path.basename(p) for p in chain[chain.index(key):]] + [
                os.path.basename(key)]
            self.report("error", "include cycle: " + " -> ".join(names), at)
            return
        if key in self.files:
            return
        try:
            raw = self.read(path)
        except OSError as ex:
            msg = f"cannot read '{path}': {ex.strerror or ex}"
            if at is None:
                self.report("error", msg, A.Loc(path, 0, 0))
            else:
                self.report("error", msg, at)
            self.files[key] = None
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as ex:
            line = raw[:ex.start].count(b"\n") + 1
            col = ex.start - (raw.rfind(b"\n", 0, ex.start) + 1) + 1
            self.diags.sources[path] = raw.decode("utf-8", "replace")
            self.report("error", "file is not valid UTF-8", A.Loc(path, line, col))
            self.files[key] = None
            self.syntax_ok = False
            return
        text = text.removeprefix("\ufeff")
        self.diags.sources[path] = text
        try:
            sf = self.parse(text, path)
        except RecursionError:
            self.report("error", "the program is nested too deeply to parse",
                        A.Loc(path, 1, 1))
            sf = None
        self.files[key] = sf
        if sf is None:
            self.syntax_ok = False
            return
        for inc in sf.includes:
            target = os.path.normpath(os.path.join(os.path.dirname(path), inc.path))
            self.load_file(target, chain + (key,), inc.loc)
        for m in sf.modules:
            prev = self.modules.get(m.name)
            if prev is not None:
                self.report("error", f"module '{m.name}' is already defined", m.loc)
                self.report("note", f"previous definition of '{m.name}' is here", prev.loc)
            else:
                self.modules[m.name] = m

    # Hooks for tools that serve unsaved editor text and keep what the checks found
    # (the language server, spgen/lsp): the compiler itself uses them as they are.
    def read(self, path: str) -> bytes:
        with open(path, "rb") as fh:
            return fh.read()

    def parse(self, text: str, path: str) -> A.SourceFile | None:
        return parse_text(text, path, self.diags, self.timings)

    def lowered(self, mod: A.Module, params: dict[str, Any], signals: dict, graph: Graph) -> None:
        """Called after each module instance is checked, with its signals and (partial) graph."""

    def has_module(self, name: str) -> bool:
        return name in self.modules

    # ---- Params and instances ----------------------------------------------------------
    def eval_params(self, mod: A.Module, overrides: Mapping[str, Any]) -> dict[str, Any]:
        decls: dict[str, A.ParamDecl] = {}
        for p in mod.params:
            if p.name in decls:
                self.report("error", f"Param '{p.name}' is already defined", p.loc)
                self.report("note", f"previous definition of '{p.name}' is here",
                            decls[p.name].loc)
            else:
                decls[p.name] = p
        values: dict[str, Any] = {}
        busy: set[str] = set()

        def get(name: str, loc: A.Loc):
            if name in overrides:
                return overrides[name]
            if name in values:
                v = values[name]
                if v is FAILED:
                    raise ConstError("", loc)
                return v
            if name not in decls:
                raise ConstError(f"'{name}' is not a Param (a constant expression may only "
                                 "use literals and Params)", loc)
            if name in busy:
                raise ConstError(f"Param '{name}' depends on itself", loc)
            busy.add(name)
            try:
                values[name] = ev.eval(decls[name].value)
            except ConstError:
                values[name] = FAILED
                raise
            finally:
                busy.discard(name)
            return values[name]

        ev = ConstEval(get)
        for name, p in decls.items():
            try:
                get(name, p.loc)
            except ConstError as ex:
                self.report("error", ex.message, ex.loc)
        out = {}
        for name in decls:
            out[name] = overrides[name] if name in overrides else values.get(name, FAILED)
        return out

    def instantiate(self, name: str, overrides: Mapping[str, Any], at: A.Loc | None,
                    stack: tuple[str, ...], given: list | None = None, is_top: bool = False):
        """The specialised graph of module ``name`` (cached), or ``(key, None)`` on errors."""
        mod = self.modules[name]
        pnames = {p.name for p in mod.params}
        bad = False
        for k in overrides:
            if k not in pnames:
                loc = next((p.loc for p in given or [] if p.name == k), at)
                self.report("error", f"module '{name}' has no Param '{k}'", loc)
                bad = True
        if name in stack:
            self.report("error", "recursive instantiation: " + " -> ".join(stack + (name,)), at)
            return name, None
        if bad:
            return name, None
        ck = (name, tuple(sorted((k, type(v).__name__, v) for k, v in overrides.items())))
        if ck in self.instances:
            return self.instances[ck]
        key = name if (is_top or not overrides) else name + "__" + "__".join(
            f"{k}_{_sanitize(v)}" for k, v in sorted(overrides.items()))
        self.instances[ck] = (key, None)  # provisional, in case of errors below
        params = self.eval_params(mod, overrides)
        if any(v is FAILED for v in params.values()):
            return key, None
        try:
            g = lower_module(self, mod, params, key, stack + (name,))
        except RecursionError:
            self.report("error", f"module '{name}' is nested too deeply to compile", mod.loc)
            g = None
        self.instances[ck] = (key, g)
        return key, g


def _sanitize(v: Any) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", str(v).replace("-", "m").replace(".", "p"))
