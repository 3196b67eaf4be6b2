"""Statement-by-statement parsing with a cache, so an edit re-parses only what it touched.

SPD statements end with ``;`` and hold no other ``;`` outside strings, so a file splits
into chunks (a statement with the comments and blanks before it) by one regular
expression. Each chunk is lexed and parsed on its own by the compiler's own lexer,
ANTLR parser and tree builder, behind a synthetic ``Name _;`` where it sits inside a
module, and its syntax tree is kept keyed by its text. A file whose chunks all parse
has exactly the syntax tree of a whole-file parse (tests/lsp/test_lsp_incremental.py
checks it); a chunk with a syntax error reports the compiler's message for it and
leaves the rest of the tree usable for hover, definitions and completion.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from .._diagnostics import Diagnostic, Diagnostics
from ..frontend import _ast as A
from ..frontend._generated.SPDLexer import SPDLexer
from ..frontend._lexer import FastTokenStream, _Token
from ..frontend._parse import _Builder, _tokens, parse_stream, too_deep

__all__ = ["Chunk", "IncrementalParser", "ParsedFile", "Tok"]

# Statement ends; strings and comments are matched so that a ';' inside them is skipped.
_SPLIT = re.compile(r'"[^"\r\n]*"|(?:#|//)[^\r\n]*|;')
# `Name _ ;` before a chunk that sits inside a module: the parser then sees it in the
# same state as in the whole file (line 0 marks these tokens as not the user's).
_PREFIX = ((SPDLexer.NAME, "Name"), (SPDLexer.ID, "_"), (SPDLexer.literalNames.index("';'"), ";"))


@dataclass(frozen=True)
class Tok:
    """A token at its place in the file: 1-based line, 0-based start and end columns."""

    type: int
    text: str
    line: int
    col: int
    end: int


class _Entry:
    """One chunk text's tokens, parse tree (or syntax errors) and built syntax tree.

    The built tree is moved when its chunk moves to another line: its positions are
    shifted in place (a rebuild costs about 20 times more, and an inserted line moves
    every statement below it). A tree handed out before is therefore only valid until
    the next parse of its document.
    """

    __slots__ = ("errors", "items", "line", "locs", "span", "tokens", "tree")

    def __init__(self, tokens, tree, errors):
        self.tokens = tokens  # the chunk's own tokens, lines relative to the chunk (1-based)
        self.tree = tree
        self.errors = errors  # (message, relative line, 1-based col)
        self.items: list | None = None
        self.locs: list[A.Loc] = []
        self.line = 0
        # (relative line, col) of the first token and (relative line, end col) of the last
        self.span = ((tokens[0].line, tokens[0].column),
                     (tokens[-1].line, tokens[-1].column + len(tokens[-1].text))) \
            if tokens else None

    def items_at(self, path: str, line: int, in_module: bool) -> list:
        """The built items with the chunk's text starting at ``line``."""
        if self.tree is None:
            return []
        if self.items is None:
            items = _items(self.tree, path, line - 1, in_module)
            self.items, self.locs, self.line = items, _locs(items), line
        elif self.line != line:
            d = line - self.line
            for loc in self.locs:
                object.__setattr__(loc, "line", loc.line + d)
            self.line = line
        return self.items


class _ShiftedBuilder(_Builder):
    """The compiler's tree builder with chunk-relative lines moved to the file's."""

    def __init__(self, file: str, dl: int):
        super().__init__(file)
        self.dl = dl

    def loc(self, tok) -> A.Loc:
        return A.Loc(self.f, tok.line + self.dl, tok.column + 1)


class Chunk:
    """One statement (or include, or module header) and its place in the file."""

    __slots__ = ("entry", "in_module", "items", "line", "span")

    def __init__(self, line: int, entry: _Entry, items: list, in_module: bool):
        self.line = line  # 1-based line where the chunk's text starts
        self.entry = entry
        self.items = items  # built syntax-tree pieces (empty when it has a syntax error)
        self.in_module = in_module
        # (line, col) of the first token and (line, end col) of the last, or None
        rel = entry.span
        self.span = None if rel is None else ((rel[0][0] + line - 1, rel[0][1]),
                                              (rel[1][0] + line - 1, rel[1][1]))

    def toks(self) -> list[Tok]:
        dl = self.line - 1
        return [Tok(t.type, t.text, t.line + dl, t.column, t.column + len(t.text))
                for t in self.entry.tokens]


@dataclass(eq=False)
class ParsedFile:
    path: str
    text: str
    source: A.SourceFile  # every statement that parsed (all of them when errors is empty)
    errors: list[Diagnostic]
    chunks: list[Chunk] = field(default_factory=list)
    reparsed: int = 0  # chunks parsed afresh (not from the cache)
    _starts: list | None = None

    def chunk_at(self, line: int, col: int) -> Chunk | None:
        """The chunk whose tokens start at or before (line, col) (1-based line, 0-based col)."""
        if self._starts is None:
            self._starts = [c.span[0] if c.span else (c.line, 0) for c in self.chunks]
        i = bisect.bisect_right(self._starts, (line, col)) - 1
        while i >= 0 and self.chunks[i].span is None:
            i -= 1
        return self.chunks[i] if i >= 0 else None

    def token_at(self, line: int, col: int) -> Tok | None:
        """The token covering (line, col), or ending right there (a cursor after a name)."""
        c = self.chunk_at(line, col)
        if c is None:
            return None
        best = None
        for t in c.toks():
            if t.line == line and t.col <= col <= t.end:
                if t.col <= col < t.end:
                    return t
                best = t
        return best

    def expr_at(self, line: int, col: int) -> A.Expr | None:
        """The expression node (not a plain name) whose own position is (line, col)."""
        c = self.chunk_at(line, col)
        stack = [getattr(it, f) for it in (c.items if c else ())
                 for f in ("value", "args") if hasattr(it, f)]
        stack += [hp.value for it in (c.items if c else ()) if type(it) is A.Hdl
                  for hp in it.params if hp.value is not None]
        while stack:
            x = stack.pop()
            if isinstance(x, list):
                stack.extend(x)
            elif type(x) is not A.NameRef:
                if (x.loc.line, x.loc.col - 1) == (line, col):
                    return x
                stack.extend(A.children(x))
        return None

    def tokens_before(self, line: int, col: int) -> list[Tok]:
        """The tokens of the statement around (line, col) that end at or before it."""
        c = self.chunk_at(line, col)
        if c is None:
            return []
        return [t for t in c.toks() if (t.line, t.end) <= (line, col)]


class IncrementalParser:
    """Parses one document again and again, reusing every unchanged statement.

    An edit that keeps the number of lines (typing within a line, the common case)
    walks only the chunks around the change: those before its first changed character
    and those after a line break past its last one are taken over as they are.
    """

    def __init__(self, path: str):
        self.path = path
        self._cache: dict[tuple, _Entry] = {}
        self._prev: ParsedFile | None = None
        self._offsets: list[int] = []  # where each chunk of the last parse starts
        self._keys: list[tuple] = []  # each chunk's cache key
        self._twins: dict[tuple, int] = {}  # chunks per (text, col0, in_module)

    def parse(self, text: str) -> ParsedFile:
        text = text.removeprefix("\ufeff")
        got = self._reuse(text) if self._prev is not None else None
        if got is None:
            new: dict[tuple, _Entry] = {}
            twins: dict[tuple, int] = {}
            chunks, offsets, keys, _, _, reparsed = self._split(
                text, 0, len(text), 1, False, twins, self._cache, new, None)
            got = (chunks, offsets, keys, twins, new, reparsed)
        chunks, self._offsets, self._keys, self._twins, self._cache, reparsed = got
        source, errors = self._assemble(chunks)
        self._prev = ParsedFile(self.path, text, source, errors, chunks, reparsed)
        return self._prev

    def _split(self, text, lo, hi, line, in_module, twins, old, new, outside):
        """Chunks of ``text[lo:hi]`` (``hi`` ends a chunk), from the cache where possible.

        ``outside``: chunk texts also present outside [lo, hi) make this return None
        (numbering such twins needs the whole file).
        """
        chunks, offsets, keys, reparsed = [], [], [], 0
        pos = lo
        bounds = [m.end() for m in _SPLIT.finditer(text, lo, hi) if m.group() == ";"]
        if (bounds[-1] if bounds else lo) < hi:
            bounds.append(hi)  # a last statement without its ';' yet
        for end in bounds:
            chunk_text = text[pos:end]
            nl = chunk_text.find("\n")
            first = chunk_text[:nl].lstrip() if nl >= 0 else "x"
            if not first or first[0] == "#" or first[:2] == "//":
                col0 = 0  # no token on the first line: where the chunk starts cannot matter
            else:
                col0 = pos - (text.rfind("\n", 0, pos) + 1)
            # the n-th chunk of the same text has its own entry: its tree is placed apart
            base = (chunk_text, col0, in_module)
            if outside is not None and outside.get(base, 0) > 0:
                return None
            n = twins.get(base, 0)
            twins[base] = n + 1
            key = (*base, n)
            entry = old.get(key)
            if entry is None:
                twin = new.get((*base, 0)) if n else None
                if twin is not None:  # the same parse, a tree of its own
                    entry = _Entry(twin.tokens, twin.tree, twin.errors)
                else:
                    entry = self._parse_chunk(chunk_text, col0, in_module)
                    reparsed += 1
            new[key] = entry
            chunks.append(Chunk(line, entry, entry.items_at(self.path, line, in_module),
                                in_module))
            offsets.append(pos)
            keys.append(key)
            if entry.tokens and entry.tokens[0].type == SPDLexer.NAME:
                in_module = True
            line += text.count("\n", pos, end)
            pos = end
        return chunks, offsets, keys, in_module, line, reparsed

    def _reuse(self, text: str):
        """The parse of ``text`` from the last one when the edit kept the line count."""
        prev = self._prev
        old_text, chunks, offs = prev.text, prev.chunks, self._offsets
        if not chunks or text.count("\n") != old_text.count("\n"):
            return None
        p = _common_prefix(old_text, text)
        s = _common_suffix(old_text, text, min(len(old_text), len(text)) - p)
        n = len(chunks)
        ends = offs[1:] + [len(old_text)]
        # Kept: chunks before the changed line and after a line break past the change (a
        # string or comment never spans lines, so the split there cannot change); the
        # last chunk may grow, so it is never kept.
        i = min(bisect.bisect_right(ends, old_text.rfind("\n", 0, p) + 1), n - 1)
        nl = old_text.find("\n", len(old_text) - s)
        j = n if nl < 0 else bisect.bisect_right(offs, nl)
        delta = len(text) - len(old_text)
        hi = offs[j] + delta if j < n else len(text)
        twins = dict(self._twins)
        for key in self._keys[i:j]:
            twins[key[:3]] -= 1
        new = dict(self._cache)
        for key in self._keys[i:j]:
            del new[key]
        got = self._split(text, offs[i], hi, chunks[i].line, chunks[i].in_module, {},
                          self._cache, new, twins)
        if got is None:
            return None
        mid, mid_offs, mid_keys, in_module, line, reparsed = got
        if j < n and (in_module != chunks[j].in_module or line != chunks[j].line):
            return None  # a module started or ended: the rest sits in another context
        for key in mid_keys:
            twins[key[:3]] = twins.get(key[:3], 0) + 1
        return (chunks[:i] + mid + chunks[j:], offs[:i] + mid_offs + [o + delta for o in offs[j:]],
                self._keys[:i] + mid_keys + self._keys[j:], twins, new, reparsed)

    def _assemble(self, chunks: list[Chunk]) -> tuple[A.SourceFile, list[Diagnostic]]:
        errors: list[Diagnostic] = []
        includes: list[A.Include] = []
        modules: list[A.Module] = []
        cur: A.Module | None = None
        for chunk in chunks:
            for msg, rl, col in chunk.entry.errors:
                errors.append(Diagnostic("error", msg, self.path, rl + chunk.line - 1, col))
            for it in chunk.items:
                t = type(it)
                if t is A.Include:
                    includes.append(it)
                elif t is A.Module:
                    cur = A.Module(it.name, it.loc)
                    modules.append(cur)
                elif cur is None:
                    continue  # cannot happen: statements parse only inside a module
                elif t is A.StreamDecl:
                    cur.streams.append(it)
                elif t is A.ParamDecl:
                    cur.params.append(it)
                elif t is A.RegDeclStmt:
                    cur.regs.append(it)
                else:
                    cur.stmts.append(it)
        return A.SourceFile(self.path, includes, modules), errors

    def _parse_chunk(self, chunk_text: str, col0: int, in_module: bool) -> _Entry:
        diags = Diagnostics()
        toks = _tokens(chunk_text, self.path, diags).tokens  # bad characters reported, dropped
        n_lex = len(diags.items)  # their columns are still chunk-relative on line 1
        for t in toks:
            if t.line == 1:
                t.column += col0
        body = toks[:-1]
        if not body or too_deep(toks, self.path, diags):
            return _Entry(body, None, _errs(diags, col0, n_lex))
        prefix = [_Token(t, -1, -1, s, 0, 0) for t, s in _PREFIX] if in_module else []
        tree = parse_stream(FastTokenStream(prefix + toks), self.path, diags)
        return _Entry(body, None if diags.items else tree, _errs(diags, col0, n_lex, body[0]))


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix (halving: each step one C-level comparison)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix, at most ``limit``."""
    lo, hi = 0, max(limit, 0)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:len(a) - lo] == b[len(b) - mid:len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _errs(diags: Diagnostics, col0: int, n_lex: int,
          first=None) -> list[tuple[str, int, int]]:
    """(message, relative line, column) of each error, columns as in the file."""
    out = []
    for i, d in enumerate(diags.items):
        line, col = d.line, d.col
        if line == 0 and first is not None:  # at a synthetic token: the chunk's first one
            line, col = first.line, first.column + 1
        elif i < n_lex and line == 1:
            col += col0
        out.append((d.message, line, col))
    return out


def _items(tree, path: str, dl: int, in_module: bool) -> list:
    sf = _ShiftedBuilder(path, dl).file(tree)
    out: list = list(sf.includes)
    mods = sf.modules[1:] if in_module else sf.modules
    if in_module:
        m = sf.modules[0]
        out += m.streams + m.params + m.regs + m.stmts
    for m in mods:
        out.append(A.Module(m.name, m.loc))
    return out


def _locs(items: list) -> list[A.Loc]:
    """Every position object in ``items``, each once."""
    out, seen = [], set()
    stack = list(items)
    while stack:
        x = stack.pop()
        if isinstance(x, A.Loc):
            if id(x) not in seen:
                seen.add(id(x))
                out.append(x)
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif hasattr(x, "__dataclass_fields__"):
            stack.extend(getattr(x, f) for f in x.__dataclass_fields__)
    return out
