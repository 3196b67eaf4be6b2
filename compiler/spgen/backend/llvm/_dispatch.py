"""Class dispatch: which specialised loop runs each SUB-element block of a chunk."""
from __future__ import annotations

from llvmlite import ir

from ...ir import Node
from .._plan import CHUNK
from . import _spec
from ._ir import I1, I8, I32, I64, P64, c64, loop
from ._phase import PhaseGen
from ._spec import cone

__all__ = ["dispatch"]


def dispatch(b: ir.IRBuilder, fn: ir.Function, ph: PhaseGen, rptr, regv,
             args: list[ir.Value], runs, cache=None) -> None:
    """Classify the chunk's SUB-element blocks, then run each variant's loop over the
    blocks of its class.

    ``runs``: the variants' loops (``_pipeline.class_loop``) with the condition values
    each assumes, cheapest first, then the general one; ``args``: their arguments.
    ``cache`` (table, s): the classes of the chunk at ``s`` are kept in entry ``s /
    CHUNK`` of the table (``_spec.cls_entry()`` bytes: the tag s + 1, then one class per
    block); a later stage of the sweep finds them there instead of testing
    again (only for conditions that are the same in every stage, ``stage_invariant``).
    """
    nsub = CHUNK // _spec.SUB
    conds: list[Node] = []
    for _f, need in runs[:-1]:
        conds += [c for c, _v in need if c not in conds]
    need = cone(ph.plan, ph.p, conds)
    nodes = [n for n in ph.plan.compute[ph.p] if n in need]
    bits = b.alloca(ir.ArrayType(I8, CHUNK))
    bits.align = 64
    z = ir.Constant(I32, 0)
    if cache is None:
        cls = b.gep(b.alloca(ir.ArrayType(I8, nsub)), [z, z])
        _classify(b, fn, ph, rptr, regv, runs, nodes, bits, cls)
    else:
        tab, s = cache
        entry = b.gep(tab, [b.mul(b.ashr(s, c64(CHUNK.bit_length() - 1)),
                                  c64(_spec.cls_entry()))])
        tag = b.bitcast(entry, P64)
        cls = b.gep(entry, [c64(8)])
        s1 = b.add(s, c64(1))
        with b.if_then(b.icmp_signed("!=", b.load(tag), s1)):
            _classify(b, fn, ph, rptr, regv, runs, nodes, bits, cls)
            b.store(s1, tag)
    _run_classes(b, args, runs, cls, nsub)


def _classify(b: ir.IRBuilder, fn: ir.Function, ph: PhaseGen, rptr, regv, runs, nodes,
              bits, cls) -> None:
    """cls[j] = the first specialised loop whose conditions hold on all of block j, else
    the general one (the last)."""
    sub = _spec.SUB
    z = ir.Constant(I32, 0)

    def classify(b: ir.IRBuilder, i: ir.Value) -> None:
        read = ph.scalar_reader(rptr, i)
        val = ph.em.element(b, ph.p, read, regv, nodes)
        acc = ir.Constant(I8, 0)
        for k, (_f, need) in enumerate(runs[:-1]):
            ok = ir.Constant(I1, 1)
            for c, v in need:
                x = ph.stored(b, val, c, read, regv)
                ok = b.and_(ok, x if v else b.not_(x))
            acc = b.or_(acc, b.shl(b.zext(ok, I8), ir.Constant(I8, k)))
        b.store(acc, b.gep(bits, [z, i]))
    loop(b, fn, c64(0), c64(CHUNK), "cls", classify)

    vty = ir.VectorType(I8, sub)
    mty = ir.IntType(sub)
    general = ir.Constant(I8, len(runs) - 1)

    def block(b: ir.IRBuilder, j: ir.Value) -> None:
        at = b.bitcast(b.gep(bits, [z, b.mul(j, c64(sub))]), vty.as_pointer())
        v = b.load(at, align=sub)
        pick = general
        for k in reversed(range(len(runs) - 1)):  # the first (cheapest) loop that may run
            bit = ir.Constant(vty, [1 << k] * sub)
            # lane mask -> sub-bit integer: one test and one compare with AVX-512
            m = b.bitcast(b.icmp_unsigned("!=", b.and_(v, bit), ir.Constant(vty, [0] * sub)),
                          mty)
            has = b.icmp_unsigned("==", m, ir.Constant(mty, (1 << sub) - 1))
            pick = b.select(has, ir.Constant(I8, k), pick)
        b.store(pick, b.gep(cls, [j]))
    loop(b, fn, c64(0), c64(CHUNK // sub), "blk", block)


def _run_classes(b: ir.IRBuilder, args, runs, cls, nsub: int) -> None:
    """Each variant's loop once, over the mask of the chunk's blocks of its class."""
    assert nsub <= 64, "block masks are 64-bit"
    vty = ir.VectorType(I8, nsub)
    classes = b.load(b.bitcast(cls, vty.as_pointer()), align=1)
    for k, (f, _need) in enumerate(runs):
        hit = b.icmp_unsigned("==", classes, ir.Constant(vty, [ir.Constant(I8, k)] * nsub))
        mask = b.zext(b.bitcast(hit, ir.IntType(nsub)), I64)
        with b.if_then(b.icmp_unsigned("!=", mask, c64(0))):
            b.call(f, args + [mask])
