"""Graphviz text of a graph, for `spgen compile --dot` and debugging."""
from __future__ import annotations

from ._graph import Graph, format_node

__all__ = ["to_dot"]

_SHAPES = {"input": "invhouse", "reg": "component", "const": "plaintext", "shift": "cds",
           "inst": "box3d", "extern": "box3d"}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph: Graph) -> str:
    """Deterministic ``digraph``: one node per IR node, an edge per operand, one per output."""
    lines = [f"digraph {_quote(graph.name)} {{", "  rankdir=TB;",
             '  node [fontname="monospace", fontsize=10];']
    for n in graph.nodes:
        label = format_node(n).split(" = ", 1)[1]
        label = f"%{n.id}: {label}"
        lines.append(f"  n{n.id} [label={_quote(label)}, shape={_SHAPES.get(n.op, 'box')}];")
    for n in graph.nodes:
        for i, a in enumerate(n.args):
            attr = f' [label="{i}"]' if len(n.args) > 1 else ""
            lines.append(f"  n{a.id} -> n{n.id}{attr};")
    for k, o in enumerate(graph.outputs):
        name = f"{o.port.stream}.{o.port.name}"
        lines.append(f"  out{k} [label={_quote(name + ':' + str(o.port.type))}, shape=house];")
        lines.append(f"  n{o.node.id} -> out{k};")
    lines.append("}")
    return "\n".join(lines) + "\n"
