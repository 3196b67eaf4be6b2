"""The dataflow graph: typed nodes in topological order, with ports, registers and outputs."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ._ops import FLOP_KINDS, OPS, IRError, Type

__all__ = ["Graph", "IRError", "Node", "Output", "Port", "Program", "RegDecl", "SourceLoc",
           "verify_graph"]


@dataclass(frozen=True)
class SourceLoc:
    """A position in a source file; line and column are 1-based."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(eq=False)
class Node:
    """One operation. Identity is object identity; ``id`` is a stable printing number.

    ``attrs`` values are plain ints, strs, tuples or Types so that printing is
    deterministic. ``name`` is the SPD signal name it defines, if any (for reports,
    Verilog wire names and debugging; it never changes semantics). A node does not know
    its graph: whoever edits a node in place calls :meth:`Graph.touch` on its graph.
    """

    id: int
    op: str
    type: Type
    args: tuple[Node, ...] = ()
    attrs: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    loc: SourceLoc | None = None

    def __repr__(self) -> str:
        return f"%{self.id}"

    def key(self) -> tuple:
        """Structural identity used by common-subexpression elimination."""
        return (self.op, self.type, tuple(a.id for a in self.args),
                tuple(sorted((k, _freeze(v)) for k, v in self.attrs.items())))


def _freeze(v: Any) -> Any:
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


@dataclass(frozen=True)
class Port:
    """A stream port. Port ``index`` 0 is the least significant 32 bits of its stream word."""

    name: str
    type: Type
    stream: str  # "main" or "brch"
    index: int


@dataclass(frozen=True)
class RegDecl:
    """A run-time register; ``default`` is the 32-bit pattern written at reset."""

    name: str
    type: Type
    default: int


@dataclass(frozen=True)
class Output:
    """An output port and the node that drives it."""

    port: Port
    node: Node


@dataclass(eq=False)
class Graph:
    """One module as a dataflow graph.

    Invariants (checked by :meth:`verify`): nodes are in topological order, every
    operand appears earlier, ids are unique, types obey the op table, every input
    port has exactly one ``input`` node, every register one ``reg`` node.

    ``version`` grows with every edit: :meth:`add` and :meth:`renumber` advance it, and
    so does :meth:`touch`, which whoever edits the fields, their lists and dicts or a
    node in place must call once done (the passes do). Caches of what a graph's
    content gives (its printed text, the emulator's compiled kernels) are kept per
    graph object and version.
    """

    name: str
    inputs: list[Port] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    regs: list[RegDecl] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)  # evaluated Param values
    _next_id: int = 0
    version: int = field(default=0, init=False, repr=False)

    def touch(self) -> None:
        """Record an edit made in place, so that caches of this graph's content look again."""
        self.version += 1

    # ---- construction -------------------------------------------------------
    def add(self, op: str, type: Type, args: tuple[Node, ...] = (), *, name: str | None = None,
            loc: SourceLoc | None = None, **attrs: Any) -> Node:
        """Append a node; operands must already be in the graph."""
        if op not in OPS:
            raise IRError(f"unknown op {op!r}")
        node = Node(self._next_id, op, type, tuple(args), attrs, name, loc)
        self._next_id += 1
        self.version += 1
        self.nodes.append(node)
        return node

    def copy(self) -> Graph:
        """A deep copy with fresh nodes (same ids); ports, registers and params shared."""
        out = Graph(self.name, list(self.inputs), [], list(self.regs), [], dict(self.params))
        new: dict[Node, Node] = {}
        for n in self.nodes:
            m = Node(n.id, n.op, n.type, tuple(new[a] for a in n.args), dict(n.attrs), n.name,
                     n.loc)
            out.nodes.append(m)
            new[n] = m
        out.outputs = [Output(o.port, new[o.node]) for o in self.outputs]
        out._next_id = self._next_id
        return out

    def renumber(self) -> None:
        """Give nodes consecutive ids in their current order (after a pass removed some)."""
        for i, n in enumerate(self.nodes):
            n.id = i
        self._next_id = len(self.nodes)
        self.version += 1

    # ---- queries ------------------------------------------------------------
    def input_node(self, port: str) -> Node:
        for n in self.nodes:
            if n.op == "input" and n.attrs["port"] == port:
                return n
        raise KeyError(port)

    def reg_node(self, reg: str) -> Node:
        for n in self.nodes:
            if n.op == "reg" and n.attrs["name"] == reg:
                return n
        raise KeyError(reg)

    def users(self) -> dict[Node, list[Node]]:
        out: dict[Node, list[Node]] = {n: [] for n in self.nodes}
        for n in self.nodes:
            for a in n.args:
                out[a].append(n)
        return out

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def shifts(self) -> list[Node]:
        return [n for n in self.nodes if n.op == "shift"]

    def op_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for n in self.nodes:
            counts[n.op] = counts.get(n.op, 0) + 1
        return dict(sorted(counts.items()))

    def flops(self) -> dict[str, int]:
        """FLOPs per element by kind (add, mul, div, sqrt) and their total."""
        out = dict.fromkeys(FLOP_KINDS, 0)
        for n in self.nodes:
            k = OPS[n.op].kind
            if k in out:
                out[k] += 1
        out["total"] = sum(out.values())
        return out

    # ---- printing -----------------------------------------------------------
    def to_text(self) -> str:
        """Deterministic text form; identical graphs print identically.

        The text is remembered while :attr:`version` stands still (printing a large graph
        takes milliseconds; back ends key their compiled kernels by it)."""
        memo = getattr(self, "_printed", None)
        if memo is not None and memo[0] == self.version:
            return memo[1]
        text = self._print()
        self._printed = (self.version, text)
        return text

    def __getstate__(self) -> dict:
        # a copy or pickle carries the graph, not the memo (which is as large as the graph)
        return {k: v for k, v in self.__dict__.items() if k != "_printed"}

    def _print(self) -> str:
        lines = [f"module {self.name} {{"]
        for p in self.params:
            lines.append(f"  param {p} = {self.params[p]!r}")
        for r in self.regs:
            lines.append(f"  reg {r.name}:{r.type} = 0x{r.default:08x}")
        for n in self.nodes:
            lines.append("  " + format_node(n))
        for o in self.outputs:
            lines.append(f"  out {o.port.stream}.{o.port.name}:{o.port.type} = {o.node!r}")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    # ---- verification -------------------------------------------------------
    def verify(self) -> None:
        """Raise :class:`IRError` if an invariant does not hold."""
        verify_graph(self)


def format_node(n: Node) -> str:
    args = ", ".join(repr(a) for a in n.args)
    attrs = " ".join(f"{k}={_fmt_attr(k, v)}" for k, v in sorted(n.attrs.items()))
    text = f"%{n.id}:{n.type} = {n.op}"
    if args:
        text += f" {args}"
    if attrs:
        text += f" [{attrs}]"
    if n.name:
        text += f"  ; {n.name}"
    return text


def _fmt_attr(key: str, v: Any) -> str:
    if key in ("bits", "fill", "default") and isinstance(v, int):
        return f"0x{v:08x}"
    if isinstance(v, Type):
        return str(v)
    if isinstance(v, (tuple, list)):
        return "(" + ",".join(_fmt_attr("", x) for x in v) + ")"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_fmt_attr(k, x)}" for k, x in sorted(v.items())) + "}"
    return repr(v) if isinstance(v, str) else str(v)


@dataclass(eq=False)
class Program:
    """All modules visible from a source file; ``top`` names the one being compiled."""

    modules: dict[str, Graph]
    top: str

    @property
    def top_graph(self) -> Graph:
        return self.modules[self.top]

    def to_text(self) -> str:
        return "".join(self.modules[m].to_text() for m in sorted(self.modules))


# ---- the verifier: run between passes so a broken pass is caught where it happens ----
_INT = (Type.I32, Type.U32)
_F_BIN = {"fadd", "fsub", "fmul", "fdiv", "fmin", "fmax"}
_F_CMP = {"flt", "fle", "fgt", "fge", "feq", "fne"}
_I_BIN = {"add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "shl", "lshr", "ashr",
          "smin", "smax", "umin", "umax"}
_I_CMP = {"ieq", "ine", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}


def _need(cond: bool, n: Node, msg: str) -> None:
    if not cond:
        raise IRError(f"{n!r} ({n.op}): {msg}")


def _check_types(n: Node) -> None:
    ts = [a.type for a in n.args]
    op = n.op
    if op in _F_BIN:
        _need(ts == [Type.F32] * 2 and n.type is Type.F32, n, "needs f32 operands and result")
    elif op in ("fsqrt", "fneg", "fabs"):
        _need(ts == [Type.F32] and n.type is Type.F32, n, "needs f32")
    elif op in _F_CMP:
        _need(ts == [Type.F32] * 2 and n.type is Type.BOOL, n, "f32 compare gives bool")
    elif op in _I_BIN:
        _need(n.type in _INT and ts[0] is n.type and ts[1] in _INT, n, "needs integer operands")
        if op not in ("shl", "lshr", "ashr"):
            _need(ts[1] is n.type, n, "operand types differ")
    elif op in ("neg", "iabs"):
        _need(n.type in _INT and ts == [n.type], n, "needs an integer operand")
    elif op in _I_CMP:
        _need(ts[0] in _INT and ts[0] is ts[1] and n.type is Type.BOOL, n, "integer compare")
    elif op in ("and", "or", "xor"):
        _need(ts[0] is ts[1] is n.type and n.type is not Type.F32, n, "bitwise on int/bool")
    elif op == "not":
        _need(ts == [n.type] and n.type is not Type.F32, n, "bitwise on int/bool")
    elif op == "select":
        _need(ts[0] is Type.BOOL and ts[1] is ts[2] is n.type, n, "select(bool, T, T) -> T")
    elif op == "sitofp":
        _need(ts == [Type.I32] and n.type is Type.F32, n, "i32 -> f32")
    elif op == "uitofp":
        _need(ts == [Type.U32] and n.type is Type.F32, n, "u32 -> f32")
    elif op == "fptosi":
        _need(ts == [Type.F32] and n.type is Type.I32, n, "f32 -> i32")
    elif op == "fptoui":
        _need(ts == [Type.F32] and n.type is Type.U32, n, "f32 -> u32")
    elif op == "bitcast":
        _need(ts[0] is not Type.BOOL and n.type is not Type.BOOL, n, "32-bit types only")
    elif op == "booltoint":
        _need(ts == [Type.BOOL] and n.type in _INT, n, "bool -> int")
    elif op == "shift":
        _need(ts == [n.type], n, "shift keeps the type")
        _need(isinstance(n.attrs.get("offset"), int), n, "offset must be a constant int")
        _need(isinstance(n.attrs.get("fill"), int), n, "fill must be a bit pattern")
    elif op == "const":
        _need(isinstance(n.attrs.get("bits"), int), n, "const needs bits")
        limit = 1 if n.type is Type.BOOL else 0xFFFFFFFF
        _need(0 <= n.attrs["bits"] <= limit, n, "bits out of range")
    elif op == "proj":
        _need(n.args[0].op in ("inst", "extern"), n, "proj reads an instance")


def verify_graph(g: Graph) -> None:
    seen: set[int] = set()
    ids: set[int] = set()
    for n in g.nodes:
        if n.op not in OPS:
            raise IRError(f"{n!r}: unknown op {n.op!r}")
        info = OPS[n.op]
        _need(n.id not in ids, n, "duplicate id")
        ids.add(n.id)
        if info.arity is not None and len(n.args) != info.arity:
            _need(False, n, f"expects {info.arity} operands")
        for a in n.args:
            if id(a) not in seen:  # message built only on failure: this loop is hot
                _need(False, n, f"operand {a!r} is not defined before use")
        _check_types(n)
        seen.add(id(n))
    ports = {p.name for p in g.inputs}
    got = [n.attrs["port"] for n in g.nodes if n.op == "input"]
    if sorted(got) != sorted(ports):
        raise IRError(f"input nodes {sorted(got)} do not match ports {sorted(ports)}")
    for o in g.outputs:
        if id(o.node) not in seen:
            raise IRError(f"output {o.port.name} reads a node outside the graph")
        if o.node.type is not o.port.type:
            raise IRError(f"output {o.port.name}: {o.node.type} drives a {o.port.type} port")
