"""The fast chunk loops: a whole chunk (or whole blocks of one) with no bounds checks."""
from __future__ import annotations

from llvmlite import ir

from .._plan import CHUNK
from . import _spec
from ._dispatch import dispatch
from ._ir import I32, I64, P8, P32, P64, VOID, c64, loop, to_bits
from ._phase import PhaseGen

__all__ = ["block_loop", "chunk_loop"]


def _body(ph: PhaseGen, rptr, wptr, regv):
    """One element of the plain loop: compute everything, store every store."""
    def body(b: ir.IRBuilder, i: ir.Value) -> None:
        read = ph.scalar_reader(rptr, i)
        val = ph.em.element(b, ph.p, read, regv)
        for k, (_slot, n) in enumerate(ph.stores):
            b.store(to_bits(b, ph.stored(b, val, n, read, regv), n.type), b.gep(wptr[k], [i]))
    return body


def block_loop(ph: PhaseGen, name: str) -> ir.Function:
    """The plain loop over the elements [a*SUB, b*SUB) of a chunk: run(ptrs..., regs...,
    a, b); inlined into the stream-end path of the phase (_sweep.phase_fn)."""
    fn = ph.function(name, [I64, I64])
    rptr, wptr, regv = ph.split(fn.args)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    sh = c64(_spec.SUB.bit_length() - 1)
    lo, hi = b.shl(fn.args[-2], sh), b.shl(fn.args[-1], sh)  # multiples of SUB: no remainder
    loop(b, fn, lo, hi, "i", _body(ph, rptr, wptr, regv))
    b.ret_void()
    return fn


def chunk_loop(ph: PhaseGen, nt: bool = False, runs=None, cached: bool = False) -> ir.Function:
    """The loop over a whole chunk, taking its pointers from the sweep's table:
    run(table, regs..., [classes, s]).

    ``nt``: the output ports are 64-byte aligned whole arrays, stored with non-temporal
    (streaming) stores: a large result then goes to memory without first being read
    into the cache, and without evicting the rings of a fused sweep.
    ``runs``: the specialised loops (``_pipeline.class_loop``) with the condition values
    each assumes, then the general one: each SUB-element block of the chunk goes to the
    first whose conditions hold on all of it (``_dispatch.dispatch``); without, the
    plain loop. ``cached``: two more arguments, the phase's block-class table and the
    chunk's start.
    """
    stores = ph.stores
    extra = [P8, I64] if cached else []
    name = f"spg_fast{'nt' if nt else ''}{'spec' if runs else ''}{ph.p}"
    fn = ph.function(name + "_body", extra)  # inlined into the entry point below
    rptr, wptr, regv = ph.split(fn.args)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    streamed: list[tuple[ir.Value, ir.Value]] = []  # (scratch chunk, output pointer)
    if nt:
        # the loop writes the outputs into chunk buffers that stay in L1; aligned vector
        # copies with streaming stores follow (the vectoriser keeps no such store)
        for k, (slot, _n) in enumerate(stores):
            if ph.is_out(slot):
                tmp = b.alloca(ir.ArrayType(I32, CHUNK))
                tmp.align = 64
                streamed.append((tmp, wptr[k]))
                wptr[k] = b.gep(tmp, [ir.Constant(I32, 0), ir.Constant(I32, 0)])

    nptr = ph.n_ptrs
    nargs = len(ph.fast_args())
    if not runs:
        loop(b, fn, c64(0), c64(CHUNK), "i", _body(ph, rptr, wptr, regv))
    else:
        args = list(fn.args[:nptr - len(stores)]) + wptr + list(fn.args[nptr:nargs])
        dispatch(b, fn, ph, rptr, regv, args, runs, fn.args[nargs:] if cached else None)
    vec = ir.VectorType(I32, 16)
    ntmd = ph.mod.add_metadata([ir.Constant(I32, 1)])
    for tmp, out in streamed:
        src = b.bitcast(tmp, vec.as_pointer())
        dst = b.bitcast(out, vec.as_pointer())

        def cp(b: ir.IRBuilder, i: ir.Value, src=src, dst=dst) -> None:
            v = b.load(b.gep(src, [i]), align=64)
            b.store(v, b.gep(dst, [i]), align=64).set_metadata("nontemporal", ntmd)
        loop(b, fn, c64(0), c64(CHUNK // 16), "nt", cp)
    b.ret_void()
    # The entry point takes the chunk pointers as one table (kept up to date by the
    # sweep, spg_run), not as arguments: passing three dozen pointers on the stack
    # cost the sweep driver about 1,000 instructions per chunk, a quarter of the
    # time of a fused LBM sweep. Inlining the noalias body keeps the pointers apart
    # (the inliner turns noalias into alias scopes). Kept out of line: inlined into
    # the sweep, LLVM recomputed the chunk pointers inside the loop from spilled
    # halves (+36 instructions per 16 LBM cells).
    outer = ir.Function(ph.mod, ir.FunctionType(VOID, [P64] + [I32] * (nargs - nptr) + extra),
                        name)
    outer.linkage = "internal"
    outer.attributes.add("noinline")
    outer.args[0].add_attribute("noalias")
    b = ir.IRBuilder(outer.append_basic_block("entry"))
    ptrs = [b.inttoptr(b.load(b.gep(outer.args[0], [ir.Constant(I32, k)])), P32)
            for k in range(nptr)]
    b.call(fn, ptrs + list(outer.args[1:]))
    b.ret_void()
    return outer
