"""The kernel's entry point: the floating-point environment the generated code assumes."""
from __future__ import annotations

from llvmlite import ir

from ._ir import I32, VOID, c32

__all__ = ["fp_entry"]


def fp_entry(mod: ir.Module, inner: ir.Function, name: str, x86: bool) -> None:
    """``name``: ``inner`` with x86 MXCSR set to IEEE (no DAZ/FTZ, nearest), then restored.

    A library built with -ffast-math can set DAZ/FTZ process-wide; the kernel must not
    inherit that, so --ftz is implemented by explicit flushing in the generated code.
    """
    fn = ir.Function(mod, inner.function_type, name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    if not x86:
        b.call(inner, list(fn.args))
        b.ret_void()
        return
    p8 = ir.IntType(8).as_pointer()
    st = ir.Function(mod, ir.FunctionType(VOID, [p8]), "llvm.x86.sse.stmxcsr")
    ld = ir.Function(mod, ir.FunctionType(VOID, [p8]), "llvm.x86.sse.ldmxcsr")
    saved = b.alloca(I32)
    work = b.alloca(I32)
    b.call(st, [b.bitcast(saved, p8)])
    # clear FTZ (bit 15), rounding control (bits 13-14) and DAZ (bit 6); mask all exceptions
    keep = ~((1 << 15) | (3 << 13) | (1 << 6)) & 0xFFFFFFFF
    b.store(b.or_(b.and_(b.load(saved), c32(keep)), c32(0x1F80)), work)
    b.call(ld, [b.bitcast(work, p8)])
    b.call(inner, list(fn.args))
    # order the streaming (non-temporal) stores before whatever reads the results next
    b.call(ir.Function(mod, ir.FunctionType(VOID, []), "llvm.x86.sse.sfence"), [])
    b.call(ld, [b.bitcast(saved, p8)])
    b.ret_void()
