"""Hover, definitions, references, completion and symbols, in 0-based code-point positions."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..frontend import _ast as A
from ..frontend._generated.SPDLexer import SPDLexer
from ..frontend._values import ARITY, ERR, IntC
from ..ir import Node
from ._check import stages
from ._index import Index, Occurrence, Symbol
from ._workspace import Document, FileView, Workspace, includes

__all__ = ["Item", "Loc", "OutlineSymbol", "completion", "definition", "hover", "outline",
           "references"]

Loc = tuple[str, tuple[int, int, int, int]]  # path, (line0, col0, line1, col1)

KEYWORDS = {
    "Name": "`Name m;` starts a module, which runs to the next `Name`.",
    "Main_In": "`Main_In {Mi::a, b:u32};` the main input stream and its ports, in order.",
    "Main_Out": "`Main_Out {Mo::y};` the main output stream and its ports.",
    "Brch_In": "`Brch_In {Bi::h};` an optional side input stream.",
    "Brch_Out": "`Brch_Out {Bo::k};` an optional side output stream.",
    "Param": "`Param W = 64;` a compile-time constant, overridable with `-P` or `[W=...]`.",
    "Reg": "`Reg w:f32 = 0.25;` a register the host writes at run time.",
    "EQU": "`EQU label, name = expr;` defines one signal.",
    "HDL": "`HDL label, auto|N, (outs) = module(args) [P=v];` an instance of a module.",
    "DRCT": "`DRCT (a, b) = (c, d);` makes `a` an alias of `c` and `b` one of `d`.",
    "Include": "`Include \"path.spd\";` makes another file's modules available.",
}
FUNCTIONS = {
    "sqrt": "sqrt(x): correctly rounded f32 square root",
    "abs": "abs(x): absolute value",
    "min": "min(a, b): a < b ? a : b",
    "max": "max(a, b): a > b ? a : b",
    "sel": "sel(c, a, b): c ? a : b",
    "f32": "f32(x): integer to f32, round to nearest even",
    "i32": "i32(x): f32 to i32 toward zero, saturating, NaN gives 0",
    "u32": "u32(x): f32 to u32 toward zero, saturating, NaN gives 0",
    "bits": "bits(x): the bits of an f32 as a u32",
    "fbits": "fbits(x): the bits of an i32 or u32 as an f32",
    "shift": "shift(x, d [, fill]): element k gets x[k-d]; outside the stream, fill (0)",
}
assert set(FUNCTIONS) == set(ARITY)
TYPES = ("f32", "i32", "u32", "bool")
_KIND_TEXT = {"input": "input port", "output": "output port", "param": "Param", "reg": "Reg",
              "equ": "signal (EQU)", "hdl": "signal (HDL output)", "drct": "signal (DRCT alias)",
              "module": "module"}


def _tok_range(line: int, col: int, end: int) -> tuple[int, int, int, int]:
    return line - 1, col, line - 1, end


def _name_range(loc: A.Loc, name: str) -> tuple[int, int, int, int]:
    return loc.line - 1, loc.col - 1, loc.line - 1, loc.col - 1 + len(name)


def _where(loc: A.Loc) -> str:
    return f"{os.path.basename(loc.file)}:{loc.line}:{loc.col}"


def _lowered(doc: Document, view: FileView, module: A.Module | None):
    """The compiler's findings for ``module``, when the last check saw this very view."""
    if module is None or doc.check is None or doc.checked_view is not view:
        return None
    return doc.check.lowered.get(id(module))


def _value_type(v) -> str | None:
    if isinstance(v, Node):
        return str(v.type)
    if isinstance(v, IntC):
        return f"integer constant {v.value} (takes the type of what it meets)"
    if v is ERR:
        return "unknown (its definition has an error)"
    return None


def _ticks(doc: Document, view: FileView, line: int, col1: int) -> str | None:
    if doc.check is None or doc.checked_view is not view or doc.check.program is None:
        return None
    st = stages(doc.check)
    if st is None:
        return None
    ticks, sink = st
    found = ticks.get((os.path.realpath(view.path), line, col1))
    if not found:
        return None
    at = ", ".join(map(str, found))
    many = " (one per instance)" if len(found) > 1 else ""
    return f"pipeline stage: tick{'s' if len(found) > 1 else ''} {at}{many} of {sink}"


def _statement_text(view: FileView, sym: Symbol) -> str | None:
    if sym.span is None or not sym.loc.file or os.path.realpath(sym.loc.file) != \
            os.path.realpath(view.path):
        return None
    (l0, c0), (l1, c1) = sym.span
    lines = view.lines[l0 - 1:l1]
    if not lines:
        return None
    lines[-1] = lines[-1][:c1]
    lines[0] = lines[0][c0:]
    if len(lines) > 4:
        lines = lines[:3] + ["..."]
    return "\n".join(lines)


def _symbol_hover(ws: Workspace, doc: Document, view: FileView, sym: Symbol) -> str:
    kind = _KIND_TEXT.get(sym.kind, sym.kind)
    d = sym.detail
    if sym.kind == "module":
        return _module_hover(sym)
    ty = None
    low = _lowered(doc, view, sym.module)
    if low is not None:
        if sym.kind == "param":
            v = low.params.get(sym.name)
            if isinstance(v, (bool, int, float)):
                what = "bool" if isinstance(v, bool) else (
                    "integer" if isinstance(v, int) else "real (f32)")
                ty = f"{what} = {v}"
        else:
            s = low.signals.get(sym.name)
            if s is not None and s.loc == sym.loc:
                ty = _value_type(s.value)
    if ty is None:
        ty = d.get("type") or ("f32" if sym.kind in ("input", "reg") else None)
    if "output" in d and sym.kind != "output":
        kind = f"output port {d['out_index']} of {d['stream']}, defined by {sym.kind.upper()}"
    elif sym.kind == "input":
        kind = f"input port {d['index']} of {d['stream']}"
    head = f"**{sym.name}** : {ty or 'type not known yet'}  \n{kind}"
    stmt = d.get("stmt")
    if type(stmt) is A.Hdl:
        head += f", output {d['index']} of HDL `{stmt.label}` (`{stmt.callee}`)"
    elif type(stmt) is A.Equ:
        head += f", label `{stmt.label}`"
    head += f"  \ndefined at {_where(sym.loc)}"
    tick = None
    if sym.kind == "input":
        tick = _ticks(doc, view, sym.loc.line, sym.loc.col)
    elif type(stmt) is A.Equ and type(stmt.value) is not A.NameRef:
        tick = _ticks(doc, view, stmt.value.loc.line, stmt.value.loc.col)
    if tick:
        head += f"  \n{tick}"
    text = _statement_text(view, sym)
    if text:
        head += f"\n```spd\n{text}\n```"
    return head


def _module_hover(sym: Symbol) -> str:
    m: A.Module = sym.node

    def ports(kind):
        out = []
        for sd in m.streams:
            if sd.kind == kind:
                out += [f"{p.name}:{p.type or 'f32'}" for p in sd.ports]
        return ", ".join(out)

    sig = f"module {m.name}({ports('Main_In')}) -> ({ports('Main_Out')})"
    extra = [f"{k}: ({ports(k)})" for k in ("Brch_In", "Brch_Out")
             if any(sd.kind == k for sd in m.streams)]
    params = ", ".join(p.name for p in m.params)
    text = f"```spd\n{sig}\n```\n" + "".join(f"{e}  \n" for e in extra)
    if params:
        text += f"Params: {params}  \n"
    return text + f"defined at {_where(m.loc)}"


def _expr_hover(doc: Document, view: FileView, e: A.Expr, module: A.Module | None) -> str:
    t = type(e)
    if t is A.Call:
        what = f"`{FUNCTIONS.get(e.name, e.name + '()')}`"
    elif t in (A.IntLit, A.RealLit):
        what = f"literal `{e.text}`"
    elif t is A.Cond:
        what = "`?:` conditional"
    else:
        what = f"operator `{e.op}`"
    low = _lowered(doc, view, module)
    if low is not None:
        want = (os.path.realpath(e.loc.file), e.loc.line, e.loc.col)
        nodes = [n for n in low.graph.nodes if n.loc is not None and (
            os.path.realpath(n.loc.file), n.loc.line, n.loc.col) == want]
        if nodes:
            n = nodes[-1]
            what += f"  \n: {n.type} (IR op `{n.op}`)"
    tick = _ticks(doc, view, e.loc.line, e.loc.col)
    if tick:
        what += f"  \n{tick}"
    return what


def hover(ws: Workspace, doc: Document, line0: int, col: int) -> tuple[str, tuple] | None:
    view = doc.view
    line = line0 + 1
    tok = view.parsed.token_at(line, col)
    if tok is None:
        return None
    rng = _tok_range(tok.line, tok.col, tok.end)
    occ = view.index.occurrence_at(line, col)
    if occ is not None and occ.col == tok.col:
        if occ.symbol is None:
            return f"**{occ.name}**: not defined here", rng
        return _symbol_hover(ws, doc, view, occ.symbol), rng
    if tok.text in KEYWORDS:
        return KEYWORDS[tok.text], rng
    e = view.index.exprs.get((tok.line, tok.col))
    if e is not None:
        return _expr_hover(doc, view, e, view.index.module_at(line)), rng
    if tok.text in TYPES:
        return f"type `{tok.text}`", rng
    return None


def _target(doc: Document, line0: int, col: int) -> Occurrence | None:
    occ = doc.view.index.occurrence_at(line0 + 1, col)
    return occ if occ is not None and occ.symbol is not None else None


def _include_at(view: FileView, line0: int, col: int) -> str | None:
    tok = view.parsed.token_at(line0 + 1, col)
    if tok is None or tok.type != SPDLexer.STRING:
        return None
    for inc, path in zip(view.parsed.source.includes, includes(view.parsed)):
        if (inc.loc.line, inc.loc.col - 1) == (tok.line, tok.col):
            return path
    return None


def definition(ws: Workspace, doc: Document, line0: int, col: int) -> list[Loc]:
    path = _include_at(doc.view, line0, col)
    if path is not None:
        return [(path, (0, 0, 0, 0))] if os.path.exists(path) else []
    occ = _target(doc, line0, col)
    if occ is None:
        return []
    s = occ.symbol
    return [(s.loc.file, _name_range(s.loc, s.name))]


def _key(loc: A.Loc) -> tuple:
    return os.path.realpath(loc.file), loc.line, loc.col


def _views(ws: Workspace, doc: Document) -> list[FileView]:
    out, seen, todo = [], set(), [doc.view] + [d.view for d in ws.docs.values() if d.view]
    while todo:
        v = todo.pop(0)
        real = os.path.realpath(v.path)
        if real in seen:
            continue
        seen.add(real)
        out.append(v)
        for p in includes(v.parsed):
            iv = ws.view(p)
            if iv is not None:
                todo.append(iv)
    return out


def references(ws: Workspace, doc: Document, line0: int, col: int,
               include_declaration: bool) -> list[Loc]:
    occ = _target(doc, line0, col)
    if occ is None:
        return []
    want = _key(occ.symbol.loc)
    out, seen = [], set()
    for v in _views(ws, doc):
        for o in v.index.occurrences:
            if o.symbol is None or _key(o.symbol.loc) != want:
                continue
            if o.role != "ref" and not include_declaration:
                continue
            k = (os.path.realpath(v.path), o.line, o.col)
            if k not in seen:
                seen.add(k)
                out.append((v.path, _tok_range(o.line, o.col, o.end)))
    return out


@dataclass
class Item:
    label: str
    kind: str  # keyword | function | module | type | variable | constant | field
    detail: str = ""


def completion(ws: Workspace, doc: Document, line0: int, col: int) -> list[Item]:
    view = doc.view
    line = line0 + 1
    toks = view.parsed.tokens_before(line, col)
    if toks and toks[-1].line == line and toks[-1].end == col and (
            toks[-1].type == SPDLexer.ID or toks[-1].text in KEYWORDS):
        toks = toks[:-1]  # the word being typed
    if toks and toks[-1].text == ";":
        toks = []
    ix = view.index
    module = ix.module_at(line)
    if not toks:
        words = ["Include", "Name"] if module is None else [k for k in KEYWORDS
                                                           if k != "Include"]
        return [Item(k, "keyword", KEYWORDS[k].split("`")[1]) for k in words]
    first, prev = toks[0].text, toks[-1].text
    if prev == ":" and len(toks) >= 2 and toks[-2].type == SPDLexer.ID:
        return [Item(t, "type") for t in TYPES]
    if first == "HDL":
        texts = [t.text for t in toks]
        if len(texts) == 3:
            return [Item("auto", "keyword", "latency from the callee")]
        if "=" in texts and prev == "=" and ")" in texts and "(" not in texts[texts.index("="):]:
            return [Item(n, "module", "module") for n in sorted(view.modules)]
        if "[" in texts and "]" not in texts and prev in ("[", ","):
            callee = view.modules.get(texts[texts.index("=") + 1]) if "=" in texts else None
            if callee is not None:
                return [Item(p.name, "constant", f"Param of {callee.name}")
                        for p in callee.node.params]
    if first in ("Name", "Main_In", "Main_Out", "Brch_In", "Brch_Out", "Include"):
        return []
    if first == "EQU" and len(toks) == 3:  # the signal defined: offer undefined outputs
        scope = ix.scopes.get(id(module), {}) if module else {}
        outs = [p.name for sd in (module.streams if module else []) if sd.kind.endswith("Out")
                for p in sd.ports if p.name not in scope]
        return [Item(n, "field", "output port") for n in outs]
    items: list[Item] = []
    consts_only = first in ("Param", "Reg")
    if module is not None:
        for name, sym in ix.scopes.get(id(module), {}).items():
            if consts_only and sym.kind != "param":
                continue
            kind = {"param": "constant", "input": "field", "output": "field"}.get(
                sym.kind, "variable")
            items.append(Item(name, kind, _KIND_TEXT.get(sym.kind, sym.kind)))
    items += [Item(f, "function", FUNCTIONS[f]) for f in FUNCTIONS]
    return items


@dataclass
class OutlineSymbol:
    name: str
    kind: str  # module | field | constant | variable
    detail: str
    range: tuple[int, int, int, int]
    selection: tuple[int, int, int, int]
    children: list[OutlineSymbol] = field(default_factory=list)


def _span_range(span, fallback):
    if span is None:
        return fallback
    (l0, c0), (l1, c1) = span
    return l0 - 1, c0, l1 - 1, c1


def outline(doc: Document) -> list[OutlineSymbol]:
    ix: Index = doc.view.index
    out: list[OutlineSymbol] = []
    by_module: dict[int, OutlineSymbol] = {}
    for m, start, end in ix.module_spans:
        sel = _name_range(m.loc, m.name)
        o = OutlineSymbol(m.name, "module", "module", (start[0] - 1, start[1], end[0] - 1,
                                                       end[1]), sel)
        by_module[id(m)] = o
        out.append(o)
    for sym in ix.symbols():
        if sym.kind == "module" or sym.module is None or id(sym.module) not in by_module:
            continue
        sel = _name_range(sym.loc, sym.name)
        kind = {"input": "field", "param": "constant"}.get(sym.kind, "variable")
        if "output" in sym.detail:
            kind = "field"
        detail = _KIND_TEXT[sym.kind]
        stmt = sym.detail.get("stmt")
        if type(stmt) in (A.Equ, A.Hdl):
            detail += f" {stmt.label}"
        by_module[id(sym.module)].children.append(
            OutlineSymbol(sym.name, kind, detail, _span_range(sym.span, sel), sel))
    return out
