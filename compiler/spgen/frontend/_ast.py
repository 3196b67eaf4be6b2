"""Syntax tree of an SPD file, with a 1-based source position on every node."""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "Binary",
    "Call",
    "Cond",
    "Drct",
    "Equ",
    "Expr",
    "Hdl",
    "HdlArg",
    "HdlParam",
    "Include",
    "IntLit",
    "Loc",
    "Module",
    "NameRef",
    "ParamDecl",
    "PortDecl",
    "RealLit",
    "RegDeclStmt",
    "SourceFile",
    "StreamDecl",
    "Unary",
    "children",
]


@dataclass(frozen=True)
class Loc:
    file: str
    line: int
    col: int


class Expr:
    __slots__ = ()


@dataclass(eq=False)
class IntLit(Expr):
    value: int
    text: str
    loc: Loc


@dataclass(eq=False)
class RealLit(Expr):
    text: str
    loc: Loc


@dataclass(eq=False)
class NameRef(Expr):
    name: str
    loc: Loc


@dataclass(eq=False)
class Unary(Expr):
    op: str
    operand: Expr
    loc: Loc  # the operator


@dataclass(eq=False)
class Binary(Expr):
    op: str
    lhs: Expr
    rhs: Expr
    loc: Loc  # the operator


@dataclass(eq=False)
class Cond(Expr):
    cond: Expr
    a: Expr
    b: Expr
    loc: Loc  # the '?'


@dataclass(eq=False)
class Call(Expr):
    name: str
    args: list[Expr]
    loc: Loc  # the function name


def children(e: Expr) -> tuple[Expr, ...]:
    """Operands of an expression node (for iterative walks that never hit the recursion limit)."""
    t = type(e)
    if t is Binary:
        return (e.lhs, e.rhs)
    if t is Unary:
        return (e.operand,)
    if t is Cond:
        return (e.cond, e.a, e.b)
    if t is Call:
        return tuple(e.args)
    return ()


@dataclass(eq=False)
class PortDecl:
    name: str
    type: str | None
    loc: Loc
    type_loc: Loc | None = None


@dataclass(eq=False)
class StreamDecl:
    kind: str  # Main_In | Main_Out | Brch_In | Brch_Out
    stream: str
    ports: list[PortDecl]
    loc: Loc


@dataclass(eq=False)
class ParamDecl:
    name: str
    value: Expr
    loc: Loc


@dataclass(eq=False)
class RegDeclStmt:
    name: str
    type: str | None
    value: Expr
    loc: Loc
    type_loc: Loc | None = None


@dataclass(eq=False)
class Equ:
    label: str
    target: str
    value: Expr
    loc: Loc  # the label
    target_loc: Loc


HdlArg = Expr


@dataclass(eq=False)
class HdlParam:
    name: str
    value: Expr | None
    string: str | None
    loc: Loc


@dataclass(eq=False)
class Hdl:
    label: str
    latency: str  # "auto" or the integer text, or another identifier (an error)
    outs: list[PortDecl]
    callee: str
    args: list[Expr]
    params: list[HdlParam]
    loc: Loc  # the label
    latency_loc: Loc
    callee_loc: Loc


@dataclass(eq=False)
class Drct:
    targets: list[tuple[str, Loc]]
    sources: list[tuple[str, Loc]]
    loc: Loc


@dataclass(eq=False)
class Include:
    path: str
    loc: Loc


@dataclass(eq=False)
class Module:
    name: str
    loc: Loc
    streams: list[StreamDecl] = field(default_factory=list)
    params: list[ParamDecl] = field(default_factory=list)
    regs: list[RegDeclStmt] = field(default_factory=list)
    stmts: list[Equ | Hdl | Drct] = field(default_factory=list)


@dataclass(eq=False)
class SourceFile:
    path: str
    includes: list[Include]
    modules: list[Module]
