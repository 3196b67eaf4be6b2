"""IR verifier: run between passes so a broken pass is caught where it happens."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ._ops import OPS, IRError, Type

if TYPE_CHECKING:
    from ._graph import Graph, Node

__all__ = ["verify_graph"]

_INT = (Type.I32, Type.U32)
_F_BIN = {"fadd", "fsub", "fmul", "fdiv", "fmin", "fmax"}
_F_CMP = {"flt", "fle", "fgt", "fge", "feq", "fne"}
_I_BIN = {"add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "shl", "lshr", "ashr",
          "smin", "smax", "umin", "umax"}
_I_CMP = {"ieq", "ine", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}


def _need(cond: bool, n: Node, msg: str) -> None:
    if not cond:
        raise IRError(f"{n!r} ({n.op}): {msg}")


def _check_types(n: Node) -> None:
    ts = [a.type for a in n.args]
    op = n.op
    if op in _F_BIN:
        _need(ts == [Type.F32] * 2 and n.type is Type.F32, n, "needs f32 operands and result")
    elif op in ("fsqrt", "fneg", "fabs"):
        _need(ts == [Type.F32] and n.type is Type.F32, n, "needs f32")
    elif op in _F_CMP:
        _need(ts == [Type.F32] * 2 and n.type is Type.BOOL, n, "f32 compare gives bool")
    elif op in _I_BIN:
        _need(n.type in _INT and ts[0] is n.type and ts[1] in _INT, n, "needs integer operands")
        if op not in ("shl", "lshr", "ashr"):
            _need(ts[1] is n.type, n, "operand types differ")
    elif op in ("neg", "iabs"):
        _need(n.type in _INT and ts == [n.type], n, "needs an integer operand")
    elif op in _I_CMP:
        _need(ts[0] in _INT and ts[0] is ts[1] and n.type is Type.BOOL, n, "integer compare")
    elif op in ("and", "or", "xor"):
        _need(ts[0] is ts[1] is n.type and n.type is not Type.F32, n, "bitwise on int/bool")
    elif op == "not":
        _need(ts == [n.type] and n.type is not Type.F32, n, "bitwise on int/bool")
    elif op == "select":
        _need(ts[0] is Type.BOOL and ts[1] is ts[2] is n.type, n, "select(bool, T, T) -> T")
    elif op == "sitofp":
        _need(ts == [Type.I32] and n.type is Type.F32, n, "i32 -> f32")
    elif op == "uitofp":
        _need(ts == [Type.U32] and n.type is Type.F32, n, "u32 -> f32")
    elif op == "fptosi":
        _need(ts == [Type.F32] and n.type is Type.I32, n, "f32 -> i32")
    elif op == "fptoui":
        _need(ts == [Type.F32] and n.type is Type.U32, n, "f32 -> u32")
    elif op == "bitcast":
        _need(ts[0] is not Type.BOOL and n.type is not Type.BOOL, n, "32-bit types only")
    elif op == "booltoint":
        _need(ts == [Type.BOOL] and n.type in _INT, n, "bool -> int")
    elif op == "shift":
        _need(ts == [n.type], n, "shift keeps the type")
        _need(isinstance(n.attrs.get("offset"), int), n, "offset must be a constant int")
        _need(isinstance(n.attrs.get("fill"), int), n, "fill must be a bit pattern")
    elif op == "const":
        _need(isinstance(n.attrs.get("bits"), int), n, "const needs bits")
        limit = 1 if n.type is Type.BOOL else 0xFFFFFFFF
        _need(0 <= n.attrs["bits"] <= limit, n, "bits out of range")
    elif op == "proj":
        _need(n.args[0].op in ("inst", "extern"), n, "proj reads an instance")


def verify_graph(g: Graph) -> None:
    seen: set[int] = set()
    ids: set[int] = set()
    for n in g.nodes:
        if n.op not in OPS:
            raise IRError(f"{n!r}: unknown op {n.op!r}")
        info = OPS[n.op]
        _need(n.id not in ids, n, "duplicate id")
        ids.add(n.id)
        if info.arity is not None and len(n.args) != info.arity:
            _need(False, n, f"expects {info.arity} operands")
        for a in n.args:
            if id(a) not in seen:  # message built only on failure: this loop is hot
                _need(False, n, f"operand {a!r} is not defined before use")
        _check_types(n)
        seen.add(id(n))
    ports = {p.name for p in g.inputs}
    got = [n.attrs["port"] for n in g.nodes if n.op == "input"]
    if sorted(got) != sorted(ports):
        raise IRError(f"input nodes {sorted(got)} do not match ports {sorted(ports)}")
    for o in g.outputs:
        if id(o.node) not in seen:
            raise IRError(f"output {o.port.name} reads a node outside the graph")
        if o.node.type is not o.port.type:
            raise IRError(f"output {o.port.name}: {o.node.type} drives a {o.port.type} port")
