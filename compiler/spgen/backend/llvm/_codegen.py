"""LLVM IR of a module's streaming kernel: one vectorisable loop per phase and a sweep driver."""
from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ...ir import Node, Type
from . import _spec
from ._plan import CHUNK, Plan
from ._spec import cone, spec_variants, stage_invariant

__all__ = ["NO_RING", "RUN_SYMBOL", "emit_module", "key_counts"]

RUN_SYMBOL = "spg_run"
# ring size that marks a whole array in the key tables: an offset never reaches it
NO_RING = 1 << 62

I1, I32, I64, F32 = ir.IntType(1), ir.IntType(32), ir.IntType(64), ir.FloatType()
P32 = I32.as_pointer()
P64 = I64.as_pointer()
P8 = ir.IntType(8).as_pointer()
VOID = ir.VoidType()

_LTY = {Type.F32: F32, Type.I32: I32, Type.U32: I32, Type.BOOL: I1}

# --ftz (the Arria 10 hard FP behaviour): these ops see subnormal operands as zero of
# the same sign, and those in _FTZ_OUT also flush a subnormal result. Bit operations
# (fneg, fabs, select, bitcast) never flush.
_FTZ_IN = {"fadd", "fsub", "fmul", "fdiv", "fsqrt", "fmin", "fmax",
           "flt", "fle", "fgt", "fge", "feq", "fne", "fptosi", "fptoui"}
_FTZ_OUT = {"fadd", "fsub", "fmul", "fdiv", "fsqrt"}  # fmin/fmax return a flushed operand

_FCMP = {"flt": "<", "fle": "<=", "fgt": ">", "fge": ">=", "feq": "==", "fne": "!="}
_ICMP = {"ieq": ("==", True), "ine": ("!=", True), "slt": ("<", True), "sle": ("<=", True),
         "sgt": (">", True), "sge": (">=", True), "ult": ("<", False), "ule": ("<=", False),
         "ugt": (">", False), "uge": (">=", False)}

Reader = Callable[[ir.IRBuilder, int, int], tuple[ir.Value, "ir.Value | None"]]


def _c32(v: int) -> ir.Constant:
    return ir.Constant(I32, v & 0xFFFFFFFF)


def _like(v: ir.Value, t: ir.Type) -> ir.Type:
    """``t``, or a vector of it as wide as ``v`` when ``v`` is a vector."""
    return ir.VectorType(t, v.type.count) if isinstance(v.type, ir.VectorType) else t


def _from_bits(b: ir.IRBuilder, v: ir.Value, t: Type) -> ir.Value:
    """A value of SPD type ``t`` from its 32-bit pattern (a scalar or a vector)."""
    if t is Type.F32:
        return b.bitcast(v, _like(v, F32))
    if t is Type.BOOL:
        return b.icmp_unsigned("!=", v, ir.Constant(v.type, None))
    return v


def _to_bits(b: ir.IRBuilder, v: ir.Value, t: Type) -> ir.Value:
    """The 32-bit pattern of a value of SPD type ``t`` (a scalar or a vector)."""
    if t is Type.F32:
        return b.bitcast(v, _like(v, I32))
    if t is Type.BOOL:
        return b.zext(v, _like(v, I32))
    return v


def _const(t: Type, bits: int) -> ir.Constant:
    if t is Type.BOOL:
        return ir.Constant(I1, bits & 1)
    c = _c32(bits)
    return c.bitcast(F32) if t is Type.F32 else c


class _Emitter:
    """Emits the element computation of one phase for one element index."""

    def __init__(self, mod: ir.Module, plan: Plan, ftz: bool, lanes: int = 1):
        """``lanes`` > 1: values are vectors of that many elements (explicit vector code)."""
        self.mod, self.plan, self.ftz, self.lanes = mod, plan, ftz, lanes
        vec = (lambda t: ir.VectorType(t, lanes)) if lanes > 1 else (lambda t: t)
        self.i32, self.f32 = vec(I32), vec(F32)
        self.sfx = f"v{lanes}f32" if lanes > 1 else "f32"
        self.isfx = f"v{lanes}i32" if lanes > 1 else "i32"

    def splat(self, c: ir.Constant) -> ir.Constant:
        return c if self.lanes == 1 else ir.Constant(ir.VectorType(c.type, self.lanes),
                                                      [c] * self.lanes)

    def c32(self, v: int) -> ir.Constant:
        return self.splat(_c32(v))

    def const(self, t: Type, bits: int) -> ir.Constant:
        return self.splat(_const(t, bits))


    def intrinsic(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        fn = self.mod.globals.get(name)
        if fn is None:
            fn = ir.Function(self.mod, ir.FunctionType(ret, args), name)
        return fn

    def flush(self, b: ir.IRBuilder, x: ir.Value) -> ir.Value:
        bits = b.bitcast(x, self.i32)
        sub = b.icmp_unsigned("==", b.and_(bits, self.c32(0x7F800000)), self.c32(0))
        return b.bitcast(b.select(sub, b.and_(bits, self.c32(0x80000000)), bits), self.f32)

    def element(self, b: ir.IRBuilder, p: int, read: Reader, regs: dict[str, ir.Value],
                e: ir.Value | None, nodes: list[Node] | None = None,
                assume: dict[Node, bool] | None = None,
                given: dict[Node, ir.Value] | None = None) -> dict[Node, ir.Value]:
        """Values of the phase's computed nodes at one element (``e`` None in the fast path).

        ``nodes``: only these (default: all the phase computes); ``assume``: select
        conditions known to hold this value for the element, so the select is its
        taken operand (see ``spec_variants``); ``given``: values computed elsewhere.
        """
        plan = self.plan
        val: dict[Node, ir.Value] = dict(given or {})
        assume = assume or {}

        def get(a: Node) -> ir.Value:
            if a in val:
                return val[a]
            if a.op == "const":
                return self.const(a.type, a.attrs["bits"])
            if a.op == "reg":
                return _from_bits(b, regs[_reg_name(a)], a.type)
            src = plan.src_of(a, p)
            if src is None:
                raise AssertionError(f"{a!r} not available in phase {p}")  # plan bug
            v, _ = read(b, *src)
            val[a] = _from_bits(b, v, a.type)
            return val[a]

        for n in plan.compute[p] if nodes is None else nodes:
            if n.op == "select" and n.args[0] in assume:
                val[n] = get(n.args[1] if assume[n.args[0]] else n.args[2])
            else:
                val[n] = self.op(b, n, get, read, regs)
        return val

    def op(self, b: ir.IRBuilder, n: Node, get, read: Reader, regs) -> ir.Value:
        op, t = n.op, n.type
        if op == "shift":
            x = n.args[0]
            d = n.attrs["offset"]
            fill = self.const(t, n.attrs["fill"])
            if x.op == "input":
                v, ok = read(b, self.plan.in_slot[x.attrs["port"]], d)
                v = _from_bits(b, v, t)
            elif x.op in ("const", "reg"):
                v = get(x)
                ok = read(b, -1, d)[1]  # only the bounds check
            else:
                v, ok = read(b, self.plan.mat_slot[x], d)
                v = _from_bits(b, v, t)
            return v if ok is None else b.select(ok, v, fill)
        args = [get(a) for a in n.args]
        if self.ftz and op in _FTZ_IN:
            args = [self.flush(b, a) for a in args]
        r = self._compute(b, op, t, n, args)
        if self.ftz and op in _FTZ_OUT:
            r = self.flush(b, r)
        return r

    def _compute(self, b: ir.IRBuilder, op: str, t: Type, n: Node, a: list) -> ir.Value:
        if op == "fadd":
            return b.fadd(a[0], a[1])
        if op == "fsub":
            return b.fsub(a[0], a[1])
        if op == "fmul":
            return b.fmul(a[0], a[1])
        if op == "fdiv":
            return b.fdiv(a[0], a[1])
        if op == "fsqrt":
            return b.call(self.intrinsic(f"llvm.sqrt.{self.sfx}", self.f32, [self.f32]), [a[0]])
        if op in ("fneg", "fabs"):
            bits = b.bitcast(a[0], self.i32)
            bits = b.xor(bits, self.c32(0x80000000)) if op == "fneg" else b.and_(bits, self.c32(0x7FFFFFFF))
            return b.bitcast(bits, self.f32)
        if op in ("fmin", "fmax"):
            c = b.fcmp_ordered("<" if op == "fmin" else ">", a[0], a[1])
            return b.select(c, a[0], a[1])
        if op in _FCMP:
            if op == "fne":
                return b.fcmp_unordered("!=", a[0], a[1])
            return b.fcmp_ordered(_FCMP[op], a[0], a[1])
        if op == "add":
            return b.add(a[0], a[1])
        if op == "sub":
            return b.sub(a[0], a[1])
        if op == "mul":
            return b.mul(a[0], a[1])
        if op == "neg":
            return b.sub(self.c32(0), a[0])
        if op in ("sdiv", "srem", "udiv", "urem"):
            return self._divrem(b, op, a[0], a[1])
        if op in ("shl", "lshr", "ashr"):
            amt = a[1]
            big = b.icmp_unsigned(">=", amt, self.c32(32))
            safe = b.and_(amt, self.c32(31))
            if op == "shl":
                return b.select(big, self.c32(0), b.shl(a[0], safe))
            if op == "lshr":
                return b.select(big, self.c32(0), b.lshr(a[0], safe))
            return b.ashr(a[0], b.select(big, self.c32(31), safe))
        if op in ("smin", "smax", "umin", "umax"):
            cmp = b.icmp_signed if op[0] == "s" else b.icmp_unsigned
            c = cmp("<" if op.endswith("min") else ">", a[0], a[1])
            return b.select(c, a[0], a[1])
        if op == "iabs":
            return b.select(b.icmp_signed("<", a[0], self.c32(0)), b.sub(self.c32(0), a[0]), a[0])
        if op in _ICMP:
            rel, signed = _ICMP[op]
            return (b.icmp_signed if signed else b.icmp_unsigned)(rel, a[0], a[1])
        if op == "and":
            return b.and_(a[0], a[1])
        if op == "or":
            return b.or_(a[0], a[1])
        if op == "xor":
            return b.xor(a[0], a[1])
        if op == "not":
            return b.not_(a[0])
        if op == "select":
            return b.select(a[0], a[1], a[2])
        if op == "sitofp":
            return b.sitofp(a[0], self.f32)
        if op == "uitofp":
            return b.uitofp(a[0], self.f32)
        if op == "fptosi":
            return b.call(self.intrinsic(f"llvm.fptosi.sat.{self.isfx}.{self.sfx}", self.i32, [self.f32]), [a[0]])
        if op == "fptoui":
            return b.call(self.intrinsic(f"llvm.fptoui.sat.{self.isfx}.{self.sfx}", self.i32, [self.f32]), [a[0]])
        if op == "bitcast":
            return _from_bits(b, _to_bits(b, a[0], n.args[0].type), t)
        if op == "booltoint":
            return b.zext(a[0], self.i32)
        raise AssertionError(f"op {op} reached the LLVM back end")  # verifier keeps this out

    def _divrem(self, b: ir.IRBuilder, op: str, x: ir.Value, y: ir.Value) -> ir.Value:
        # x86 traps on /0 and INT_MIN/-1: divide by 1 instead, then patch the result.
        zero = b.icmp_unsigned("==", y, self.c32(0))
        bad = zero
        if op[0] == "s":
            ovf = b.and_(b.icmp_unsigned("==", x, self.c32(0x80000000)),
                         b.icmp_unsigned("==", y, self.c32(0xFFFFFFFF)))
            bad = b.or_(zero, ovf)
        safe = b.select(bad, self.c32(1), y)
        fn = {"sdiv": b.sdiv, "srem": b.srem, "udiv": b.udiv, "urem": b.urem}[op]
        return b.select(zero, self.c32(0), fn(x, safe))


def _loop(b: ir.IRBuilder, fn: ir.Function, lo: ir.Value, hi: ir.Value, name: str,
          body: Callable[[ir.IRBuilder, ir.Value], None]) -> None:
    """for (i = lo; i < hi; i++) body(i); leaves ``b`` after the loop."""
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
    nxt = b.add(i, ir.Constant(lo.type, 1))
    i.add_incoming(nxt, b.block)
    b.branch(head)
    b.position_at_end(end)


def _is_out(plan: Plan, slot: int) -> bool:
    return slot >= plan.n_slots - len(plan.out_slot)


def _loop_body(em: _Emitter, plan: Plan, p: int, rptr, wptr, regv, nodes=None, assume=None):
    def body(b: ir.IRBuilder, i: ir.Value) -> None:
        def read(b: ir.IRBuilder, slot: int, d: int):
            if slot < 0:
                return None, None
            return b.load(b.gep(rptr[(slot, d)], [i])), None

        val = em.element(b, p, read, regv, None, nodes, assume)
        for k, (_slot, n) in enumerate(plan.stores[p]):
            v = val[n] if n in val else em_get_source(b, n, plan, p, read, regv)
            b.store(_to_bits(b, v, n.type), b.gep(wptr[k], [i]))
    return body


def _fast_args(plan: Plan, p: int) -> list[ir.Type]:
    return [P32] * (len(plan.reads[p]) + len(plan.stores[p])) + [I32] * len(plan.graph.regs)


def _split_args(plan: Plan, p: int, args):
    reads, stores = plan.reads[p], plan.stores[p]
    rptr = dict(zip(reads, args))
    wptr = list(args[len(reads):len(reads) + len(stores)])
    regv = {r.name: args[len(reads) + len(stores) + k] for k, r in enumerate(plan.graph.regs)}
    return rptr, wptr, regv


def _run_fn(mod: ir.Module, em: _Emitter, plan: Plan, p: int, name: str, nodes=None,
            assume=None) -> ir.Function:
    """The fast loop over elements [a*SUB, b*SUB) of a chunk: run(ptrs..., regs..., a, b)."""
    fn = ir.Function(mod, ir.FunctionType(VOID, _fast_args(plan, p) + [I64, I64]), name)
    fn.linkage = "internal"
    # inlined into the stream-end path of the phase (_phase_fn)
    fn.attributes.add("alwaysinline")
    nptr = len(plan.reads[p]) + len(plan.stores[p])
    for a in fn.args[:nptr]:
        a.add_attribute("noalias")
    rptr, wptr, regv = _split_args(plan, p, fn.args)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    sh = ir.Constant(I64, _spec.SUB.bit_length() - 1)
    lo, hi = b.shl(fn.args[-2], sh), b.shl(fn.args[-1], sh)  # multiples of SUB: no remainder
    _loop(b, fn, lo, hi, "i", _loop_body(em, plan, p, rptr, wptr, regv, nodes, assume))
    b.ret_void()
    return fn


def _class_fn(mod: ir.Module, em: _Emitter, plan: Plan, p: int, name: str, nodes=None,
              assume=None) -> ir.Function:
    """One variant's loop over the blocks of a chunk in a bit mask: run(ptrs..., regs...,
    mask), mask non-zero, bit j for the SUB elements from j * SUB. Software-pipelined
    where ``_pipeline_split`` finds a cut, else one block per iteration."""
    fn = ir.Function(mod, ir.FunctionType(VOID, _fast_args(plan, p) + [I64]), name)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")  # into the chunk loop (_fast_fn)
    nptr = len(plan.reads[p]) + len(plan.stores[p])
    for a in fn.args[:nptr]:
        a.add_attribute("noalias")
    rptr, wptr, regv = _split_args(plan, p, fn.args)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    nodes = plan.compute[p] if nodes is None else nodes
    split = _pipeline_split(plan, p, nodes, assume) or ([], list(nodes), [])
    _pipelined(b, fn, em, plan, p, rptr, wptr, regv, assume, fn.args[-1], *split)
    b.ret_void()
    return fn


# Software pipelining of the specialised loops (_pipeline_split, _pipelined): latencies
# in cycles (x86 AVX-512, about the same on AMD Zen 4/5 and Intel), the shortest
# longest path worth cutting, and where to cut it. Side by side on the Zen 5 (LBM, one
# thread): cut at 0.4 or 0.5 of the path +9-14 % on 256² x 16, 0.3 the same, 0.6-0.7
# less.
_LATENCY = {"fdiv": 12, "fsqrt": 15, "fadd": 3, "fsub": 3, "fmul": 3}
_PIPE_MIN_PATH = 40
_PIPE_CUT = 0.4
# Blocks ahead of the first part that the pipelined loop prefetches its reads for:
# the rings of a fused sweep live in the L2 cache, too many streams for the L1
# prefetchers to follow (+11-18 % on the 256² and 1024² LBM cascades on the Zen 5;
# prefetching the stores as well was the same or slower).
_PREFETCH_BLOCKS = 8


def _pipeline_split(plan: Plan, p: int, nodes, assume):
    """(first-part nodes, second-part nodes, cut): the loop's computation cut in two at
    ``_PIPE_CUT`` of its longest latency path. The loop then computes the first part for
    the next block and the second part for the current one in one iteration: two
    independent chains the processor overlaps (one chain, about 70 cycles in LBM, is longer than
    its scheduler window covers). Values crossing the cut stay in registers; reads
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


def _pipelined(b: ir.IRBuilder, fn: ir.Function, em: _Emitter, plan: Plan, p: int, rptr,
               wptr, regv, assume, mask: ir.Value, first, second, cut) -> None:
    """The blocks in ``mask`` (non-zero) as explicit vector code, software-pipelined: an
    iteration computes the first part for the next block and the second part for the
    current one (see ``_pipeline_split``; with no cut, all in the second); the values
    crossing the cut stay in registers. Walking the set bits rather than a range lets
    the blocks of one class anywhere in the chunk share one pipeline (the two wall
    blocks of a 256-cell LBM row, the eight of four 64-cell rows)."""
    sub = _spec.SUB
    vem = _Emitter(em.mod, plan, em.ftz, sub)
    vi32 = ir.VectorType(I32, sub)
    undef = ir.Constant(vi32, ir.Undefined)
    zeros = ir.Constant(ir.VectorType(I32, sub), [ir.Constant(I32, 0)] * sub)
    vregs = {name: b.shuffle_vector(b.insert_element(undef, v, ir.Constant(I32, 0)), undef, zeros)
             for name, v in regv.items()}
    shift = ir.Constant(I64, sub.bit_length() - 1)

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
        val = vem.element(b, p, rec, vregs, None, first, assume)
        return [val[n] for n in cut]

    def prefetch(j: ir.Value) -> None:
        """Prefetch the lines the first part reads _PREFETCH_BLOCKS blocks after ``j``
        (one per row of a slot; a prefetch never faults, so past the end is harmless)."""
        pf = vem.intrinsic("llvm.prefetch.p0i8", VOID, [P8, I32, I32, I32])
        e = b.shl(b.add(j, ir.Constant(I64, _PREFETCH_BLOCKS)), shift)
        lines = set()
        for slot, d in keys:
            if (slot, d // sub) not in lines:
                lines.add((slot, d // sub))
                at = b.bitcast(b.gep(rptr[(slot, d)], [e]), P8)
                b.call(pf, [at, ir.Constant(I32, 0), ir.Constant(I32, 3), ir.Constant(I32, 1)])

    def stage_b(j: ir.Value, carried: list[ir.Value]) -> None:
        read = reader(j)
        val = vem.element(b, p, read, vregs, None, second, assume, dict(zip(cut, carried)))
        e = b.shl(j, shift)
        for k, (_slot, n) in enumerate(plan.stores[p]):
            v = val[n] if n in val else em_get_source(b, n, plan, p, read, vregs, vem)
            at = b.bitcast(b.gep(wptr[k], [e]), vi32.as_pointer())
            b.store(_to_bits(b, v, n.type), at, align=4)

    cttz = vem.intrinsic("llvm.cttz.i64", I64, [I64, I1])
    lowest = lambda m: b.call(cttz, [m, ir.Constant(I1, 1)])  # m != 0
    drop = lambda m: b.and_(m, b.sub(m, ir.Constant(I64, 1)))  # clear the lowest bit
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
        ph = b.phi(v.type)
        ph.add_incoming(v, pre)
        carried.append(ph)
    b.cbranch(b.icmp_unsigned("!=", rest, ir.Constant(I64, 0)), body, tail)
    b.position_at_end(body)
    j1 = lowest(rest)
    nxt = stage_a(j1)
    if cut:
        prefetch(j1)
    stage_b(j, carried)
    j.add_incoming(j1, b.block)
    rest.add_incoming(drop(rest), b.block)
    for ph, v in zip(carried, nxt):
        ph.add_incoming(v, b.block)
    b.branch(head)
    b.position_at_end(tail)
    stage_b(j, carried)


def _fast_fn(mod: ir.Module, em: _Emitter, plan: Plan, p: int, nt: bool = False,
             runs: list[tuple[ir.Function, list[tuple[Node, bool]]]] | None = None,
             cached: bool = False) -> ir.Function:
    """The chunk loop with no bounds checks: every pointer is noalias and chunk-relative.

    ``nt``: the output ports are 64-byte aligned whole arrays, stored with non-temporal
    (streaming) stores: a large result then goes to memory without first being read
    into the cache, and without evicting the rings of a fused sweep.
    ``runs``: the specialised loops (``_run_fn``) with the condition values each needs,
    then the general one; the chunk is cut into runs of SUB-element blocks, each run
    going to the first loop whose conditions hold on all of it. ``cached``: two more
    arguments, the phase's block-class table and the chunk's start (see ``_dispatch``).
    """
    stores = plan.stores[p]
    extra = [P8, I64] if cached else []
    name = f"spg_fast{'nt' if nt else ''}{'spec' if runs else ''}{p}"
    fn = ir.Function(mod, ir.FunctionType(VOID, _fast_args(plan, p) + extra), name + "_body")
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")  # into the wrapper below
    nptr = len(plan.reads[p]) + len(stores)
    for a in fn.args[:nptr]:
        a.add_attribute("noalias")
    rptr, wptr, regv = _split_args(plan, p, fn.args)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    streamed: list[tuple[ir.Value, ir.Value]] = []  # (scratch chunk, output pointer)
    if nt:
        # the loop writes the outputs into chunk buffers that stay in L1; aligned vector
        # copies with streaming stores follow (the vectoriser keeps no such store)
        for k, (slot, _n) in enumerate(stores):
            if _is_out(plan, slot):
                tmp = b.alloca(ir.ArrayType(I32, CHUNK))
                tmp.align = 64
                streamed.append((tmp, wptr[k]))
                wptr[k] = b.gep(tmp, [ir.Constant(I32, 0), ir.Constant(I32, 0)])

    if not runs:
        _loop(b, fn, ir.Constant(I64, 0), ir.Constant(I64, CHUNK), "i",
              _loop_body(em, plan, p, rptr, wptr, regv))
    else:
        nargs = len(_fast_args(plan, p))
        args = list(fn.args[:nptr - len(stores)]) + wptr + list(fn.args[nptr:nargs])
        _dispatch(b, fn, em, plan, p, rptr, regv, args, runs,
                  fn.args[nargs:] if cached else None)
    vec = ir.VectorType(I32, 16)
    ntmd = mod.add_metadata([ir.Constant(I32, 1)])
    for tmp, out in streamed:
        src = b.bitcast(tmp, vec.as_pointer())
        dst = b.bitcast(out, vec.as_pointer())

        def cp(b: ir.IRBuilder, i: ir.Value, src=src, dst=dst) -> None:
            v = b.load(b.gep(src, [i]), align=64)
            b.store(v, b.gep(dst, [i]), align=64).set_metadata("nontemporal", ntmd)
        _loop(b, fn, ir.Constant(I64, 0), ir.Constant(I64, CHUNK // 16), "nt", cp)
    b.ret_void()
    # The entry point takes the chunk pointers as one table (kept up to date by the
    # sweep, spg_run), not as arguments: passing three dozen pointers on the stack
    # cost the sweep driver about 1,000 instructions per chunk, a quarter of the
    # time of a fused LBM sweep. Inlining the noalias body keeps the pointers apart
    # (the inliner turns noalias into alias scopes). Kept out of line: inlined into
    # the sweep, LLVM recomputed the chunk pointers inside the loop from spilled
    # halves (+36 instructions per 16 LBM cells).
    nargs = len(_fast_args(plan, p))
    outer = ir.Function(mod, ir.FunctionType(VOID, [P64] + [I32] * (nargs - nptr) + extra), name)
    outer.linkage = "internal"
    outer.attributes.add("noinline")
    outer.args[0].add_attribute("noalias")
    b = ir.IRBuilder(outer.append_basic_block("entry"))
    ptrs = [b.inttoptr(b.load(b.gep(outer.args[0], [ir.Constant(I32, k)])), P32)
            for k in range(nptr)]
    b.call(fn, ptrs + list(outer.args[1:]))
    b.ret_void()
    return outer


def _dispatch(b: ir.IRBuilder, fn: ir.Function, em: _Emitter, plan: Plan, p: int, rptr,
              regv, args: list[ir.Value], runs, cache=None) -> None:
    """Classify the chunk's SUB-element blocks, then run each variant's loop over the
    blocks of its class (``_runs``).

    ``cache`` (table, s): the classes of the chunk at ``s`` are kept in entry ``s /
    CHUNK`` of the table (``_spec.cls_entry()`` bytes: the tag s + 1, then one class per
    block); a later stage of the sweep finds them there instead of testing
    again (only for conditions that are the same in every stage, ``stage_invariant``).
    """
    sub = _spec.SUB
    nsub = CHUNK // sub
    i8 = ir.IntType(8)
    conds: list[Node] = []
    for _f, need in runs[:-1]:
        conds += [c for c, _v in need if c not in conds]
    need = cone(plan, p, conds)
    nodes = [n for n in plan.compute[p] if n in need]
    bits = b.alloca(ir.ArrayType(i8, CHUNK))
    bits.align = 64
    z = ir.Constant(I32, 0)
    if cache is None:
        cls = b.gep(b.alloca(ir.ArrayType(i8, nsub)), [z, z])
        _classify(b, fn, em, plan, p, rptr, regv, runs, nodes, bits, cls)
    else:
        tab, s = cache
        entry = b.gep(tab, [b.mul(b.ashr(s, ir.Constant(I64, CHUNK.bit_length() - 1)),
                                  ir.Constant(I64, _spec.cls_entry()))])
        tag = b.bitcast(entry, P64)
        cls = b.gep(entry, [ir.Constant(I64, 8)])
        s1 = b.add(s, ir.Constant(I64, 1))
        with b.if_then(b.icmp_signed("!=", b.load(tag), s1)):
            _classify(b, fn, em, plan, p, rptr, regv, runs, nodes, bits, cls)
            b.store(s1, tag)
    _runs(b, fn, args, runs, cls, nsub)


def _classify(b: ir.IRBuilder, fn: ir.Function, em: _Emitter, plan: Plan, p: int, rptr, regv,
              runs, nodes, bits, cls) -> None:
    """cls[j] = the first specialised loop whose conditions hold on all of block j, else
    the general one (the last)."""
    sub = _spec.SUB
    nsub = CHUNK // sub
    i8 = ir.IntType(8)
    z = ir.Constant(I32, 0)

    def classify(b: ir.IRBuilder, i: ir.Value) -> None:
        def read(b: ir.IRBuilder, slot: int, d: int):
            if slot < 0:
                return None, None
            return b.load(b.gep(rptr[(slot, d)], [i])), None

        val = em.element(b, p, read, regv, None, nodes)
        acc = ir.Constant(i8, 0)
        for k, (_f, need) in enumerate(runs[:-1]):
            ok = ir.Constant(I1, 1)
            for c, v in need:
                x = val[c] if c in val else em_get_source(b, c, plan, p, read, regv)
                ok = b.and_(ok, x if v else b.not_(x))
            acc = b.or_(acc, b.shl(b.zext(ok, i8), ir.Constant(i8, k)))
        b.store(acc, b.gep(bits, [z, i]))
    _loop(b, fn, ir.Constant(I64, 0), ir.Constant(I64, CHUNK), "cls", classify)

    vty = ir.VectorType(i8, sub)
    mty = ir.IntType(sub)
    general = ir.Constant(i8, len(runs) - 1)

    def block(b: ir.IRBuilder, j: ir.Value) -> None:
        at = b.bitcast(b.gep(bits, [z, b.mul(j, ir.Constant(I64, sub))]), vty.as_pointer())
        v = b.load(at, align=sub)
        pick = general
        for k in reversed(range(len(runs) - 1)):  # the first (cheapest) loop that may run
            bit = ir.Constant(vty, [1 << k] * sub)
            # lane mask -> sub-bit integer: one test and one compare with AVX-512
            m = b.bitcast(b.icmp_unsigned("!=", b.and_(v, bit), ir.Constant(vty, [0] * sub)),
                          mty)
            has = b.icmp_unsigned("==", m, ir.Constant(mty, (1 << sub) - 1))
            pick = b.select(has, ir.Constant(i8, k), pick)
        b.store(pick, b.gep(cls, [j]))
    _loop(b, fn, ir.Constant(I64, 0), ir.Constant(I64, nsub), "blk", block)


def _runs(b: ir.IRBuilder, fn: ir.Function, args, runs, cls, nsub: int) -> None:
    """Each variant's loop once, over the mask of the chunk's blocks of its class."""
    assert nsub <= 64, "block masks are 64-bit"
    i8 = ir.IntType(8)
    vty = ir.VectorType(i8, nsub)
    classes = b.load(b.bitcast(cls, vty.as_pointer()), align=1)
    for k, (f, _need) in enumerate(runs):
        hit = b.icmp_unsigned("==", classes, ir.Constant(vty, [ir.Constant(i8, k)] * nsub))
        mask = b.zext(b.bitcast(hit, ir.IntType(nsub)), I64)
        with b.if_then(b.icmp_unsigned("!=", mask, ir.Constant(I64, 0))):
            b.call(f, args + [mask])


def em_get_source(b, n: Node, plan: Plan, p: int, read, regs, em: _Emitter | None = None
                  ) -> ir.Value:
    """A stored value that the phase does not compute: a source (constant, register, input)."""
    if n.op == "const":
        return em.const(n.type, n.attrs["bits"]) if em else _const(n.type, n.attrs["bits"])
    if n.op == "reg":
        return _from_bits(b, regs[_reg_name(n)], n.type)
    slot, d = plan.src_of(n, p)  # type: ignore[misc]
    return _from_bits(b, read(b, slot, d)[0], n.type)


def _edge_fn(mod: ir.Module, em: _Emitter, plan: Plan, p: int) -> ir.Function:
    """The checked chunk loop for the stream ends and partial chunks.

    Same pointers as the fast loop plus the element range ``[i0, i1)`` of the chunk at
    ``s``; a read outside the stream yields the shift's fill value and loads nothing
    from a whole array (a ring may always be read), output stores are limited to
    ``[wlo, whi)``. Loads and stores are conditional rather than clamped, so the loop
    vectorises with masked loads and stores.
    """
    reads, stores, regs = plan.reads[p], plan.stores[p], plan.graph.regs
    nr, nw = len(reads), len(stores)
    ty = ir.FunctionType(VOID, [P32] * (nr + nw) + [I64] * 6 + [I1] * (nr + nw)
                         + [I32] * len(regs))
    fn = ir.Function(mod, ty, f"spg_edge{p}")
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
        e = b.add(s, i)
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
            phi.add_incoming(_c32(0), pre)
            return phi, (inb if d != 0 else None)

        val = em.element(b, p, read, regv, e)
        inw = within(b, i32, wrange)
        for k, (slot, n) in enumerate(stores):
            v = val[n] if n in val else em_get_source(b, n, plan, p, read, regv)
            bits = _to_bits(b, v, n.type)
            at = b.gep(wptr[k], [i])
            if slot >= plan.n_slots - len(plan.out_slot):
                with b.if_then(b.or_(inw, wring[k])):
                    b.store(bits, at)
            else:
                b.store(bits, at)

    _loop(b, fn, i0, i1, "i", body)
    b.ret_void()
    return fn


def _phase_fn(mod: ir.Module, em: _Emitter, plan: Plan, p: int, fast: tuple,
              fastnt: tuple | None, edge: ir.Function, kbase: int,
              cached: bool = False) -> ir.Function:
    """phase(bases, offs, mods, s, e0, e1, N, wlo, whi, nt, regs): one chunk of one phase.

    Each read and store ("key" ``k``, numbered per stage from ``kbase``) has its buffer
    address ``bases[k]``, ring size ``mods[k]`` (``NO_RING``: a whole array) and the
    offset ``offs[k]`` of the current chunk: ``s - d`` in a whole array, ``(s - d) mod m``
    in a ring. The sweep advances the offsets by a chunk per step (``spg_run``), so no
    division is needed.
    """
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
    general = mod.globals.get(f"spg_gen{p}") or _run_fn(mod, em, plan, p, f"spg_gen{p}")
    # the stores' pointers here (the streaming-store test, the ring mirrors); the reads'
    # only where a stream end needs them, so the fast path does not compute them twice
    wr = [at(slot, 0, len(reads) + k) for k, (slot, _n) in enumerate(stores)]
    has_out = any(_is_out(plan, slot) for slot, _ in stores)
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
                    if _is_out(plan, slot):
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
            _loop(b, fn, zero64, c, "dup", cp)
    b.ret_void()
    return fn


def key_counts(plan: Plan) -> list[int]:
    """Offset of each phase's keys in a stage's key tables (its reads, then its stores)."""
    out, k = [], 0
    for p in range(plan.n_phases):
        out.append(k)
        k += len(plan.reads[p]) + len(plan.stores[p])
    return out + [k]


def emit_module(plan: Plan, ftz: bool, x86: bool) -> ir.Module:
    """The kernel module; its entry point is ``spg_run`` (see ``_run.py`` for the tables).

    ``spg_run(bases, offs, mods, lags, rng, S, t0, t1, N, nt, regs, cls)``: for t in
    [t0, t1) by CHUNK, for each stage j and phase p, the chunk at
    ``s = t - lags[j*P+p]`` clipped to ``[rng[4j], rng[4j+1])`` with output stores
    limited to ``[rng[4j+2], rng[4j+3])``. ``bases``, ``offs`` and ``mods`` (S x
    key_counts[-1]) give every read and store of stage j its buffer address, chunk
    offset at t0 and ring size (see ``_phase_fn``); the offsets are advanced here.
    ``nt`` bit 0 asks for streaming stores into the (64-byte aligned) output arrays.
    ``cls``: zeroed block-class tables, ``cls_bytes(plan, N)`` bytes (``_dispatch``).
    (Software prefetching of the whole arrays was tried and measured slower on both
    an AMD Zen 5 and an Intel Xeon: the hardware prefetchers keep up.)
    """
    mod = ir.Module(name=f"spg_{plan.graph.name}")
    em = _Emitter(mod, plan, ftz)
    kb = key_counts(plan)
    phases = []
    for p in range(plan.n_phases):
        outs = any(_is_out(plan, slot) for slot, _n in plan.stores[p])
        runs = None
        cached = False
        variants = spec_variants(plan, p)
        if variants:
            cached = stage_invariant(plan, p, [c for _v, used, _l in variants for c in used])
            runs = []
            for k, (value, used, live) in enumerate(variants):
                nodes = [n for n in plan.compute[p] if n in live]
                f = _class_fn(mod, em, plan, p, f"spg_spec{p}_{k}", nodes,
                              {c: value for c in used})
                runs.append((f, [(c, value) for c in used]))
            runs.append((_class_fn(mod, em, plan, p, f"spg_genc{p}"), []))
        fast = (_fast_fn(mod, em, plan, p),
                runs and _fast_fn(mod, em, plan, p, runs=runs, cached=cached))
        fastnt = outs and (_fast_fn(mod, em, plan, p, nt=True),
                           runs and _fast_fn(mod, em, plan, p, nt=True, runs=runs, cached=cached))
        phases.append(_phase_fn(mod, em, plan, p, fast, fastnt or None,
                                _edge_fn(mod, em, plan, p), kb[p], cached))
    ty = ir.FunctionType(VOID, [P64] * 5 + [I64] * 5 + [P32, P8])
    fn = ir.Function(mod, ty, RUN_SYMBOL + "_body")
    fn.linkage = "internal"
    bases, offs, mods, lags, rng, n_st, t0, t1, n_el, nt, regs, clsp = fn.args
    for a in (bases, offs, mods, lags, rng):
        a.add_attribute("noalias")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    np_ = ir.Constant(I64, plan.n_phases)
    nk = ir.Constant(I64, kb[-1])
    c = ir.Constant(I64, CHUNK)
    # every read's and store's chunk address, bases + 4 offs, advanced with the offsets:
    # the fast loops take their pointers from here (see _fast_fn)
    ptrs = b.alloca(I64, size=b.mul(n_st, nk))
    ptrs.align = 64

    def address(b: ir.IRBuilder, k: ir.Value, off: ir.Value) -> None:
        at = b.add(b.load(b.gep(bases, [k])), b.shl(off, ir.Constant(I64, 2)))
        b.store(at, b.gep(ptrs, [k]))
    _loop(b, fn, ir.Constant(I64, 0), b.mul(n_st, nk), "ptr",
          lambda b, k: address(b, k, b.load(b.gep(offs, [k]))))
    pre = b.block
    head = fn.append_basic_block("t.head")
    tb = fn.append_basic_block("t.body")
    end = fn.append_basic_block("t.end")
    b.branch(head)
    b.position_at_end(head)
    t = b.phi(I64, "t")
    t.add_incoming(t0, pre)
    b.cbranch(b.icmp_signed("<", t, t1), tb, end)
    b.position_at_end(tb)

    def stage(b: ir.IRBuilder, j: ir.Value) -> None:
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
        _loop(b, fn, ir.Constant(I64, 0), nk, "adv", adv)

    _loop(b, fn, ir.Constant(I64, 0), n_st, "j", stage)
    t.add_incoming(b.add(t, c), b.block)
    b.branch(head)
    b.position_at_end(end)
    b.ret_void()
    _entry(mod, fn, x86)
    return mod


def _entry(mod: ir.Module, inner: ir.Function, x86: bool) -> None:
    """spg_run: the sweep with x86 MXCSR set to IEEE (no DAZ/FTZ, nearest), then restored.

    A library built with -ffast-math can set DAZ/FTZ process-wide; the kernel must not
    inherit that, so --ftz is implemented by explicit flushing in the generated code.
    """
    fn = ir.Function(mod, inner.function_type, RUN_SYMBOL)
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
    b.store(b.or_(b.and_(b.load(saved), _c32(keep)), _c32(0x1F80)), work)
    b.call(ld, [b.bitcast(work, p8)])
    b.call(inner, list(fn.args))
    # order the streaming (non-temporal) stores before whatever reads the results next
    b.call(ir.Function(mod, ir.FunctionType(VOID, []), "llvm.x86.sse.sfence"), [])
    b.call(ld, [b.bitcast(saved, p8)])
    b.ret_void()


def _reg_name(n: Node) -> str:
    # the contract puts the register name in attrs; the signal name is the same SPD name
    return n.attrs.get("name") or n.name  # type: ignore[return-value]
