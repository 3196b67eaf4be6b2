"""Pass eliminate-dead-code: drop nodes no output depends on.

Before: a verified graph (possibly with unused nodes left by earlier passes).
After: ``graph.nodes`` holds, in their previous order, only the ``input`` and ``reg``
nodes (always kept: they are the core's ports and registers) and the nodes some
output reaches. An ``extern`` instance whose results are all unused is removed too.
"""
from __future__ import annotations

from spgen.ir import Graph, Node

__all__ = ["NAME", "run"]

NAME = "eliminate-dead-code"


def run(graph: Graph) -> Graph:
    live: set[Node] = {o.node for o in graph.outputs}
    live.update(n for n in graph.nodes if n.op in ("input", "reg"))
    for n in reversed(graph.nodes):
        if n in live:
            live.update(n.args)
    graph.nodes = [n for n in graph.nodes if n in live]
    graph.touch()
    return graph
