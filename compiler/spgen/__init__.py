"""spgen: compile `.spd` dataflow programs to pipelined Verilog and native kernels."""
from ._libstdcxx import load_system_libstdcxx

# Before numpy and llvmlite, whose wheels carry their own static libstdc++: see _libstdcxx.
load_system_libstdcxx()

from ._afu_build import Build, build
from ._design import Design, compile
from ._diagnostics import CompileError, Diagnostic, Diagnostics, SpgenError
from ._paths import version

__all__ = ["Build", "CompileError", "Design", "Diagnostic", "Diagnostics", "SpgenError", "build",
           "compile"]
__version__ = version()
