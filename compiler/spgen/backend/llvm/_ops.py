"""Op emission: the computation of one phase at one element, as scalars or as vectors."""
from __future__ import annotations

from llvmlite import ir

from ...ir import OPS, Node, Type
from .._plan import Plan
from ._ir import F32, I32, Reader, c32, const, from_bits, reg_name, to_bits

__all__ = ["Emitter"]

# ops that are one builder call on their operands, whose LLVM meaning is SPD's
_PLAIN = {"fadd": "fadd", "fsub": "fsub", "fmul": "fmul", "fdiv": "fdiv", "add": "add",
          "sub": "sub", "mul": "mul", "and": "and_", "or": "or_", "xor": "xor", "not": "not_",
          "select": "select"}
_FCMP = {"flt": "<", "fle": "<=", "fgt": ">", "fge": ">=", "feq": "==", "fne": "!="}
_ICMP = {"ieq": ("==", True), "ine": ("!=", True), "slt": ("<", True), "sle": ("<=", True),
         "sgt": (">", True), "sge": (">=", True), "ult": ("<", False), "ule": ("<=", False),
         "ugt": (">", False), "uge": (">=", False)}


class Emitter:
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
        return self.splat(c32(v))

    def const(self, t: Type, bits: int) -> ir.Constant:
        return self.splat(const(t, bits))

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
                nodes: list[Node] | None = None, assume: dict[Node, bool] | None = None,
                given: dict[Node, ir.Value] | None = None) -> dict[Node, ir.Value]:
        """Values of the phase's computed nodes at the element (or lanes) ``read`` reads.

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
                return from_bits(b, regs[reg_name(a)], a.type)
            src = plan.src_of(a, p)
            if src is None:
                raise AssertionError(f"{a!r} not available in phase {p}")  # plan bug
            v, _ = read(b, *src)
            val[a] = from_bits(b, v, a.type)
            return val[a]

        for n in plan.compute[p] if nodes is None else nodes:
            if n.op == "select" and n.args[0] in assume:
                val[n] = get(n.args[1] if assume[n.args[0]] else n.args[2])
            else:
                val[n] = self.op(b, n, get, read)
        return val

    def op(self, b: ir.IRBuilder, n: Node, get, read: Reader) -> ir.Value:
        op, t = n.op, n.type
        if op == "shift":
            x = n.args[0]
            d = n.attrs["offset"]
            fill = self.const(t, n.attrs["fill"])
            if x.op == "input":
                v, ok = read(b, self.plan.in_slot[x.attrs["port"]], d)
                v = from_bits(b, v, t)
            elif x.op in ("const", "reg"):
                v = get(x)
                ok = read(b, -1, d)[1]  # only the bounds check
            else:
                v, ok = read(b, self.plan.mat_slot[x], d)
                v = from_bits(b, v, t)
            return v if ok is None else b.select(ok, v, fill)
        args = [get(a) for a in n.args]
        flush = OPS[op].flush if self.ftz else ""  # --ftz: see OpInfo.flush
        if flush:
            args = [self.flush(b, a) for a in args]
        r = self._compute(b, op, t, n, args)
        if flush == "inout":
            r = self.flush(b, r)
        return r

    def _compute(self, b: ir.IRBuilder, op: str, t: Type, n: Node, a: list) -> ir.Value:
        plain = _PLAIN.get(op)
        if plain:
            return getattr(b, plain)(*a)
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
        if op in ("sitofp", "uitofp"):
            return getattr(b, op)(a[0], self.f32)
        if op in ("fptosi", "fptoui"):  # saturating, NaN -> 0 (SPD.md)
            fn = self.intrinsic(f"llvm.{op}.sat.{self.isfx}.{self.sfx}", self.i32, [self.f32])
            return b.call(fn, [a[0]])
        if op == "bitcast":
            return from_bits(b, to_bits(b, a[0], n.args[0].type), t)
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

    def source(self, b: ir.IRBuilder, n: Node, p: int, read: Reader, regs) -> ir.Value:
        """A stored value that the phase does not compute: a constant, register or read."""
        if n.op == "const":
            return self.const(n.type, n.attrs["bits"])
        if n.op == "reg":
            return from_bits(b, regs[reg_name(n)], n.type)
        slot, d = self.plan.src_of(n, p)  # type: ignore[misc]
        return from_bits(b, read(b, slot, d)[0], n.type)
