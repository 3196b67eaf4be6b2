"""LLVM back end: SPD dataflow graphs as native streaming kernels (the emulator)."""
from ._jit import clear_memory_cache
from ._native import NativeKernel, native_kernel
from ._run import clear_buffers, emulate
from ._spec import specialisation

__all__ = ["NativeKernel", "clear_buffers", "clear_memory_cache", "emulate", "native_kernel",
           "specialisation"]
