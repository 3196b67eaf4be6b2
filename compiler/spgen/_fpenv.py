"""The host's floating-point mode: IEEE subnormals for numpy work done on the compiler's behalf.

A shared library built with -ffast-math (lbmpy's generated kernels, for one) sets the
x86 DAZ/FTZ bits for the whole process when it is loaded. numpy then flushes float32
subnormals, which would make constant folding disagree with the hardware. Code that
computes SPD values with numpy runs inside `ieee_fp()`.
"""
from __future__ import annotations

import contextlib
import ctypes
import platform
from collections.abc import Callable, Iterator

import numpy as np

__all__ = ["flushes_subnormals", "ieee_fp", "reset_fp_env"]

_DAZ_FTZ = (1 << 6) | (1 << 15)  # MXCSR: denormals-are-zero, flush-to-zero
_RC = 3 << 13  # MXCSR rounding control (00 = nearest)
_mxcsr: tuple[Callable[[], int], Callable[[int], None]] | None = None


def flushes_subnormals() -> bool:
    """True when float32 subnormal operands or results are flushed in this process."""
    with np.errstate(all="ignore"):
        smallest_normal = np.float32(1.1754944e-38)
        ftz = smallest_normal / np.float32(2.0) == 0
        daz = np.float32(1e-45) + np.float32(0.0) == 0
    return bool(ftz or daz)


def _mxcsr_access() -> tuple[Callable[[], int], Callable[[int], None]]:
    """get/set of MXCSR, JIT-compiled once with llvmlite (x86-64 only)."""
    global _mxcsr
    if _mxcsr is None:
        import llvmlite.binding as llvm

        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        ir = """
        declare void @llvm.x86.sse.stmxcsr(ptr)
        declare void @llvm.x86.sse.ldmxcsr(ptr)
        define i32 @get() {
          %p = alloca i32
          call void @llvm.x86.sse.stmxcsr(ptr %p)
          %v = load i32, ptr %p
          ret i32 %v
        }
        define void @set(i32 %v) {
          %p = alloca i32
          store i32 %v, ptr %p
          call void @llvm.x86.sse.ldmxcsr(ptr %p)
          ret void
        }
        """
        mod = llvm.parse_assembly(ir)
        tm = llvm.Target.from_default_triple().create_target_machine()
        engine = llvm.create_mcjit_compiler(mod, tm)
        engine.finalize_object()
        get = ctypes.CFUNCTYPE(ctypes.c_uint32)(engine.get_function_address("get"))
        set_ = ctypes.CFUNCTYPE(None, ctypes.c_uint32)(engine.get_function_address("set"))
        _mxcsr = (get, set_)
        _mxcsr_access.engine = engine  # type: ignore[attr-defined]  # keep the code alive
    return _mxcsr


def _is_x86() -> bool:
    return platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")


def reset_fp_env() -> None:
    """Put this thread's SSE unit back to IEEE mode (subnormals kept, round to nearest)."""
    if _is_x86() and flushes_subnormals():
        get, set_ = _mxcsr_access()
        set_(get() & ~(_DAZ_FTZ | _RC))


@contextlib.contextmanager
def ieee_fp() -> Iterator[None]:
    """Run the block with IEEE float32 behaviour, restoring the caller's mode after."""
    if not (_is_x86() and flushes_subnormals()):
        yield
        return
    get, set_ = _mxcsr_access()
    saved = get()
    set_(saved & ~(_DAZ_FTZ | _RC))
    try:
        yield
    finally:
        set_(saved)
