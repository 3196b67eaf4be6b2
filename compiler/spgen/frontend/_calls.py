"""Built-in functions of SPD expressions (SPD.md "Expressions") lowered to IR ops."""
from __future__ import annotations

from ..ir import Type
from . import _ast as A
from ._consts import ConstError
from ._context import Lowering
from ._values import ARITY, ERR, IntC, expr_loc, sloc

__all__ = ["lower_call"]

_MINMAX = {("min", Type.F32): "fmin", ("max", Type.F32): "fmax", ("min", Type.I32): "smin",
           ("max", Type.I32): "smax", ("min", Type.U32): "umin", ("max", Type.U32): "umax"}


def lower_call(lw: Lowering, e: A.Call, args: list):
    name, loc = e.name, e.loc
    if name not in ARITY:
        if lw.ld.has_module(name):
            lw.error(f"'{name}' is a module: instantiate it with an HDL statement", loc)
        else:
            lw.error(f"unknown function '{name}'", loc)
        return ERR
    lo, hi = ARITY[name]
    n = len(e.args)
    if not lo <= n <= hi:
        want = str(lo) if lo == hi else f"{lo} or {hi}"
        lw.error(f"{name}() takes {want} argument{'s' if hi > 1 else ''}, got {n}", loc)
        return ERR
    if any(a is ERR for a in args):
        return ERR
    g = lw.g
    sl = sloc(loc)
    if name == "shift":
        return _shift(lw, e, args[0])
    if name == "sel":
        return lw.select(args[0], args[1], args[2], loc, "sel()")
    if name in ("min", "max"):
        a, b = args
        if isinstance(a, IntC) and isinstance(b, IntC):
            return IntC(min(a.value, b.value) if name == "min" else max(a.value, b.value))
        a, b = lw.unify(a, b, loc, f"{name}()")
        if a is ERR:
            return ERR
        op = _MINMAX.get((name, a.type))
        if op is None:
            lw.error(f"{name}() is not defined on {a.type}", loc)
            return ERR
        return g.add(op, a.type, (a, b), loc=sl)
    x = args[0]
    if name == "abs":
        if isinstance(x, IntC):
            return IntC(abs(x.value))
        if x.type is Type.F32:
            return g.add("fabs", x.type, (x,), loc=sl)
        if x.type is Type.I32:
            return g.add("iabs", x.type, (x,), loc=sl)
        if x.type is Type.U32:
            return x
        lw.error("abs() is not defined on bool", loc)
        return ERR
    if name == "sqrt":
        x = lw.materialize(x, Type.F32, loc)
        if x is ERR:
            return ERR
        if x.type is not Type.F32:
            lw.error(f"sqrt() needs an f32 argument, got {x.type} (convert with f32())", loc)
            return ERR
        return g.add("fsqrt", Type.F32, (x,), loc=sl)
    if name == "f32":
        if isinstance(x, IntC):
            return lw.materialize(x, Type.F32, loc)
        if x.type is Type.F32:
            return x
        if x.type is Type.BOOL:
            lw.error("f32() needs an integer or f32 argument, got bool", loc)
            return ERR
        return g.add("sitofp" if x.type is Type.I32 else "uitofp", Type.F32, (x,), loc=sl)
    if name in ("i32", "u32"):
        t = Type.I32 if name == "i32" else Type.U32
        if isinstance(x, IntC):
            return lw.materialize(x, t, loc)
        if x.type is t:
            return x
        if x.type is Type.F32:
            return g.add("fptosi" if t is Type.I32 else "fptoui", t, (x,), loc=sl)
        if x.type is Type.BOOL:
            return g.add("booltoint", t, (x,), loc=sl)
        return g.add("bitcast", t, (x,), loc=sl)
    if name == "bits":
        if isinstance(x, IntC) or x.type is not Type.F32:
            lw.error(f"bits() needs an f32 argument, got "
                     f"{'an integer constant' if isinstance(x, IntC) else x.type}", loc)
            return ERR
        return g.add("bitcast", Type.U32, (x,), loc=sl)
    # fbits
    if isinstance(x, IntC):
        x = lw.materialize(x, Type.U32, loc)
        if x is ERR:
            return ERR
    if x.type not in (Type.I32, Type.U32):
        lw.error(f"fbits() needs an i32 or u32 argument, got {x.type}", loc)
        return ERR
    return g.add("bitcast", Type.F32, (x,), loc=sl)


def _shift(lw: Lowering, e: A.Call, x):
    loc = e.loc
    x = lw.materialize(x, None, loc)
    try:
        d = lw.const.eval(e.args[1])
    except ConstError as ex:
        lw.error(f"shift offset must be a constant integer expression: {ex.message}", ex.loc)
        return ERR
    if isinstance(d, bool) or not isinstance(d, int):
        lw.error("shift offset must be a constant integer expression", expr_loc(e.args[1]))
        return ERR
    if not -(1 << 31) <= d < (1 << 31):
        lw.error(f"shift offset {d} is out of range", expr_loc(e.args[1]))
        return ERR
    if x is ERR:
        return ERR
    fill = 0
    if len(e.args) == 3:
        fill = lw.const_bits(e.args[2], x.type)
        if fill is None:
            return ERR
    return lw.g.add("shift", x.type, (x,), loc=sloc(loc), offset=d, fill=fill)
