"""The sweep driver: per chunk and stage, each phase's chunk function (fast or checked)."""
from __future__ import annotations

from llvmlite import ir

from .._plan import CHUNK, Plan
from . import _spec
from ._chunk import block_loop
from ._ir import I32, I64, P8, P32, P64, VOID, loop
from ._phase import PhaseGen

__all__ = ["NO_RING", "key_counts", "phase_fn", "sweep_fn"]

# ring size that marks a whole array in the key tables: an offset never reaches it
NO_RING = 1 << 62


def key_counts(plan: Plan) -> list[int]:
    """Offset of each phase's keys in a stage's key tables (its reads, then its stores)."""
    out, k = [], 0
    for p in range(plan.n_phases):
        out.append(k)
        k += len(plan.reads[p]) + len(plan.stores[p])
    return out + [k]


def phase_fn(ph: PhaseGen, fast: tuple, fastnt: tuple | None, edge: ir.Function, kbase: int,
             cached: bool = False) -> ir.Function:
    """phase(bases, offs, mods, s, e0, e1, N, wlo, whi, nt, regs, cls, ptrs): one chunk
    of one phase.

    ``fast`` and ``fastnt``: the chunk loops (plain, specialised or None) with normal
    and with streaming stores (``fastnt`` None: the phase stores no output); ``edge``:
    the checked loop for a chunk at a stream end.

    Each read and store ("key" ``k``, numbered per stage from ``kbase``) has its buffer
    address ``bases[k]``, ring size ``mods[k]`` (``NO_RING``: a whole array) and the
    offset ``offs[k]`` of the current chunk: ``s - d`` in a whole array, ``(s - d) mod m``
    in a ring. The sweep advances the offsets by a chunk per step (``spg_run``), so no
    division is needed; ``ptrs`` holds every key's chunk address (the fast loops' pointer
    table). ``cls``: the block-class tables (``_dispatch``).
    """
    mod, plan, p = ph.mod, ph.plan, ph.p
    ty = ir.FunctionType(VOID, [P64, P64, P64] + [I64] * 7 + [P32, P8, P64])
    fn = ir.Function(mod, ty, f"spg_phase{p}")
    fn.linkage = "internal"
    bases, offs, mods, s, e0, e1, n_el, wlo, whi, nt, regp, clsp, chunk_ptrs = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    zero64, c = ir.Constant(I64, 0), ir.Constant(I64, CHUNK)
    regv = [b.load(b.gep(regp, [ir.Constant(I32, k)])) for k in range(len(plan.graph.regs))]
    # nt bit 1 asks for the specialised loops (see _run._SPEC_STAGES)
    spec = b.icmp_signed("!=", b.and_(nt, ir.Constant(I64, 2)), zero64)
    extra = []
    if cached:  # this phase's block-class table: n / CHUNK + 1 entries per phase
        per = b.add(b.ashr(n_el, ir.Constant(I64, CHUNK.bit_length() - 1)), ir.Constant(I64, 1))
        first = b.mul(b.mul(per, ir.Constant(I64, p)), ir.Constant(I64, _spec.cls_entry()))
        extra += [b.gep(clsp, [first]), s]

    def at(slot: int, d: int, k: int) -> tuple[ir.Value, ir.Value, ir.Value, ir.Value]:
        """(chunk pointer, ring size, is-ring, offset) of one read or store."""
        kk = ir.Constant(I32, kbase + k)
        base = b.inttoptr(b.load(b.gep(bases, [kk])), P32)
        off, m = b.load(b.gep(offs, [kk])), b.load(b.gep(mods, [kk]))
        return b.gep(base, [off]), m, b.icmp_signed("!=", m, ir.Constant(I64, NO_RING)), off

    reads, stores = plan.reads[p], plan.stores[p]
    general = block_loop(ph, f"spg_gen{p}")
    # the stores' pointers here (the streaming-store test, the ring mirrors); the reads'
    # only where a stream end needs them, so the fast path does not compute them twice
    wr = [at(slot, 0, len(reads) + k) for k, (slot, _n) in enumerate(stores)]
    has_out = any(ph.is_out(slot) for slot, _ in stores)
    full = b.and_(b.icmp_signed("==", e0, s), b.icmp_signed("==", e1, b.add(s, c)))
    ok = b.and_(full, b.icmp_signed(">=", b.sub(s, ir.Constant(I64, plan.dmax[p])), zero64))
    ok = b.and_(ok, b.icmp_signed("<=", b.sub(b.add(s, c), ir.Constant(I64, plan.dmin[p])), n_el))
    if has_out:
        ok = b.and_(ok, b.and_(b.icmp_signed(">=", s, wlo), b.icmp_signed("<=", b.add(s, c), whi)))
    with b.if_else(ok) as (then, otherwise):
        with then:
            # fast: chunk-relative pointers, contiguous thanks to each ring's mirrored
            # tail, kept up to date by the sweep (spg_run)
            tab = b.gep(chunk_ptrs, [ir.Constant(I64, kbase)])

            def call(pair) -> None:
                """The plain fast loop, or the specialised one where it exists and is asked for."""
                plain, special = pair
                if special is None:
                    b.call(plain, [tab] + regv)
                    return
                with b.if_else(spec) as (t3, o3):
                    with t3:
                        b.call(special, [tab] + regv + extra)
                    with o3:
                        b.call(plain, [tab] + regv)

            if fastnt is None:
                call(fast)
            else:
                # streaming stores when asked for, into aligned whole arrays (last stage)
                use = b.icmp_signed("!=", b.and_(nt, ir.Constant(I64, 1)), zero64)
                for (slot, _n), (ptr, _m, ring, _o) in zip(stores, wr):
                    if ph.is_out(slot):
                        low = b.and_(b.ptrtoint(ptr, I64), ir.Constant(I64, 63))
                        use = b.and_(use, b.and_(b.not_(ring), b.icmp_signed("==", low, zero64)))
                with b.if_else(use) as (t2, o2):
                    with t2:
                        call(fastnt)
                    with o2:
                        call(fast)
        with otherwise:
            # a chunk at a stream end: the elements whose reads are all inside the
            # stream (and whose outputs are inside the slice) take the general loop
            # without checks, whole blocks of SUB; the rest the checked loop
            i0, i1 = b.sub(e0, s), b.sub(e1, s)
            rd = [at(slot, d, k) for k, (slot, d) in enumerate(reads)]
            ptrs = [x[0] for x in rd + wr]
            tail = [s, n_el, wlo, whi] + [x[2] for x in rd + wr] + regv
            smax = lambda x, y: b.select(b.icmp_signed(">", x, y), x, y)
            smin = lambda x, y: b.select(b.icmp_signed("<", x, y), x, y)
            lo = smax(i0, b.sub(ir.Constant(I64, plan.dmax[p]), s))
            hi = smin(i1, b.add(b.sub(n_el, s), ir.Constant(I64, plan.dmin[p])))
            if has_out:
                lo, hi = smax(lo, b.sub(wlo, s)), smin(hi, b.sub(whi, s))
            sh = ir.Constant(I64, _spec.SUB.bit_length() - 1)
            blo = b.ashr(b.add(lo, ir.Constant(I64, _spec.SUB - 1)), sh)  # ceil(lo / SUB)
            bhi = b.ashr(hi, sh)
            with b.if_else(b.icmp_signed("<", blo, bhi)) as (t4, o4):
                with t4:
                    b.call(edge, ptrs + [i0, b.shl(blo, sh)] + tail)
                    b.call(general, ptrs + regv + [blo, bhi])
                    b.call(edge, ptrs + [b.shl(bhi, sh), i1] + tail)
                with o4:
                    b.call(edge, ptrs + [i0, i1] + tail)

    # rings keep a copy of their first chunk after their end, so chunk reads never wrap
    for ptr, m, ring, off in wr:
        at0 = b.and_(ring, b.and_(b.icmp_signed(">=", s, zero64),
                                  b.icmp_signed("==", off, zero64)))
        with b.if_then(at0):
            def cp(b: ir.IRBuilder, i: ir.Value, ptr=ptr, m=m) -> None:
                b.store(b.load(b.gep(ptr, [i])), b.gep(ptr, [b.add(m, i)]))
            loop(b, fn, zero64, c, "dup", cp)
    b.ret_void()
    return fn


def sweep_fn(mod: ir.Module, plan: Plan, phases: list[ir.Function], name: str) -> ir.Function:
    """The sweep over the chunks of a stream (``spg_run``'s body, see ``_codegen.emit_module``):
    per chunk position and stage, each phase's chunk function, then the stage's offsets
    advanced by a chunk."""
    kb = key_counts(plan)
    ty = ir.FunctionType(VOID, [P64] * 5 + [I64] * 5 + [P32, P8])
    fn = ir.Function(mod, ty, name)
    fn.linkage = "internal"
    bases, offs, mods, lags, rng, n_st, t0, t1, n_el, nt, regs, clsp = fn.args
    for a in (bases, offs, mods, lags, rng):
        a.add_attribute("noalias")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    np_ = ir.Constant(I64, plan.n_phases)
    nk = ir.Constant(I64, kb[-1])
    c = ir.Constant(I64, CHUNK)
    # every read's and store's chunk address, bases + 4 offs, advanced with the offsets:
    # the fast loops take their pointers from here (see _chunk.chunk_loop)
    ptrs = b.alloca(I64, size=b.mul(n_st, nk))
    ptrs.align = 64

    def address(b: ir.IRBuilder, k: ir.Value, off: ir.Value) -> None:
        at = b.add(b.load(b.gep(bases, [k])), b.shl(off, ir.Constant(I64, 2)))
        b.store(at, b.gep(ptrs, [k]))
    loop(b, fn, ir.Constant(I64, 0), b.mul(n_st, nk), "ptr",
          lambda b, k: address(b, k, b.load(b.gep(offs, [k]))))
    def chunk(b: ir.IRBuilder, t: ir.Value) -> None:
        loop(b, fn, ir.Constant(I64, 0), n_st, "j", lambda b, j: stage(b, t, j))

    def stage(b: ir.IRBuilder, t: ir.Value, j: ir.Value) -> None:
        row = b.mul(j, nk)
        sb, so, sm = b.gep(bases, [row]), b.gep(offs, [row]), b.gep(mods, [row])
        sp = b.gep(ptrs, [row])
        r = [b.load(b.gep(rng, [b.add(b.mul(j, ir.Constant(I64, 4)), ir.Constant(I64, k))]))
             for k in range(4)]
        for p, pf in enumerate(phases):
            lag = b.load(b.gep(lags, [b.add(b.mul(j, np_), ir.Constant(I64, p))]))
            s = b.sub(t, lag)
            lo = b.select(b.icmp_signed(">", s, r[0]), s, r[0])
            se = b.add(s, c)
            hi = b.select(b.icmp_signed("<", se, r[1]), se, r[1])
            with b.if_then(b.icmp_signed("<", lo, hi)):
                b.call(pf, [sb, so, sm, s, lo, hi, n_el, r[2], r[3], nt, regs, clsp, sp])

        # advance every offset by one chunk, wrapping in rings (a vectorisable loop)
        def adv(b: ir.IRBuilder, k: ir.Value) -> None:
            op = b.gep(so, [k])
            m = b.load(b.gep(sm, [k]))
            nxt = b.add(b.load(op), c)
            nxt = b.select(b.icmp_signed(">=", nxt, m), b.sub(nxt, m), nxt)
            b.store(nxt, op)
            address(b, b.add(row, k), nxt)
        loop(b, fn, ir.Constant(I64, 0), nk, "adv", adv)

    loop(b, fn, t0, t1, "t", chunk, step=c)
    b.ret_void()
    return fn
