"""Helpers the passes share: copying a graph and redirecting uses of replaced nodes."""
from __future__ import annotations

from spgen.ir import Graph, Node, Output

__all__ = ["copy_graph", "replace_uses"]


def copy_graph(g: Graph) -> Graph:
    """A deep copy of ``g`` with fresh nodes (same ids), so passes never touch the Program."""
    return g.copy()


def replace_uses(g: Graph, mapping: dict[Node, Node]) -> None:
    """Point every operand and output at ``mapping``'s replacement (chains followed).

    Replaced nodes stay in ``g.nodes``; dead-code elimination removes them.
    """
    if not mapping:
        return

    def final(n: Node) -> Node:
        while n in mapping:
            n = mapping[n]
        return n

    for n in g.nodes:
        if any(a in mapping for a in n.args):
            n.args = tuple(final(a) for a in n.args)
    g.outputs = [Output(o.port, final(o.node)) if o.node in mapping else o for o in g.outputs]
