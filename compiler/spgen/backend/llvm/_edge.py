"""The checked chunk loop: the chunks at the stream ends and partial chunks."""
from __future__ import annotations

from llvmlite import ir

from .._plan import CHUNK
from ._ir import I1, I32, I64, P32, VOID, c32, loop, to_bits
from ._phase import PhaseGen

__all__ = ["edge_loop"]


def edge_loop(ph: PhaseGen) -> ir.Function:
    """The checked chunk loop for the stream ends and partial chunks.

    Same pointers as the fast loop plus the element range ``[i0, i1)`` of the chunk at
    ``s``; a read outside the stream yields the shift's fill value and loads nothing
    from a whole array (a ring may always be read), output stores are limited to
    ``[wlo, whi)``. Loads and stores are conditional rather than clamped, so the loop
    vectorises with masked loads and stores.
    """
    plan, p = ph.plan, ph.p
    reads, stores, regs = ph.reads, ph.stores, plan.graph.regs
    nr, nw = len(reads), len(stores)
    ty = ir.FunctionType(VOID, [P32] * (nr + nw) + [I64] * 6 + [I1] * (nr + nw)
                         + [I32] * len(regs))
    fn = ir.Function(ph.mod, ty, f"spg_edge{p}")
    fn.linkage = "internal"
    for a in fn.args[:nr + nw]:
        a.add_attribute("noalias")
    rptr = dict(zip(reads, fn.args[:nr]))
    wptr = fn.args[nr:nr + nw]
    i0, i1, s, n_el, wlo, whi = fn.args[nr + nw:nr + nw + 6]
    rring = dict(zip(reads, fn.args[nr + nw + 6:2 * nr + nw + 6]))
    wring = fn.args[2 * nr + nw + 6:2 * (nr + nw) + 6]
    regv = {r.name: fn.args[2 * (nr + nw) + 6 + k] for k, r in enumerate(regs)}
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    zero64, c = ir.Constant(I64, 0), ir.Constant(I64, CHUNK)

    def window(lo: ir.Value, hi: ir.Value) -> tuple[ir.Value, ir.Value]:
        """The chunk-relative range [lo, hi) clamped to [0, CHUNK], as (start, length) in
        32 bits: the loop then tests ``i - start <u length``, one 32-bit compare per lane
        (64-bit positions cost two compares of two vectors each per read: the checked
        loop was twice as slow per chunk as the fast one)."""
        clamp = lambda v: b.select(b.icmp_signed("<", v, zero64), zero64,
                                   b.select(b.icmp_signed(">", v, c), c, v))
        lo, hi = clamp(lo), clamp(hi)  # clamping keeps lo <= hi
        return b.trunc(lo, I32), b.trunc(b.sub(hi, lo), I32)

    # element s + i reads position s + i - d: inside the stream for d - s <= i < N - s + d
    inside = {(slot, d): window(b.sub(ir.Constant(I64, d), s),
                                b.add(b.sub(n_el, s), ir.Constant(I64, d)))
              for slot, d in reads + [(-1, n.attrs["offset"]) for n in plan.compute[p]
                                      if n.op == "shift" and n.args[0].op in ("const", "reg")]}
    wrange = window(b.sub(wlo, s), b.sub(whi, s))

    def within(b: ir.IRBuilder, i32: ir.Value, rng: tuple[ir.Value, ir.Value]) -> ir.Value:
        return b.icmp_unsigned("<", b.sub(i32, rng[0]), rng[1])

    def body(b: ir.IRBuilder, i: ir.Value) -> None:
        i32 = b.trunc(i, I32)

        def read(b: ir.IRBuilder, slot: int, d: int):
            inb = within(b, i32, inside[(slot, d)])
            if slot < 0:
                return None, inb
            pre = b.block
            ld = b.append_basic_block(f"ld{slot}_{d}")
            join = b.append_basic_block(f"ldj{slot}_{d}")
            b.cbranch(b.or_(inb, rring[(slot, d)]), ld, join)
            b.position_at_end(ld)
            v = b.load(b.gep(rptr[(slot, d)], [i]))
            b.branch(join)
            b.position_at_end(join)
            phi = b.phi(I32)
            phi.add_incoming(v, ld)
            phi.add_incoming(c32(0), pre)
            return phi, (inb if d != 0 else None)

        val = ph.em.element(b, p, read, regv)
        inw = within(b, i32, wrange)
        for k, (slot, n) in enumerate(stores):
            v = ph.stored(b, val, n, read, regv)
            bits = to_bits(b, v, n.type)
            at = b.gep(wptr[k], [i])
            if ph.is_out(slot):
                with b.if_then(b.or_(inw, wring[k])):
                    b.store(bits, at)
            else:
                b.store(bits, at)

    loop(b, fn, i0, i1, "i", body)
    b.ret_void()
    return fn
