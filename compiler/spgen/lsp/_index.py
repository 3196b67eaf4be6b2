"""The symbol index of a parsed file: definitions, references and expression nodes by position."""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from ..frontend import _ast as A
from ._incremental import ParsedFile

__all__ = ["Index", "Occurrence", "Symbol", "build_index", "expr_end_loc"]

# kind of a signal defined by each statement type
_STMT_KIND = {A.Equ: "equ", A.Hdl: "hdl", A.Drct: "drct"}


@dataclass(eq=False)
class Symbol:
    """A module, port, Param, Reg or signal, at the name that defines it."""

    name: str
    kind: str  # module | input | output | param | reg | equ | hdl | drct
    loc: A.Loc
    module: A.Module | None  # the module it belongs to (None for a module)
    node: object  # the declaring syntax-tree node
    span: tuple | None = None  # ((line, col), (line, end col)) of its whole statement
    detail: dict = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Occurrence:
    """A name at a position: where a symbol is defined, declared or used."""

    line: int
    col: int  # 0-based
    end: int
    symbol: Symbol | None  # None: a name that resolves to nothing
    role: str  # def | decl | ref
    name: str


@dataclass(eq=False)
class Index:
    path: str
    modules: dict[str, Symbol] = field(default_factory=dict)  # defined in this file
    scopes: dict[int, dict[str, Symbol]] = field(default_factory=dict)  # id(Module) -> names
    occurrences: list[Occurrence] = field(default_factory=list)
    exprs: dict[tuple[int, int], A.Expr] = field(default_factory=dict)  # (line, col0) -> node
    module_spans: list[tuple[A.Module, tuple, tuple]] = field(default_factory=list)

    def __post_init__(self):
        self._keys: list[tuple[int, int]] = []

    def finish(self) -> None:
        self.occurrences.sort(key=lambda o: (o.line, o.col))
        self._keys = [(o.line, o.col) for o in self.occurrences]

    def occurrence_at(self, line: int, col: int) -> Occurrence | None:
        i = bisect.bisect_right(self._keys, (line, col)) - 1
        for j in (i, i - 1):  # the cursor may sit right after a name
            if 0 <= j < len(self.occurrences):
                o = self.occurrences[j]
                if o.line == line and o.col <= col <= o.end:
                    return o
        return None

    def module_at(self, line: int) -> A.Module | None:
        """The module whose text contains ``line`` (1-based): the last one started before it."""
        cur = None
        for m, start, _ in self.module_spans:
            if start[0] <= line:
                cur = m
        return cur

    def symbols(self) -> list[Symbol]:
        seen, out = set(), []
        for o in self.occurrences:
            if o.role == "def" and o.symbol is not None and id(o.symbol) not in seen:
                seen.add(id(o.symbol))
                out.append(o.symbol)
        return out


def build_index(parsed: ParsedFile, others: dict[str, Symbol]) -> Index:
    """Index ``parsed``; ``others`` are the modules of included files, by name."""
    ix = Index(parsed.path)
    spans: dict[int, tuple] = {}
    for c in parsed.chunks:
        for it in c.items:
            spans[id(it)] = c.span
    mods = parsed.source.modules
    # a module's text runs from its Name to the last statement before the next Name
    k = -1
    bounds: list[list] = []
    for c in parsed.chunks:
        if any(type(it) is A.Module for it in c.items):
            k += 1
            bounds.append([c.span[0], c.span[1]])
        elif k >= 0 and c.span is not None:
            bounds[k][1] = c.span[1]
    for m, (start, end) in zip(mods, bounds):
        ix.module_spans.append((m, start, end))
        sym = Symbol(m.name, "module", m.loc, None, m, (start, end))
        if m.name not in ix.modules:
            ix.modules[m.name] = sym
        _occ(ix, m.loc, m.name, sym, "def")
    all_modules = {**others, **ix.modules}
    for m in mods:
        _index_module(ix, m, spans, all_modules)
    ix.finish()
    return ix


def _occ(ix: Index, loc: A.Loc, name: str, sym: Symbol | None, role: str) -> None:
    ix.occurrences.append(Occurrence(loc.line, loc.col - 1, loc.col - 1 + len(name), sym, role,
                                     name))


def _index_module(ix: Index, m: A.Module, spans: dict, modules: dict[str, Symbol]) -> None:
    scope: dict[str, Symbol] = {}
    ix.scopes[id(m)] = scope
    pending: list[tuple[A.Loc, str, str]] = []  # output declarations, resolved at the end

    def define(name, kind, loc, node, owner, **detail):
        sym = Symbol(name, kind, loc, m, node, spans.get(id(owner)), detail)
        if name not in scope:  # a second definition is the compiler's error; the first wins
            scope[name] = sym
        _occ(ix, loc, name, sym, "def")
        return sym

    outputs: dict[str, tuple[A.StreamDecl, int, A.PortDecl]] = {}
    for sd in m.streams:
        for i, p in enumerate(sd.ports):
            if sd.kind.endswith("_In"):
                define(p.name, "input", p.loc, p, sd, stream=sd.kind, index=i, type=p.type)
            else:
                outputs.setdefault(p.name, (sd, i, p))
                pending.append((p.loc, p.name, "decl"))
    for p in m.params:
        define(p.name, "param", p.loc, p, p)
    for r in m.regs:
        define(r.name, "reg", r.loc, r, r, type=r.type)
    for st in m.stmts:
        kind = _STMT_KIND[type(st)]
        if type(st) is A.Equ:
            targets = [(st.target, st.target_loc, None)]
        elif type(st) is A.Hdl:
            targets = [(o.name, o.loc, o) for o in st.outs]
        else:
            targets = [(n, loc, None) for n, loc in st.targets]
        for i, (name, loc, port) in enumerate(targets):
            extra = {"stmt": st, "index": i}
            if port is not None and port.type:
                extra["type"] = port.type
            if name in outputs:
                sd, k, decl = outputs[name]
                extra.update(output=decl, stream=sd.kind, out_index=k)
            define(name, kind, loc, port or st, st, **extra)
    for loc, name, role in pending:
        _occ(ix, loc, name, scope.get(name), role)
    # references
    for p in m.params:
        _index_expr(ix, p.value, scope)
    for r in m.regs:
        _index_expr(ix, r.value, scope)
    for st in m.stmts:
        if type(st) is A.Equ:
            _index_expr(ix, st.value, scope)
        elif type(st) is A.Drct:
            for name, loc in st.sources:
                _occ(ix, loc, name, scope.get(name), "ref")
        else:
            callee = modules.get(st.callee)
            _occ(ix, st.callee_loc, st.callee, callee, "ref")
            for a in st.args:
                _index_expr(ix, a, scope)
            cscope = _params_of(callee)
            for hp in st.params:
                _occ(ix, hp.loc, hp.name, cscope.get(hp.name), "ref")
                if hp.value is not None:
                    _index_expr(ix, hp.value, scope)


def _params_of(callee: Symbol | None) -> dict[str, Symbol]:
    if callee is None:
        return {}
    m = callee.node
    out = {}
    for p in m.params:
        if p.name not in out:
            out[p.name] = Symbol(p.name, "param", p.loc, m, p, None, {})
    return out


def _index_expr(ix: Index, e: A.Expr, scope: dict[str, Symbol]) -> None:
    stack = [e]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is A.NameRef:
            _occ(ix, x.loc, x.name, scope.get(x.name), "ref")
        else:
            ix.exprs[(x.loc.line, x.loc.col - 1)] = x
            stack.extend(A.children(x))


def expr_end_loc(e: A.Expr) -> A.Expr:
    """The rightmost leaf of an expression (its text ends at that leaf, or a ')' after it)."""
    while True:
        t = type(e)
        if t is A.Binary:
            e = e.rhs
        elif t is A.Cond:
            e = e.b
        elif t is A.Unary:
            e = e.operand
        else:
            return e
