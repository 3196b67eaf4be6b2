"""Pass eliminate-common-subexpressions: merge nodes that compute the same value.

Before: a verified graph. After: no two nodes with the same :meth:`Node.key` (op,
type, operands, attributes) are both used; later duplicates are redirected to the
first one. Integer and logic ops that commute exactly (``add mul and or xor ieq ine``
and the integer min/max) are matched with their operands in either order. f32 ops
are matched only as written: with two NaN operands the result's payload depends on
the order. ``input``, ``reg``, ``inst`` and ``extern`` nodes are never merged.
"""
from __future__ import annotations

from spgen.ir import Graph, Node

from ._rewrite import replace_uses

__all__ = ["NAME", "run"]

NAME = "eliminate-common-subexpressions"

_COMMUTATIVE = {"add", "mul", "and", "or", "xor", "ieq", "ine", "smin", "smax", "umin", "umax"}
_NEVER = {"input", "reg", "inst", "extern"}


def _key(n: Node) -> tuple:
    """``n.key()``, faster for the common case of scalar attribute values."""
    attrs = n.attrs
    if attrs and any(isinstance(v, (dict, list)) for v in attrs.values()):
        return ("*",) + n.key()  # a separate key space: n.key() carries the Type itself
    return (n.op, n.type.value, tuple(a.id for a in n.args),
            tuple(sorted(attrs.items())) if attrs else ())


def run(graph: Graph) -> Graph:
    seen: dict[tuple, Node] = {}
    mapping: dict[Node, Node] = {}
    for n in graph.nodes:
        n.args = tuple(mapping.get(a, a) for a in n.args)
        if n.op in _NEVER:
            continue
        key = _key(n)
        if n.op in _COMMUTATIVE:
            key = (key[0], key[1], tuple(sorted(key[2])), key[3])
        if key in seen:
            mapping[n] = seen[key]
        else:
            seen[key] = n
    replace_uses(graph, mapping)
    graph.touch()
    return graph
