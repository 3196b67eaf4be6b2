"""Pass simplify: apply algebraic identities that keep every bit of every result.

Before: a verified graph. After: the same graph where uses of a node matching an
identity point at the simpler equivalent (the matched node stays until
eliminate-dead-code), or the node itself became a ``const`` or lost a redundant
operand. Identities (``c`` a constant):

* f32, only without ``ftz`` (the hardware would flush a subnormal ``x``):
  ``x*1``, ``1*x``, ``x/1``, ``x+(-0.0)``, ``(-0.0)+x``, ``x-(+0.0)`` give ``x``.
  ``x+0.0`` is *not* ``x`` (``-0.0+0.0`` is ``+0.0``).
* f32, always (sign-bit operations): ``-(-x)`` is ``x``; ``abs(abs x)`` and
  ``abs(-x)`` are ``abs x``.
* integers: ``x+0 x-0 x*1 x/1 x<<0 x>>0 x|0 x^0 x&~0`` give ``x``; ``x*0`` and ``x&0``
  give 0, ``x%1`` gives 0; ``-(-x)``, ``~~x`` give ``x``; bool ``x&&true``,
  ``x||false`` give ``x``, ``x&&false`` false, ``x||true`` true.
* ``select`` with a constant condition, or with both arms the same node.
* ``bitcast`` back to the original type; ``shift`` by 0; a ``shift`` of a ``shift``
  with offsets of the same sign and equal fill; a ``shift`` of a constant whose
  bits equal the fill.
"""
from __future__ import annotations

from spgen.ir import Graph, Node, Type

from ._rewrite import replace_uses

__all__ = ["NAME", "run"]

NAME = "simplify"

_F_ONE = 0x3F800000
_F_NEG_ZERO = 0x80000000


def _c(n: Node) -> int | None:
    return n.attrs["bits"] if n.op == "const" else None


def _ones(t: Type) -> int:
    return 1 if t is Type.BOOL else 0xFFFFFFFF


def _to_const(n: Node, bits: int) -> Node:
    n.op, n.args, n.attrs = "const", (), {"bits": bits}
    return n


def _identity(n: Node, ftz: bool) -> Node | None:
    """The node equal to ``n`` bit for bit, or ``n`` changed in place, or None."""
    op, args = n.op, n.args
    a = args[0] if args else None
    b = args[1] if len(args) > 1 else None
    ca = _c(a) if a is not None else None
    cb = _c(b) if b is not None else None
    if op in ("fmul", "fadd", "fdiv", "fsub") and not ftz:
        unit = _F_ONE if op in ("fmul", "fdiv") else _F_NEG_ZERO
        if op == "fsub":
            unit = 0
        if cb == unit:
            return a
        if op in ("fmul", "fadd") and ca == unit:
            return b
    elif op in ("fneg", "neg", "not") and a.op == op:
        return a.args[0]
    elif op == "fabs" and a.op in ("fabs", "fneg"):
        if a.op == "fabs":
            return a
        n.args = (a.args[0],)
        return n
    elif op in ("add", "or", "xor"):
        if cb == 0:
            return a
        if ca == 0:
            return b
        if op == "or" and n.type is Type.BOOL and 1 in (ca, cb):
            return _to_const(n, 1)
    elif op in ("sub", "shl", "lshr", "ashr") and cb == 0:
        return a
    elif op == "mul":
        if 0 in (ca, cb):
            return _to_const(n, 0)
        if cb == 1:
            return a
        if ca == 1:
            return b
    elif op in ("sdiv", "udiv") and cb == 1:
        return a
    elif op in ("srem", "urem") and cb == 1:
        return _to_const(n, 0)
    elif op == "and":
        if 0 in (ca, cb):
            return _to_const(n, 0)
        if cb == _ones(n.type):
            return a
        if ca == _ones(n.type):
            return b
    elif op == "select":
        if ca is not None:
            return args[1] if ca else args[2]
        if args[1] is args[2]:
            return args[1]
    elif op == "bitcast":
        if a.type is n.type:
            return a
        if a.op == "bitcast" and a.args[0].type is n.type:
            return a.args[0]
    elif op == "shift":
        return _shift(n, a)
    return None


def _shift(n: Node, a: Node) -> Node | None:
    d, fill = n.attrs["offset"], n.attrs["fill"]
    if d == 0:
        return a
    if a.op == "const" and a.attrs["bits"] == fill:
        return a
    if a.op == "shift" and a.attrs["fill"] == fill and (a.attrs["offset"] > 0) == (d > 0):
        n.args = a.args
        n.attrs = {**n.attrs, "offset": d + a.attrs["offset"]}
        return n
    return None


def run(graph: Graph, *, ftz: bool = False) -> Graph:
    mapping: dict[Node, Node] = {}
    for n in graph.nodes:
        n.args = tuple(mapping.get(a, a) for a in n.args)
        # Repeat on the same node: one identity can expose another (abs(-(-x))).
        for _ in range(8):
            r = _identity(n, ftz)
            if r is None or r is n and n.op == "const":
                break
            if r is not n:
                mapping[n] = r
                if r.name is None and r.op != "const":
                    r.name = n.name  # keep the SPD signal name for reports and wire names
                break
    replace_uses(graph, mapping)
    graph.touch()
    return graph
