"""Back ends: Verilog (the hardware), LLVM (the CPU emulator) and CUDA (the GPU emulator)."""
from __future__ import annotations

from ._emulate import emulate_on

__all__ = ["emulate_on"]
