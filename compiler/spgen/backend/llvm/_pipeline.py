"""Software-pipelined block loops: the specialised loops of a chunk as explicit vector code.

A loop over the SUB-element blocks of a chunk whose computation is one long latency
chain (LBM's collision: about 70 cycles) is cut in two: an iteration computes the
first part for the next block beside the second part for the current one, two
independent chains the processor overlaps.
"""
from __future__ import annotations

from llvmlite import ir

from ...ir import Node
from .._plan import Plan
from . import _spec
from ._ir import I1, I32, I64, P8, VOID, c64, to_bits
from ._ops import Emitter
from ._phase import PhaseGen

__all__ = ["class_loop", "split"]

# Tuning for x86 AVX-512 (about the same on AMD Zen 4/5 and Intel; measured effects in
# docs/emulator.md, "Tuning"): latencies in cycles, the shortest longest path worth
# cutting, and where to cut it.
_LATENCY = {"fdiv": 12, "fsqrt": 15, "fadd": 3, "fsub": 3, "fmul": 3}
_PIPE_MIN_PATH = 40
_PIPE_CUT = 0.4
# Blocks ahead of the first part that the pipelined loop prefetches its reads for: the
# rings of a fused sweep live in the L2 cache, too many streams for the L1 prefetchers
# to follow (the stores are not prefetched: no gain).
_PREFETCH_BLOCKS = 8


def class_loop(ph: PhaseGen, name: str, nodes=None, assume=None) -> ir.Function:
    """One variant's loop over the blocks of a chunk in a bit mask: run(ptrs..., regs...,
    mask), mask non-zero, bit j for the SUB elements from j * SUB. Software-pipelined
    where ``split`` finds a cut, else one block per iteration."""
    fn = ph.function(name, [I64])  # inlined into the chunk loop (_chunk.chunk_loop)
    rptr, wptr, regv = ph.split(fn.args)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    nodes = ph.plan.compute[ph.p] if nodes is None else nodes
    parts = split(ph.plan, ph.p, nodes, assume) or ([], list(nodes), [])
    _emit(b, fn, ph, rptr, wptr, regv, assume, fn.args[-1], *parts)
    b.ret_void()
    return fn


def split(plan: Plan, p: int, nodes, assume):
    """(first-part nodes, second-part nodes, cut): the loop's computation cut in two at
    ``_PIPE_CUT`` of its longest latency path. The loop then computes the first part for
    the next block and the second part for the current one in one iteration: two
    independent chains the processor overlaps (one chain, about 70 cycles in LBM, is longer
    than its scheduler window covers). Values crossing the cut stay in registers; reads
    (and selects resolved to reads) are loaded again rather than carried. None when
    the path is too short to be worth it."""
    nodes = plan.compute[p] if nodes is None else nodes
    assume = assume or {}
    inside = set(nodes)

    def used(n: Node) -> list[Node]:
        if n.op == "shift":
            return []
        args = n.args
        if n.op == "select" and args[0] in assume:
            args = [args[1] if assume[args[0]] else args[2]]
        return [a for a in args if a in inside]

    depth: dict[Node, int] = {}
    for n in nodes:
        depth[n] = _LATENCY.get(n.op, 1 if n.op != "shift" else 0) + max(
            (depth[a] for a in used(n)), default=0)
    total = max(depth.values(), default=0)
    if total < _PIPE_MIN_PATH:
        return None
    half = int(total * _PIPE_CUT)

    def reread(n: Node) -> bool:
        """A read (or a select resolved to one): cheaper to load again than to carry."""
        if n.op == "shift":
            return True
        return n.op == "select" and n.args[0] in assume and all(
            a not in inside or reread(a) for a in used(n))

    first = [n for n in nodes if depth[n] <= half and not reread(n)]
    fset = set(first)
    second_need: set[Node] = set()
    stack = [n for _s, n in plan.stores[p] if n in inside and n not in fset]
    cut: set[Node] = {n for _s, n in plan.stores[p] if n in fset}
    while stack:
        n = stack.pop()
        if n in second_need:
            continue
        second_need.add(n)
        for a in used(n):
            if a in fset:
                cut.add(a)
            elif a not in second_need:
                stack.append(a)
    if not cut:
        return None
    first_need: set[Node] = set()
    stack = list(cut)
    while stack:
        n = stack.pop()
        if n in first_need:
            continue
        first_need.add(n)
        stack.extend(a for a in used(n) if a in inside)
    return ([n for n in nodes if n in first_need], [n for n in nodes if n in second_need],
            [n for n in nodes if n in cut])


def _emit(b: ir.IRBuilder, fn: ir.Function, ph: PhaseGen, rptr, wptr, regv, assume,
          mask: ir.Value, first, second, cut) -> None:
    """The blocks in ``mask`` (non-zero) as explicit vector code, software-pipelined: an
    iteration computes the first part for the next block and the second part for the
    current one (see ``split``; with no cut, all in the second); the values crossing the
    cut stay in registers. Walking the set bits rather than a range lets the blocks of
    one class anywhere in the chunk share one pipeline (the two wall blocks of a
    256-cell LBM row, the eight of four 64-cell rows)."""
    sub = _spec.SUB
    p = ph.p
    vem = Emitter(ph.mod, ph.plan, ph.em.ftz, sub)
    vi32 = ir.VectorType(I32, sub)
    undef = ir.Constant(vi32, ir.Undefined)
    zeros = ir.Constant(ir.VectorType(I32, sub), [ir.Constant(I32, 0)] * sub)
    vregs = {name: b.shuffle_vector(b.insert_element(undef, v, ir.Constant(I32, 0)), undef, zeros)
             for name, v in regv.items()}
    shift = c64(sub.bit_length() - 1)

    def reader(j: ir.Value):
        e = b.shl(j, shift)

        def read(b: ir.IRBuilder, slot: int, d: int):
            if slot < 0:
                return None, None
            at = b.bitcast(b.gep(rptr[(slot, d)], [e]), vi32.as_pointer())
            return b.load(at, align=4), None
        return read

    keys: list = []

    def stage_a(j: ir.Value) -> list[ir.Value]:
        read = reader(j)

        def rec(b: ir.IRBuilder, slot: int, d: int):
            if (slot, d) not in keys and slot >= 0:
                keys.append((slot, d))
            return read(b, slot, d)
        val = vem.element(b, p, rec, vregs, first, assume)
        return [val[n] for n in cut]

    def prefetch(j: ir.Value) -> None:
        """Prefetch the lines the first part reads _PREFETCH_BLOCKS blocks after ``j``
        (one per row of a slot; a prefetch never faults, so past the end is harmless)."""
        pf = vem.intrinsic("llvm.prefetch.p0i8", VOID, [P8, I32, I32, I32])
        e = b.shl(b.add(j, c64(_PREFETCH_BLOCKS)), shift)
        lines = set()
        for slot, d in keys:
            if (slot, d // sub) not in lines:
                lines.add((slot, d // sub))
                at = b.bitcast(b.gep(rptr[(slot, d)], [e]), P8)
                b.call(pf, [at, ir.Constant(I32, 0), ir.Constant(I32, 3), ir.Constant(I32, 1)])

    def stage_b(j: ir.Value, carried: list[ir.Value]) -> None:
        read = reader(j)
        val = vem.element(b, p, read, vregs, second, assume, dict(zip(cut, carried)))
        e = b.shl(j, shift)
        for k, (_slot, n) in enumerate(ph.stores):
            v = ph.stored(b, val, n, read, vregs, vem)
            at = b.bitcast(b.gep(wptr[k], [e]), vi32.as_pointer())
            b.store(to_bits(b, v, n.type), at, align=4)

    cttz = vem.intrinsic("llvm.cttz.i64", I64, [I64, I1])
    lowest = lambda m: b.call(cttz, [m, ir.Constant(I1, 1)])  # m != 0
    drop = lambda m: b.and_(m, b.sub(m, c64(1)))  # clear the lowest bit
    j0 = lowest(mask)
    pre_vals = stage_a(j0)
    rest0 = drop(mask)
    pre = b.block
    head = fn.append_basic_block("pipe.head")
    body = fn.append_basic_block("pipe.body")
    tail = fn.append_basic_block("pipe.tail")
    b.branch(head)
    b.position_at_end(head)
    j = b.phi(I64, "pipe.j")
    j.add_incoming(j0, pre)
    rest = b.phi(I64, "pipe.rest")
    rest.add_incoming(rest0, pre)
    carried = []
    for v in pre_vals:
        phi = b.phi(v.type)
        phi.add_incoming(v, pre)
        carried.append(phi)
    b.cbranch(b.icmp_unsigned("!=", rest, c64(0)), body, tail)
    b.position_at_end(body)
    j1 = lowest(rest)
    nxt = stage_a(j1)
    if cut:
        prefetch(j1)
    stage_b(j, carried)
    j.add_incoming(j1, b.block)
    rest.add_incoming(drop(rest), b.block)
    for phi, v in zip(carried, nxt):
        phi.add_incoming(v, b.block)
    b.branch(head)
    b.position_at_end(tail)
    stage_b(j, carried)
