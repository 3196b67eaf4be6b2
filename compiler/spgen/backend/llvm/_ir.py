"""The code generator's LLVM vocabulary: types, constants, 32-bit patterns, counted loops."""
from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ...ir import Node, Type

I1, I8, I32, I64, F32 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64), ir.FloatType()
P32 = I32.as_pointer()
P64 = I64.as_pointer()
P8 = I8.as_pointer()
VOID = ir.VoidType()

# a read of the element stream: (builder, slot, distance) -> (value bits, in-stream bit or None);
# slot -1 asks only for the bounds check of a shifted constant or register
Reader = Callable[[ir.IRBuilder, int, int], tuple[ir.Value, "ir.Value | None"]]


def c32(v: int) -> ir.Constant:
    return ir.Constant(I32, v & 0xFFFFFFFF)


def c64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def const(t: Type, bits: int) -> ir.Constant:
    """The constant of SPD type ``t`` with the 32-bit pattern ``bits``."""
    if t is Type.BOOL:
        return ir.Constant(I1, bits & 1)
    c = c32(bits)
    return c.bitcast(F32) if t is Type.F32 else c


def _like(v: ir.Value, t: ir.Type) -> ir.Type:
    """``t``, or a vector of it as wide as ``v`` when ``v`` is a vector."""
    return ir.VectorType(t, v.type.count) if isinstance(v.type, ir.VectorType) else t


def from_bits(b: ir.IRBuilder, v: ir.Value, t: Type) -> ir.Value:
    """A value of SPD type ``t`` from its 32-bit pattern (a scalar or a vector)."""
    if t is Type.F32:
        return b.bitcast(v, _like(v, F32))
    if t is Type.BOOL:
        return b.icmp_unsigned("!=", v, ir.Constant(v.type, None))
    return v


def to_bits(b: ir.IRBuilder, v: ir.Value, t: Type) -> ir.Value:
    """The 32-bit pattern of a value of SPD type ``t`` (a scalar or a vector)."""
    if t is Type.F32:
        return b.bitcast(v, _like(v, I32))
    if t is Type.BOOL:
        return b.zext(v, _like(v, I32))
    return v


def reg_name(n: Node) -> str:
    # the contract puts the register name in attrs; the signal name is the same SPD name
    return n.attrs.get("name") or n.name  # type: ignore[return-value]


def loop(b: ir.IRBuilder, fn: ir.Function, lo: ir.Value, hi: ir.Value, name: str,
         body: Callable[[ir.IRBuilder, ir.Value], None], step: ir.Value | None = None) -> None:
    """for (i = lo; i < hi; i += step (1)) body(i); leaves ``b`` after the loop."""
    pre = b.block
    head = fn.append_basic_block(f"{name}.head")
    blk = fn.append_basic_block(f"{name}.body")
    end = fn.append_basic_block(f"{name}.end")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(lo.type, name=f"{name}.i")
    i.add_incoming(lo, pre)
    b.cbranch(b.icmp_signed("<", i, hi), blk, end)
    b.position_at_end(blk)
    body(b, i)
    nxt = b.add(i, step or ir.Constant(lo.type, 1))
    i.add_incoming(nxt, b.block)
    b.branch(head)
    b.position_at_end(end)
