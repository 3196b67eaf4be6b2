"""Pass renumber: give nodes consecutive ids in graph order.

Before: a verified graph whose ids may have gaps. After: ids are 0..len(nodes)-1 in
order, so printed IR of equal graphs is identical.
"""
from __future__ import annotations

from spgen.ir import Graph

__all__ = ["NAME", "run"]

NAME = "renumber"


def run(graph: Graph) -> Graph:
    graph.renumber()
    return graph
