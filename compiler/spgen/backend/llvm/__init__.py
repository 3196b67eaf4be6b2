"""LLVM back end: SPD dataflow graphs as native streaming kernels (the emulator)."""
from ._jit import clear_memory_cache
from ._run import clear_buffers, emulate
from ._spec import specialisation

__all__ = ["clear_buffers", "clear_memory_cache", "emulate", "specialisation"]
