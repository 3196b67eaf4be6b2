"""spgen: compile `.spd` dataflow programs to pipelined Verilog and native kernels."""
from ._design import Design, compile
from ._diagnostics import CompileError, Diagnostic, Diagnostics, SpgenError

__all__ = ["Design", "compile", "CompileError", "Diagnostic", "Diagnostics", "SpgenError"]
__version__ = "0.1.0"
