"""The SPD front end: parse, check and lower `.spd` programs to the dataflow IR."""
from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._diagnostics import CompileError, Diagnostics
from ..ir import Graph, Program
from ._consts import parse_value
from ._program import Loader

__all__ = ["check_file", "load_program"]

# Nesting is legal SPD; the parser recurses per level, so it runs on a thread with
# a large stack and a matching recursion limit. Deeper input gets a diagnostic.
_STACK_BYTES = 512 << 20
_RECURSION_LIMIT = 60_000


def load_program(path: str | Path, *, top: str | None = None,
                 params: Mapping[str, Any] | None = None) -> tuple[Program, Diagnostics]:
    """Parse, check and lower ``path``; the IR contract is in docs/internals.md.

    Raises :class:`spgen.CompileError` carrying every diagnostic of the run when
    there is any error; warnings come back in the returned ``Diagnostics``.
    """
    return _run(Path(path), top, params, None)


def _load_timed(path: str | Path, timings: dict[str, float], *, top: str | None = None,
                params: Mapping[str, Any] | None = None) -> tuple[Program, Diagnostics]:
    """``load_program`` that also fills ``timings`` with CPU seconds per phase (benchmarks)."""
    return _run(Path(path), top, params, timings)


def _run(path: Path, top, params, timings):
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["value"] = _load(path, top, params, timings)
        except BaseException as ex:  # noqa: BLE001 -- re-raised on the caller's thread
            result["error"] = ex

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    # The parse tree is millions of small objects: cyclic GC passes over them cost
    # more than all parsing, and nothing here needs cycles collected early.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            threading.stack_size(_STACK_BYTES)
            t = threading.Thread(target=work, name="spgen-frontend", daemon=True)
            sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
            t.start()
        except (ValueError, RuntimeError):
            # No big thread stack on this platform: run here with the normal limit;
            # deep input then meets RecursionError sooner, still as a diagnostic.
            sys.setrecursionlimit(old_limit)
            work()
        else:
            t.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
        if gc_was_enabled:
            gc.enable()
    if "error" in result:
        raise result["error"]
    return result["value"]


def _load(path: Path, top: str | None, params: Mapping[str, Any] | None,
          timings: dict[str, float] | None = None):
    diags = Diagnostics()
    try:
        prog = _load_into(diags, path, top, params, timings)
    except CompileError:
        _sort(diags)
        raise CompileError(diags) from None
    _sort(diags)
    return prog


def _sort(diags: Diagnostics) -> None:
    """Order diagnostics by position, keeping each note right after its error."""
    groups: list[list] = []
    for d in diags.items:
        if d.severity == "note" and groups:
            groups[-1].append(d)
        else:
            groups.append([d])
    groups.sort(key=lambda g: (g[0].file is not None, g[0].file or "", g[0].line, g[0].col))
    diags.items[:] = [d for g in groups for d in g]


def _load_into(diags: Diagnostics, path: Path, top: str | None,
               params: Mapping[str, Any] | None, timings: dict[str, float] | None,
               loader: Loader | None = None):
    ld = loader or Loader(diags, timings)
    file = str(path)
    ld.load_file(file)
    if not ld.syntax_ok or diags.has_errors:
        raise CompileError(diags)
    sf = ld.files.get(_real(file))
    if sf is None or not sf.modules:
        diags.error("the file defines no module (a module starts with 'Name <name>;')", file,
                    1, 1)
        raise CompileError(diags)
    if top is None:
        top_name = sf.modules[-1].name
    elif top not in ld.modules:
        diags.error(f"no module named '{top}' (modules: "
                    f"{', '.join(sorted(ld.modules))})", file)
        raise CompileError(diags)
    else:
        top_name = top
    overrides: dict[str, Any] = {}
    known = {p.name for p in ld.modules[top_name].params}
    for k, v in (params or {}).items():
        if k not in known:
            diags.error(f"-P {k}: module '{top_name}' has no Param '{k}'")
            continue
        if isinstance(v, str):
            try:
                v = parse_value(v)
            except ValueError:
                diags.error(f"-P {k}={v}: the value must be an integer or a real number")
                continue
        elif not isinstance(v, (bool, int, float)):
            diags.error(f"-P {k}: unsupported value {v!r}")
            continue
        elif isinstance(v, float):
            from ._consts import bits_to_float, float_to_bits

            v = bits_to_float(float_to_bits(v))
        overrides[k] = v
    key, g = ld.instantiate(top_name, overrides, None, (), is_top=True)
    # Every module of the main file is checked, even when the top does not use it.
    for m in sf.modules:
        if m.name != top_name and ld.modules.get(m.name) is m:
            ld.instantiate(m.name, {}, None, ())
    if g is None or diags.has_errors:
        if not diags.has_errors:
            diags.error(f"module '{top_name}' could not be compiled", file)
        raise CompileError(diags)
    modules: dict[str, Graph] = {}
    todo = [g]
    by_key = {k: gr for k, gr in ld.instances.values() if gr is not None}
    while todo:
        cur = todo.pop()
        if cur.name in modules:
            continue
        modules[cur.name] = cur
        for n in cur.nodes:
            if n.op == "inst":
                todo.append(by_key[n.attrs["module"]])
    return Program(modules, key), diags


def _real(p: str) -> str:
    return os.path.realpath(p)


def check_file(path: str | Path, *, top: str | None = None,
               params: Mapping[str, Any] | None = None) -> Diagnostics:
    """All diagnostics of a program (errors included) without raising."""
    try:
        return load_program(path, top=top, params=params)[1]
    except CompileError as ex:
        return ex.diagnostics
