"""HDL statements: instances of SPD modules (`inst`) and of external Verilog (`extern`)."""
from __future__ import annotations

import os

from ..ir import Node, Type
from . import _ast as A
from ._consts import ConstError
from ._context import Lowering
from ._values import ERR, TYPES, IntC, expr_loc, sloc

__all__ = ["lower_hdl"]


def _fail(lw: Lowering, st: A.Hdl) -> None:
    lw.ok = False  # reported already (here or inside the callee); the module is not usable
    for o in st.outs:
        s = lw.signals.get(o.name)
        if s is not None and s.stmt is st:
            s.value = ERR


def lower_hdl(lw: Lowering, st: A.Hdl) -> None:
    args = [lw.expr(a) for a in st.args]
    latency: int | None = None
    if st.latency != "auto":
        if st.latency.isdigit():
            latency = int(st.latency) if len(st.latency) < 10 else -1
            if latency < 0:
                lw.error("latency is too large", st.latency_loc)
        else:
            lw.error(f"latency must be 'auto' or an integer, not '{st.latency}'", st.latency_loc)
    file_param: A.HdlParam | None = None
    values: dict[str, object] = {}
    seen: set[str] = set()
    ok = True
    for p in st.params:
        if p.name in seen:
            lw.error(f"parameter '{p.name}' is given twice", p.loc)
            ok = False
            continue
        seen.add(p.name)
        if p.name == "file":
            if p.string is None:
                lw.error('file= needs a string, e.g. file="my_module.v"', p.loc)
                ok = False
            file_param = p
            continue
        if p.value is None:
            lw.error(f"parameter '{p.name}' needs a constant expression, not a string", p.loc)
            ok = False
            continue
        try:
            values[p.name] = lw.const.eval(p.value)
        except ConstError as ex:
            lw.error(ex.message, ex.loc)
            ok = False
    if file_param is not None:
        _extern(lw, st, args, latency, file_param, values, ok)
    elif lw.ld.has_module(st.callee):
        _instance(lw, st, args, latency, values, ok)
    else:
        lw.error(f"unknown module '{st.callee}' (for external Verilog give "
                 f"[file=\"{st.callee}.v\"])", st.callee_loc)
        _fail(lw, st)


def _check_outs(lw, st: A.Hdl, types: list[Type]) -> bool:
    ok = True
    for o, t in zip(st.outs, types):
        if o.type is not None:
            want = TYPES.get(o.type)
            if want is None:
                lw.error(f"unknown type '{o.type}' (expected f32, i32 or u32)", o.type_loc)
                ok = False
            elif want is not t:
                lw.error(f"output '{o.name}' is declared {o.type} but '{st.callee}' gives {t}",
                         o.type_loc)
                ok = False
    return ok


def _extern(lw, st: A.Hdl, args, latency, fp: A.HdlParam, values, ok: bool) -> None:
    if st.latency == "auto":
        lw.error(f"external Verilog module '{st.callee}' needs an integer latency, not auto",
                 st.latency_loc)
        ok = False
    path = None
    if fp.string is not None:
        base = os.path.dirname(os.path.abspath(st.loc.file))
        path = os.path.normpath(os.path.join(base, fp.string))
        if not os.path.isfile(path):
            lw.error(f"Verilog file '{fp.string}' not found (looked for {path})", fp.loc)
            ok = False
    out_types: list[Type] = []
    for o in st.outs:
        t = Type.F32 if o.type is None else TYPES.get(o.type)
        if t is None:
            lw.error(f"unknown type '{o.type}' (expected f32, i32 or u32)", o.type_loc)
            ok = False
        elif t is Type.BOOL:
            lw.error("bool is not allowed on external module ports (32 bits wide)", o.type_loc)
            ok = False
        out_types.append(t or Type.F32)
    ins: list[Node] = []
    for a, e in zip(args, st.args):
        a = lw.materialize(a, None, expr_loc(e))
        if a is ERR:
            ok = False
            continue
        if a.type is Type.BOOL:
            lw.error("bool cannot be passed to an external module (ports are 32 bits wide)",
                     expr_loc(e))
            ok = False
        ins.append(a)
    if not ok:
        _fail(lw, st)
        return
    attrs = {"module": st.callee, "file": path, "latency": latency, "label": st.label,
             "out_types": tuple(out_types)}
    if values:
        attrs["params"] = dict(values)
    node = lw.g.add("extern", out_types[0], tuple(ins), loc=sloc(st.callee_loc), **attrs)
    _project(lw, st, node, out_types)


def _project(lw, st: A.Hdl, node: Node, types: list[Type]) -> None:
    for i, (o, t) in enumerate(zip(st.outs, types)):
        s = lw.signals.get(o.name)
        p = lw.g.add("proj", t, (node,), name=o.name, loc=sloc(o.loc), index=i)
        if s is not None and s.stmt is st:
            s.value = p


def _instance(lw, st: A.Hdl, args, latency, values, ok: bool) -> None:
    if not ok:
        _fail(lw, st)
        return
    key, callee = lw.ld.instantiate(st.callee, values, st.callee_loc, lw.stack, st.params)
    if callee is None:
        _fail(lw, st)
        return
    ins = callee.inputs
    outs = [o.port for o in callee.outputs]
    ok = True
    if len(args) != len(ins):
        lw.error(f"module '{st.callee}' has {len(ins)} input port(s), the HDL statement "
                 f"passes {len(args)}", st.callee_loc)
        ok = False
    if len(st.outs) != len(outs):
        lw.error(f"module '{st.callee}' has {len(outs)} output port(s), the HDL statement "
                 f"lists {len(st.outs)}", st.outs[0].loc)
        ok = False
    nodes: list[Node] = []
    for i, (a, e, port) in enumerate(zip(args, st.args, ins)):
        loc = expr_loc(e)
        a = lw.materialize(a, port.type, loc) if isinstance(a, IntC) else a
        if a is ERR:
            ok = False
            continue
        if a.type is not port.type:
            lw.error(f"argument {i + 1} of '{st.callee}' is {a.type}, but its port "
                     f"'{port.name}' is {port.type}", loc)
            ok = False
        nodes.append(a)
    if ok and not _check_outs(lw, st, [p.type for p in outs]):
        ok = False
    if not ok:
        _fail(lw, st)
        return
    attrs = {"module": key, "label": st.label, "params": dict(callee.params)}
    if latency is not None:
        attrs["latency"] = latency  # checked against the schedule by the back end
    node = lw.g.add("inst", outs[0].type, tuple(nodes), loc=sloc(st.callee_loc), **attrs)
    _project(lw, st, node, [p.type for p in outs])
