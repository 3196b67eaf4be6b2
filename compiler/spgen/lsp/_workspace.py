"""Open documents and the files they include: parsed and indexed per edit, checked when due."""
from __future__ import annotations

import contextlib
import functools
import gc
import os
from dataclasses import dataclass, field

from .._diagnostics import Diagnostic
from ..frontend import _ast as A
from ._check import CheckResult, check
from ._incremental import IncrementalParser, ParsedFile
from ._index import Index, Symbol, build_index, expr_end_loc

__all__ = ["Diag", "Document", "FileView", "Workspace"]

# A whole-file parse of more text than this is too slow to run on every keystroke
# (about 0.3 s for 2,000 statements on a 2-core machine): such a file shows the
# per-statement syntax errors at once and the whole-file ones after a pause.
_BIG_TEXT = 40_000


@dataclass(eq=False)
class FileView:
    """One version of a file: its text and parse; the index is built when first asked for
    (hover, definitions, completion, symbols), not on every keystroke."""

    path: str
    parsed: ParsedFile
    others: dict[str, Symbol]  # the modules of included files

    @functools.cached_property
    def index(self) -> Index:
        return build_index(self.parsed, self.others)

    @functools.cached_property
    def modules(self) -> dict[str, Symbol]:
        """Every module visible here: this file's and the included ones."""
        return {**self.others, **self.index.modules}

    @functools.cached_property
    def lines(self) -> list[str]:
        return self.parsed.text.split("\n")


@dataclass
class Diag:
    """A diagnostic with a range: 0-based lines, 0-based code-point columns."""

    severity: str
    message: str
    range: tuple[int, int, int, int]
    related: list[tuple[str, tuple[int, int, int, int], str]] = field(default_factory=list)
    unused: bool = False


@contextlib.contextmanager
def _no_gc():
    """Cyclic GC off while parsing and checking, as in the front end: the cached parse
    trees are millions of objects that a full collection would walk on every edit."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class Workspace:
    """Every open document, and the included files read from disk (cached by mtime)."""

    def __init__(self):
        self.docs: dict[str, Document] = {}  # real path -> document
        self._disk: dict[str, tuple[tuple, IncrementalParser, FileView | None]] = {}

    def open(self, path: str, text: str) -> Document:
        doc = Document(self, path)
        self.docs[os.path.realpath(path)] = doc
        doc.update(text)
        return doc

    def close(self, path: str) -> None:
        self.docs.pop(os.path.realpath(path), None)

    def view(self, path: str, _seen: frozenset = frozenset()) -> FileView | None:
        """The current view of ``path``: the open document's, or the file on disk."""
        real = os.path.realpath(path)
        doc = self.docs.get(real)
        if doc is not None:
            return doc.view
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        cached = self._disk.get(real)
        if cached is not None and cached[0] == stamp:
            return cached[2]
        parser = cached[1] if cached is not None else IncrementalParser(path)
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError, ValueError):
            self._disk[real] = (stamp, parser, None)
            return None
        self._disk[real] = (stamp, parser, None)  # an include cycle finds it unfinished
        view = self._make_view(parser, path, text, _seen | {real})
        self._disk[real] = (stamp, parser, view)
        return view

    def _make_view(self, parser: IncrementalParser, path: str, text: str,
                   seen: frozenset) -> FileView:
        parsed = parser.parse(text)
        others: dict[str, Symbol] = {}
        for target in includes(parsed):
            real = os.path.realpath(target)
            if real in seen:
                continue
            v = self.view(target, seen)
            if v is not None:
                for name, sym in v.modules.items():
                    others.setdefault(name, sym)
        return FileView(path, parsed, others)


def includes(parsed: ParsedFile) -> list[str]:
    """Paths of the files a file includes, as the front end resolves them."""
    base = os.path.dirname(parsed.path)
    return [os.path.normpath(os.path.join(base, inc.path)) for inc in parsed.source.includes]


class Document:
    """An open `.spd` document: the latest view, and the latest compiler check of it."""

    def __init__(self, ws: Workspace, path: str):
        self.ws = ws
        self.path = path
        self.parser = IncrementalParser(path)
        self.view: FileView | None = None
        self.check: CheckResult | None = None
        self.checked_view: FileView | None = None
        self.costs: dict[str, float] = {}  # "check" / "exact": seconds of the last such run
        self.showing_syntax = False  # the client shows per-statement syntax errors

    def update(self, text: str) -> FileView:
        with _no_gc():
            self.view = self.ws._make_view(self.parser, self.path, text,
                                           frozenset({os.path.realpath(self.path)}))
        return self.view

    # ---- checks ---------------------------------------------------------------------
    def due(self, budget_s: float) -> str | None:
        """The check the current view needs, "check" or "exact", if it fits in ``budget_s``.

        A view with syntax errors gets the compiler's whole-file parse ("exact"); one
        without runs the checks on the tree already parsed ("check").
        """
        kind = "exact" if self.view.parsed.errors else "check"
        cost = self.costs.get(kind)
        if cost is None and kind == "exact" and len(self.view.parsed.text) > _BIG_TEXT:
            return None
        return kind if cost is None or cost <= budget_s else None

    def deferred(self) -> str | None:
        """The check to run once typing pauses, if any.

        A big file with syntax errors keeps its per-statement errors: the compiler's
        whole-file parse would only add the follow-on errors of its recovery, and would
        hold the server for seconds.
        """
        if not self.view.parsed.errors:
            return "check"
        return "exact" if len(self.view.parsed.text) <= _BIG_TEXT else None

    def run_check(self, kind: str) -> CheckResult:
        view = self.view
        texts = {real: d.view.parsed.text for real, d in self.ws.docs.items() if d.view}
        asts = {}
        for real, d in self.ws.docs.items():
            if d.view is not None and not d.view.parsed.errors:
                asts[real] = d.view.parsed.source
        for real, (_, _, v) in self.ws._disk.items():
            if v is not None and not v.parsed.errors:
                asts.setdefault(real, v.parsed.source)
        me = os.path.realpath(self.path)
        if kind == "exact":
            asts.pop(me, None)
        with _no_gc():
            res = check(self.path, texts, asts)
        self.costs[kind] = res.seconds
        self.check, self.checked_view = res, view
        return res

    def fast_diagnostics(self) -> list[Diag]:
        """The per-statement syntax errors of the current view (before the exact check)."""
        return self.convert(self.view.parsed.errors, self.view)

    def diagnostics(self) -> list[Diag]:
        return self.convert(self.check.diagnostics, self.checked_view)

    def convert(self, items: list[Diagnostic], view: FileView) -> list[Diag]:
        me = os.path.realpath(self.path)
        incs = {os.path.realpath(p): inc for p, inc in zip(includes(view.parsed),
                                                             view.parsed.source.includes)}
        out: list[Diag] = []
        for d in items:
            if d.severity == "note":
                if out:
                    out[-1].related.append((d.file or self.path,
                                            self._range_in(d.file, d.line, d.col, view),
                                            d.message))
                continue
            real = os.path.realpath(d.file) if d.file else me
            if real == me:
                out.append(Diag(d.severity, d.message, diag_range(view, d.line, d.col),
                                unused=d.message.endswith("is never used")))
                continue
            # A finding in an included file shows on the Include that brings it in.
            inc = incs.get(real) or (view.parsed.source.includes or [None])[0]
            rng = (_string_range(inc) if inc is not None else (0, 0, 0, 0))
            where = f"{os.path.basename(d.file)}:{d.line}:{d.col}" if d.line else d.file
            out.append(Diag(d.severity, f"{where}: {d.message}", rng,
                            [(d.file, self._range_in(d.file, d.line, d.col, view), d.message)]))
        return out

    def _range_in(self, file: str | None, line: int, col: int, view: FileView):
        if not file or os.path.realpath(file) == os.path.realpath(self.path):
            return diag_range(view, line, col)
        other = self.ws.view(file)
        return diag_range(other, line, col) if other is not None else _point(line, col)


def _string_range(inc: A.Include) -> tuple[int, int, int, int]:
    line, col = inc.loc.line - 1, inc.loc.col - 1
    return line, col, line, col + len(inc.path) + 2


def _point(line: int, col: int) -> tuple[int, int, int, int]:
    line0, col0 = max(line - 1, 0), max(col - 1, 0)
    return line0, col0, line0, col0


def diag_range(view: FileView, line: int, col: int) -> tuple[int, int, int, int]:
    """From the compiler's 1-based line:col to the end of the token or expression there."""
    if line <= 0:
        return 0, 0, 0, 0
    c0 = col - 1
    parsed = view.parsed
    chunk = parsed.chunk_at(line, c0)
    toks = chunk.toks() if chunk is not None else []
    i = next((k for k, t in enumerate(toks) if t.line == line and t.col == c0), None)
    if i is None:  # a character the lexer dropped, or a missing token's place
        text = view.lines[line - 1] if line <= len(view.lines) else ""
        wide = c0 < len(text) and not text[c0].isspace()
        return line - 1, c0, line - 1, c0 + wide
    e = parsed.expr_at(line, c0)
    last = i
    if e is not None:
        leaf = expr_end_loc(e)
        j = next((k for k in range(i, len(toks))
                  if (toks[k].line, toks[k].col) == (leaf.loc.line, leaf.loc.col - 1)), None)
        if j is not None:
            last = j
            if type(leaf) is A.Call:  # through the call's closing parenthesis
                last = _closing(toks, j + 1)
            depth = sum(1 if t.text == "(" else -1 if t.text == ")" else 0
                        for t in toks[i:last + 1])
            while depth > 0 and last + 1 < len(toks) and toks[last + 1].text == ")":
                last += 1
                depth -= 1
    t = toks[last]
    return line - 1, c0, t.line - 1, t.end


def _closing(toks, k: int) -> int:
    """Index of the ')' matching the '(' at ``k`` (or the last token if unbalanced)."""
    depth = 0
    for j in range(k, len(toks)):
        if toks[j].text == "(":
            depth += 1
        elif toks[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1
