"""Dataflow IR shared by the front end, the passes and both back ends."""
from ._dot import to_dot
from ._graph import Graph, IRError, Node, Output, Port, Program, RegDecl, SourceLoc, format_node
from ._ops import FLOAT_OPS, OPS, OpInfo, Type
from ._verify import verify_graph

__all__ = [
           "FLOAT_OPS",
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
