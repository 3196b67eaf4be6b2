"""Semantic analysis and lowering of one SPD module (with evaluated Params) to an IR Graph."""
from __future__ import annotations

import time
from typing import Any

from ..ir import Graph, Node, Output, Port, RegDecl, Type
from . import _ast as A
from ._calls import lower_call
from ._consts import (
    INT_LIMIT,
    ConstError,
    ConstEval,
    f32_bits,
    float_to_bits,
    postorder,
    real_literal,
)
from ._context import ModuleLoader
from ._hdl import lower_hdl
from ._values import ERR, TYPES, IntC, expr_loc, sloc

__all__ = ["TYPES", "lower_module"]

_INTS = (Type.I32, Type.U32)
_F_BIN = {"+": "fadd", "-": "fsub", "*": "fmul", "/": "fdiv"}
_I_BIN = {"+": "add", "-": "sub", "*": "mul", "<<": "shl", "&": "and", "|": "or", "^": "xor"}
_F_CMP = {"<": "flt", "<=": "fle", ">": "fgt", ">=": "fge", "==": "feq", "!=": "fne"}
_S_CMP = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "ieq", "!=": "ine"}
_U_CMP = {"<": "ult", "<=": "ule", ">": "ugt", ">=": "uge", "==": "ieq", "!=": "ine"}
class _Signal:
    __slots__ = ("kind", "loc", "name", "stmt", "uses", "value")

    def __init__(self, name, kind, loc, stmt=None):
        self.name, self.kind, self.loc, self.stmt = name, kind, loc, stmt
        self.value: Any = None
        self.uses = 0


def lower_module(loader: ModuleLoader, mod: A.Module, params: dict[str, Any], key: str,
                 stack: tuple[str, ...]) -> Graph | None:
    """Check and lower ``mod`` with the given Param values; ``None`` when it has errors."""
    lw = _ModuleLowering(loader, mod, params, key, stack)
    try:
        return lw.run()
    finally:
        loader.lowered(mod, params, lw.signals, lw.g)


class _ModuleLowering:
    def __init__(self, loader: ModuleLoader, mod: A.Module, params: dict[str, Any], key: str, stack):
        self.ld = loader
        self.mod = mod
        self.params = params
        self.stack = stack
        self.g = Graph(key)
        self.g.params = dict(params)
        self.ok = True
        self.signals: dict[str, _Signal] = {}
        self.const = ConstEval(self._const_lookup)

    # ---- diagnostics ----------------------------------------------------------
    def error(self, msg: str, loc: A.Loc | None) -> None:
        self.ok = False
        self.ld.report("error", msg, loc)

    def note(self, msg: str, loc: A.Loc | None) -> None:
        self.ld.report("note", msg, loc)

    # ---- names -------------------------------------------------------------------
    def define(self, name: str, kind: str, loc: A.Loc, stmt=None) -> _Signal | None:
        prev = self.signals.get(name)
        if prev is not None or name in self.params:
            self.error(f"'{name}' is already defined", loc)
            if prev is not None:
                self.note(f"previous definition of '{name}' is here", prev.loc)
            return None
        s = _Signal(name, kind, loc, stmt)
        self.signals[name] = s
        return s

    def _const_lookup(self, name: str, loc: A.Loc):
        if name in self.params:
            return self.params[name]
        if name in self.signals:
            raise ConstError(f"'{name}' is a signal, not a constant", loc)
        raise ConstError(f"undefined name '{name}'", loc)

    # ---- the module ----------------------------------------------------------------
    def run(self) -> Graph | None:
        m, g = self.mod, self.g
        timings = self.ld.timings
        t0 = time.thread_time()
        outs = self.declare_streams()
        self.declare_regs()
        labels: dict[str, A.Loc] = {}
        for st in m.stmts:
            if isinstance(st, (A.Equ, A.Hdl)):
                if st.label in labels:
                    self.error(f"label '{st.label}' is already used in module '{m.name}'", st.loc)
                    self.note("previous use is here", labels[st.label])
                else:
                    labels[st.label] = st.loc
            if isinstance(st, A.Equ):
                self.define(st.target, "equ", st.target_loc, st)
            elif isinstance(st, A.Hdl):
                for o in st.outs:
                    self.define(o.name, "hdl", o.loc, st)
            else:
                if len(st.targets) != len(st.sources):
                    self.error(f"DRCT has {len(st.targets)} target(s) but {len(st.sources)} "
                               "source(s)", st.loc)
                for name, loc in st.targets:
                    self.define(name, "drct", loc, st)
        for o in outs:
            s = self.signals.get(o.name)
            if s is None:
                self.error(f"output port '{o.name}' is never defined", o.loc)
            elif s.kind in ("in", "reg"):
                self.error(f"output port '{o.name}' must be defined by EQU, HDL or DRCT, not "
                           f"by {'an input port' if s.kind == 'in' else 'a Reg'}", o.loc)
        for o in outs:
            if o.name in self.signals:
                self.signals[o.name].uses += 1  # an output is a use
        self.out_types = {o.name: o.type for o in outs}
        order = self.ordered_statements()
        t1 = time.thread_time()
        for st in order:
            self.lower_statement(st)
        for o in outs:
            s = self.signals.get(o.name)
            if s is None or s.value is None or s.value is ERR:
                continue
            v = self.materialize(s.value, o.type, s.loc)
            if v is ERR:
                continue
            if v.type is not o.type:
                self.error(f"output port '{o.name}' is {o.type} but its value is {v.type}", s.loc)
                continue
            g.outputs.append(Output(o.port, v))
        for s in self.signals.values():
            if s.uses == 0 and s.kind in ("equ", "hdl", "reg", "drct"):
                self.ld.report("warning", f"signal '{s.name}' is never used", s.loc)
        t2 = time.thread_time()
        timings["check"] = timings.get("check", 0.0) + t1 - t0
        timings["lower"] = timings.get("lower", 0.0) + t2 - t1
        if not self.ok:
            return None
        g.touch()  # lowering set fields and node names in place: anything read before is stale
        g.verify()
        timings["verify"] = timings.get("verify", 0.0) + time.thread_time() - t2
        return g

    def declare_streams(self) -> list[_OutDecl]:
        m, g = self.mod, self.g
        seen: dict[str, A.StreamDecl] = {}
        for sd in m.streams:
            if sd.kind in seen:
                self.error(f"{sd.kind} is declared more than once", sd.loc)
                self.note(f"previous {sd.kind} is here", seen[sd.kind].loc)
            else:
                seen[sd.kind] = sd
        for kind in ("Main_In", "Main_Out"):
            if kind not in seen:
                self.error(f"module '{m.name}' has no {kind} declaration", m.loc)
        outs: list[_OutDecl] = []
        for kind, stream in (("Main_In", "main"), ("Brch_In", "brch")):
            sd = seen.get(kind)
            for i, p in enumerate(sd.ports if sd else []):
                t = self.port_type(p)
                if self.define(p.name, "in", p.loc) is None or t is None:
                    continue
                port = Port(p.name, t, stream, i)
                g.inputs.append(port)
                self.signals[p.name].value = g.add(
                    "input", t, name=p.name, loc=sloc(p.loc), stream=stream, port=p.name, index=i)
        out_names: dict[str, A.Loc] = {}
        for kind, stream in (("Main_Out", "main"), ("Brch_Out", "brch")):
            sd = seen.get(kind)
            for i, p in enumerate(sd.ports if sd else []):
                t = self.port_type(p)
                if p.name in out_names:
                    self.error(f"output port '{p.name}' is declared twice", p.loc)
                    continue
                out_names[p.name] = p.loc
                if t is not None:
                    outs.append(_OutDecl(Port(p.name, t, stream, i), p.loc))
        return outs

    def port_type(self, p: A.PortDecl) -> Type | None:
        if p.type is None:
            return Type.F32
        t = TYPES.get(p.type)
        if t is None:
            self.error(f"unknown type '{p.type}' (expected f32, i32 or u32)", p.type_loc)
        elif t is Type.BOOL:
            self.error("bool is not allowed on ports (ports are 32 bits wide)", p.type_loc)
            return None
        return t

    def declare_regs(self) -> None:
        g = self.g
        for r in self.mod.regs:
            t = Type.F32
            if r.type is not None:
                t = TYPES.get(r.type)
                if t is None or t is Type.BOOL:
                    self.error(f"invalid register type '{r.type}' (expected f32, i32 or u32)",
                               r.type_loc)
                    t = None
            sig = self.define(r.name, "reg", r.loc)
            bits = self.const_bits(r.value, t) if t is not None else None
            if sig is None or bits is None:
                if sig is not None:
                    sig.value = ERR
                continue
            g.regs.append(RegDecl(r.name, t, bits))
            node = g.add("reg", t, name=r.name, loc=sloc(r.loc), default=bits)
            node.attrs["name"] = r.name  # Graph.add's own `name` keyword is the node name
            sig.value = node

    def const_bits(self, e: A.Expr, t: Type) -> int | None:
        """Evaluate a constant expression as a bit pattern of type ``t``."""
        try:
            v = self.const.eval(e)
        except ConstError as ex:
            self.error(ex.message, ex.loc)
            return None
        loc = expr_loc(e)
        if t is Type.BOOL:
            if isinstance(v, bool) or (isinstance(v, int) and v in (0, 1)):
                return int(v)
            self.error("expected a bool constant", loc)
            return None
        if isinstance(v, bool):
            self.error(f"expected a {t} constant, got bool", loc)
            return None
        if t is Type.F32:
            return f32_bits(v) if isinstance(v, int) else float_to_bits(v)
        if isinstance(v, float):
            self.error(f"expected a {t} constant, got a real number", loc)
            return None
        if not -(1 << 31) <= v <= 0xFFFFFFFF:
            self.error(f"integer constant {v} does not fit in 32 bits", loc)
            return None
        return v & 0xFFFFFFFF

    # ---- statement order -------------------------------------------------------------
    def ordered_statements(self) -> list:
        """Statements in dependency order (textual order where free); cycles are errors."""
        items: list = []
        for st in self.mod.stmts:
            if isinstance(st, A.Drct):
                items.extend(_DrctPair(st, t, s) for t, s in zip(st.targets, st.sources))
            else:
                items.append(st)
        definer: dict[str, Any] = {}
        for it in items:
            for name in _defines(it):
                s = self.signals.get(name)
                if s is not None and s.stmt is not None and (
                        s.stmt is it or s.stmt is getattr(it, "stmt", None)):
                    definer[name] = it
        deps = {}
        for it in items:
            ds = []
            for name in _uses(it):
                d = definer.get(name)
                if d is not None and d not in ds:
                    ds.append(d)
            deps[it] = ds
        state: dict[Any, int] = {}
        order: list = []
        self.in_cycle: set = set()
        for root in items:
            if root in state:
                continue
            state[root] = 1
            path = [root]
            iters = [iter(deps[root])]
            while iters:
                for d in iters[-1]:
                    st = state.get(d, 0)
                    if st == 0:
                        state[d] = 1
                        path.append(d)
                        iters.append(iter(deps[d]))
                        break
                    if st == 1 and d not in self.in_cycle:
                        cyc = path[path.index(d):]
                        self.in_cycle.update(cyc)
                        names = [_defines(c)[0] for c in cyc] + [_defines(d)[0]]
                        self.error("signals form a cycle: " + " -> ".join(names), _item_loc(d))
                else:
                    iters.pop()
                    node = path.pop()
                    state[node] = 2
                    order.append(node)
        return order

    # ---- statements ------------------------------------------------------------------
    def lower_statement(self, st) -> None:
        if st in self.in_cycle:
            for name in _defines(st):
                s = self.signals.get(name)
                if s is not None and s.stmt is (st.stmt if isinstance(st, _DrctPair) else st):
                    s.value = ERR
            return
        if isinstance(st, A.Equ):
            s = self.signals.get(st.target)
            v = self.expr(st.value)
            if s is None or s.stmt is not st:
                return
            want = self.out_types.get(st.target)
            if isinstance(v, IntC):
                v = self.materialize(v, want, expr_loc(st.value))
            if isinstance(v, Node) and v.name is None:
                v.name = st.target
            s.value = v
        elif isinstance(st, _DrctPair):
            s = self.signals.get(st.target[0])
            v = self.use(st.source[0], st.source[1])
            if s is not None and s.stmt is st.stmt:
                s.value = v
        else:
            self.lower_hdl(st)

    def use(self, name: str, loc: A.Loc):
        s = self.signals.get(name)
        if s is not None:
            s.uses += 1
            return s.value if s.value is not None else ERR
        if name in self.params:
            v = self.params[name]
            if isinstance(v, bool):
                return self.g.add("const", Type.BOOL, loc=sloc(loc), bits=int(v))
            if isinstance(v, int):
                return IntC(v)
            return self.g.add("const", Type.F32, loc=sloc(loc), bits=float_to_bits(v))
        self.error(f"undefined signal '{name}'", loc)
        return ERR

    def lower_hdl(self, st: A.Hdl) -> None:
        lower_hdl(self, st)

    # ---- expressions -------------------------------------------------------------------
    def expr(self, e: A.Expr):
        return postorder(e, self._kids, self._apply)

    @staticmethod
    def _kids(e):
        t = type(e)
        if t is A.Call and e.name == "shift":
            return tuple(e.args[:1])
        if t is A.Unary and e.op == "-" and type(e.operand) is A.RealLit:
            return ()
        return A.children(e)

    def const_node(self, t: Type, bits: int, loc) -> Node:
        return self.g.add("const", t, loc=sloc(loc), bits=bits)

    def materialize(self, v, t: Type | None, loc):
        """Give an untyped integer constant a type (``None``: i32, or u32 if it needs to)."""
        if not isinstance(v, IntC):
            return v
        x = v.value
        if t is None:
            t = Type.I32 if -(1 << 31) <= x < (1 << 31) else Type.U32
        if t is Type.BOOL:
            self.error("an integer constant cannot be used as bool", loc)
            return ERR
        if t is Type.F32:
            bits = f32_bits(x)
            if bits & 0x7FFFFFFF == 0x7F800000:
                self.error(f"integer constant {x} is out of range for f32", loc)
                return ERR
            return self.const_node(t, bits, loc)
        if not -(1 << 31) <= x <= 0xFFFFFFFF:
            self.error(f"integer constant {x} does not fit in 32 bits", loc)
            return ERR
        return self.const_node(t, x & 0xFFFFFFFF, loc)

    def _apply(self, e, args):
        t = type(e)
        if t is A.NameRef:
            return self.use(e.name, e.loc)
        if t is A.IntLit:
            if e.value is None:
                self.error("integer literal is too large", e.loc)
                return ERR
            return IntC(e.value)
        if t is A.RealLit:
            return self.real(e.text, e.loc, False)
        if t is A.Unary:
            if type(e.operand) is A.RealLit:
                return self.real(e.operand.text, e.operand.loc, True)
            return self.unary(e, args[0])
        if t is A.Binary:
            return self.binary(e.op, args[0], args[1], e.loc)
        if t is A.Cond:
            return self.select(args[0], args[1], args[2], e.loc, "'?:'")
        return lower_call(self, e, args)

    def real(self, text: str, loc, negate: bool):
        try:
            bits = real_literal(text)
        except ValueError as ex:
            self.error(f"real literal {text} is {ex}", loc)
            return ERR
        return self.const_node(Type.F32, bits ^ (0x80000000 if negate else 0), loc)

    def unary(self, e: A.Unary, v):
        if v is ERR:
            return ERR
        op, loc = e.op, e.loc
        if isinstance(v, IntC):
            if op == "!":
                self.error("operand of '!' must be bool, got an integer constant", loc)
                return ERR
            return self.intc(-v.value if op == "-" else ~v.value, loc)
        t = v.type
        if op == "-":
            if t is Type.BOOL:
                self.error("operand of unary '-' cannot be bool", loc)
                return ERR
            return self.g.add("fneg" if t is Type.F32 else "neg", t, (v,), loc=sloc(loc))
        if op == "!":
            if t is not Type.BOOL:
                self.error(f"operand of '!' must be bool, got {t}", loc)
                return ERR
            return self.g.add("not", t, (v,), loc=sloc(loc))
        if t is Type.F32:
            self.error("operand of '~' must be an integer or bool, got f32", loc)
            return ERR
        return self.g.add("not", t, (v,), loc=sloc(loc))

    def intc(self, x: int, loc):
        if not -INT_LIMIT < x < INT_LIMIT:
            self.error("integer constant is too large", loc)
            return ERR
        return IntC(x)

    def unify(self, a, b, loc, what: str):
        """Bring two operands to one type; untyped constants take the other's type."""
        if a is ERR or b is ERR:
            return ERR, ERR
        if isinstance(a, IntC) and isinstance(b, Node):
            a = self.materialize(a, b.type, loc)
        elif isinstance(b, IntC) and isinstance(a, Node):
            b = self.materialize(b, a.type, loc)
        elif isinstance(a, IntC) and isinstance(b, IntC):
            a = self.materialize(a, None, loc)
            b = self.materialize(b, a.type if a is not ERR else None, loc)
        if a is ERR or b is ERR:
            return ERR, ERR
        if a.type is not b.type:
            self.error(f"operands of {what} have different types: {a.type} and {b.type}"
                       + (" (convert with f32(), i32() or u32())"
                          if Type.F32 in (a.type, b.type) else ""), loc)
            return ERR, ERR
        return a, b

    def binary(self, op: str, a, b, loc):
        if a is ERR or b is ERR:
            return ERR
        if isinstance(a, IntC) and isinstance(b, IntC) and op not in ("&&", "||"):
            try:
                r = self.const._binary(A.Binary(op, None, None, loc), a.value, b.value)
            except ConstError as ex:
                self.error(ex.message, ex.loc)
                return ERR
            if isinstance(r, bool):
                return self.const_node(Type.BOOL, int(r), loc)
            return IntC(r)
        what = f"'{op}'"
        if op in ("<<", ">>"):
            if isinstance(a, IntC):
                a = self.materialize(a, b.type, loc)
            if isinstance(b, IntC):
                if b.value < 0:
                    self.error("negative shift amount", loc)
                    return ERR
                b = self.materialize(b, a.type if a is not ERR else None, loc)
            if a is ERR or b is ERR:
                return ERR
            if a.type not in _INTS or b.type not in _INTS:
                self.error(f"operands of {what} must be integers, got {a.type} and {b.type}", loc)
                return ERR
            name = "shl" if op == "<<" else ("ashr" if a.type is Type.I32 else "lshr")
            return self.g.add(name, a.type, (a, b), loc=sloc(loc))
        a, b = self.unify(a, b, loc, what)
        if a is ERR:
            return ERR
        t = a.type
        if op in ("&&", "||"):
            if t is not Type.BOOL:
                self.error(f"operands of {what} must be bool, got {t}", loc)
                return ERR
            return self.g.add("and" if op == "&&" else "or", t, (a, b), loc=sloc(loc))
        if op in _F_CMP:
            if t is Type.F32:
                return self.g.add(_F_CMP[op], Type.BOOL, (a, b), loc=sloc(loc))
            if t is Type.BOOL:
                if op not in ("==", "!="):
                    self.error(f"operator {what} is not defined on bool", loc)
                    return ERR
                x = self.g.add("xor", t, (a, b), loc=sloc(loc))
                return x if op == "!=" else self.g.add("not", t, (x,), loc=sloc(loc))
            table = _S_CMP if t is Type.I32 else _U_CMP
            return self.g.add(table[op], Type.BOOL, (a, b), loc=sloc(loc))
        if op in ("&", "|", "^"):
            if t is Type.F32:
                self.error(f"operator {what} is not defined on f32 (use bits() first)", loc)
                return ERR
            return self.g.add(_I_BIN[op], t, (a, b), loc=sloc(loc))
        if t is Type.BOOL:
            self.error(f"operator {what} is not defined on bool", loc)
            return ERR
        if t is Type.F32:
            if op == "%":
                self.error("operator '%' is not defined on f32", loc)
                return ERR
            return self.g.add(_F_BIN[op], t, (a, b), loc=sloc(loc))
        if op == "/":
            name = "sdiv" if t is Type.I32 else "udiv"
        elif op == "%":
            name = "srem" if t is Type.I32 else "urem"
        else:
            name = _I_BIN[op]
        return self.g.add(name, t, (a, b), loc=sloc(loc))

    def select(self, c, a, b, loc, what: str):
        if c is ERR or a is ERR or b is ERR:
            return ERR
        if isinstance(c, IntC) or c.type is not Type.BOOL:
            self.error(f"the condition of {what} must be bool, got "
                       f"{'an integer constant' if isinstance(c, IntC) else c.type}", loc)
            return ERR
        a, b = self.unify(a, b, loc, f"the branches of {what}")
        if a is ERR:
            return ERR
        return self.g.add("select", a.type, (c, a, b), loc=sloc(loc))


class _OutDecl:
    """An output port with the position of its declaration."""

    __slots__ = ("loc", "port")

    def __init__(self, port: Port, loc: A.Loc):
        self.port, self.loc = port, loc

    @property
    def name(self) -> str:
        return self.port.name

    @property
    def type(self) -> Type:
        return self.port.type


class _DrctPair:
    """One `a = c` pair of a DRCT statement, ordered like any other statement."""

    __slots__ = ("source", "stmt", "target")

    def __init__(self, stmt: A.Drct, target, source):
        self.stmt, self.target, self.source = stmt, target, source


def _defines(it) -> list[str]:
    if isinstance(it, A.Equ):
        return [it.target]
    if isinstance(it, A.Hdl):
        return [o.name for o in it.outs]
    return [it.target[0]]


def _item_loc(it) -> A.Loc:
    if isinstance(it, A.Equ):
        return it.target_loc
    if isinstance(it, A.Hdl):
        return it.outs[0].loc
    return it.target[1]


def _names(e: A.Expr, out: list[str]) -> None:
    stack = [e]
    while stack:
        x = stack.pop()
        if type(x) is A.NameRef:
            out.append(x.name)
        elif type(x) is A.Call and x.name == "shift":
            stack.extend(x.args[:1])
        else:
            stack.extend(A.children(x))


def _uses(it) -> list[str]:
    out: list[str] = []
    if isinstance(it, A.Equ):
        _names(it.value, out)
    elif isinstance(it, A.Hdl):
        for a in it.args:
            _names(a, out)
    else:
        out.append(it.source[0])
    return out
