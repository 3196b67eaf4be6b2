"""Pass reassociate (only with ``fast_math``): balance chains of f32 additions and products.

Before: a verified graph. After: every maximal tree of ``fadd`` (or of ``fmul``) nodes
whose inner nodes have no other use is rebuilt as a balanced tree over the same
leaves in the same left-to-right order, so ``a+b+c+d`` (depth 3) becomes
``(a+b)+(c+d)`` (depth 2). The root node keeps its identity; the old inner nodes are
left unused for eliminate-dead-code. This changes rounding, which is why SPD.md
allows it only under ``--fast-math``.
"""
from __future__ import annotations

from spgen.ir import Graph, Node

__all__ = ["NAME", "run"]

NAME = "reassociate"

_ASSOC = ("fadd", "fmul")


def run(graph: Graph) -> Graph:
    uses: dict[Node, int] = {n: 0 for n in graph.nodes}
    for n in graph.nodes:
        for a in n.args:
            uses[a] += 1
    for o in graph.outputs:
        uses[o.node] += 2  # an output is a use no rewrite may hide
    inner = {a for u in graph.nodes if u.op in _ASSOC for a in u.args
             if a.op == u.op and uses[a] == 1}
    depth: dict[Node, int] = {}
    for n in graph.nodes:
        if n.op in _ASSOC:
            depth[n] = 1 + max((depth[a] for a in n.args if a in inner), default=0)
    old, graph.nodes = graph.nodes, []
    for n in old:
        if n.op in _ASSOC and n not in inner:
            ls = _leaves(n, inner)
            if depth[n] > (len(ls) - 1).bit_length():
                while len(ls) > 2:
                    pairs = [graph.add(n.op, n.type, (ls[i], ls[i + 1]), loc=n.loc)
                             for i in range(0, len(ls) - 1, 2)]
                    ls = pairs + ls[len(ls) - len(ls) % 2:]
                n.args = (ls[0], ls[1])
        graph.nodes.append(n)
    graph.touch()
    return graph


def _leaves(root: Node, inner: set[Node]) -> list[Node]:
    """Leaves of the tree under ``root`` from left to right (iterative: chains can be long)."""
    out: list[Node] = []
    stack = [root]
    while stack:
        m = stack.pop()
        if m is not root and m not in inner:
            out.append(m)
            continue
        stack.extend(reversed(m.args))
    return out
