"""Pass fold-constants: compute operations whose operands are all constants.

Before: a verified graph. After: every computing op (not a source, ``shift``,
instance or ``proj``) whose operands are all ``const`` nodes and whose result is
bit-exactly defined has become a ``const`` node with the result bits (f32 in IEEE
binary32 round-to-nearest-even with subnormals, or flushed to zero under ``ftz``;
integers by SPD.md's wrap-around, division and shift rules). Float results that are
NaN are left unfolded (the hardware's NaN payload is not specified). Nodes keep their
id, name and position, so no use needs redirecting.
"""
from __future__ import annotations

from spgen.ir import Graph

from ._scalar import fold_bits

__all__ = ["NAME", "run"]

NAME = "fold-constants"

_NOT_FOLDED = {"input", "reg", "const", "shift", "inst", "extern", "proj"}


def run(graph: Graph, *, ftz: bool = False) -> Graph:
    for n in graph.nodes:
        if n.op in _NOT_FOLDED or not all(a.op == "const" for a in n.args):
            continue
        bits = fold_bits(n.op, n.type, [(a.type, a.attrs["bits"]) for a in n.args], ftz)
        if bits is not None:
            n.op, n.args, n.attrs = "const", (), {"bits": bits}
    graph.touch()
    return graph
