"""Dataflow IR shared by the front end, the passes and both back ends."""
from ._graph import Graph, IRError, Node, Output, Port, Program, RegDecl, SourceLoc, format_node
from ._ops import FLOAT_OPS, OPS, OpInfo, Type
from ._verify import verify_graph
from ._dot import to_dot

__all__ = ["Graph", "IRError", "Node", "Output", "Port", "Program", "RegDecl", "SourceLoc",
           "format_node", "FLOAT_OPS", "OPS", "OpInfo", "Type", "verify_graph", "to_dot"]
