"""Dataflow IR shared by the front end, the passes and both back ends."""
from ._dot import to_dot
from ._graph import (
                     Graph,
                     IRError,
                     Node,
                     Output,
                     Port,
                     Program,
                     RegDecl,
                     SourceLoc,
                     format_node,
                     verify_graph,
)
from ._ops import FLOP_KINDS, OPS, OpInfo, Type

__all__ = [
           "FLOP_KINDS",
           "OPS",
           "Graph",
           "IRError",
           "Node",
           "OpInfo",
           "Output",
           "Port",
           "Program",
           "RegDecl",
           "SourceLoc",
           "Type",
           "format_node",
           "to_dot",
           "verify_graph",
]
