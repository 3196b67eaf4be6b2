"""Pass inline-modules: replace every SPD ``inst`` node by a copy of its module's graph.

Before: ``graph`` is a module of ``program``; it may hold ``inst`` nodes naming keys of
``program.modules`` (read through ``proj`` nodes) and ``extern`` nodes.
After: no ``inst`` node remains; each was replaced by its module's nodes (inlined
recursively), named ``<label>_<name>``; ``proj`` nodes of an inlined instance are
gone; ``extern`` nodes and their ``proj`` nodes are untouched. A ``Reg`` of an inlined
module becomes a register of ``graph`` named ``<label>_<name>`` with the same default.
Node ids stay unique but are no longer consecutive.
"""
from __future__ import annotations

from spgen.ir import Graph, IRError, Node, Program, RegDecl

from ._rewrite import copy_graph, replace_uses

__all__ = ["NAME", "run"]

NAME = "inline-modules"


def run(graph: Graph, program: Program) -> Graph:
    """Inline in place; ``graph`` must be a private copy (the program's graphs are not modified)."""
    _inline(graph, program, stack=(graph.name,))
    graph.touch()
    return graph


def _inline(graph: Graph, program: Program, stack: tuple[str, ...]) -> None:
    if not any(n.op == "inst" for n in graph.nodes):
        return
    old = graph.nodes
    graph.nodes = []
    results: dict[Node, list[Node]] = {}
    mapping: dict[Node, Node] = {}
    for n in old:
        n.args = tuple(mapping.get(a, a) for a in n.args)
        if n.op == "inst":
            results[n] = _expand(graph, program, n, stack)
        elif n.op == "proj" and n.args[0] in results:
            mapping[n] = results[n.args[0]][n.attrs["index"]]
        else:
            graph.nodes.append(n)
    replace_uses(graph, mapping)


def _expand(graph: Graph, program: Program, inst: Node, stack: tuple[str, ...]) -> list[Node]:
    key = inst.attrs["module"]
    if key not in program.modules:
        raise IRError(f"{inst!r}: instance of unknown module {key!r}")
    if key in stack:
        raise IRError(f"{inst!r}: recursive instance of {key!r}")
    callee = program.modules[key]
    if len(inst.args) != len(callee.inputs):
        raise IRError(f"{inst!r}: {len(inst.args)} operands for {len(callee.inputs)} ports")
    label = inst.attrs.get("label", key)
    port_arg = {p.name: a for p, a in zip(callee.inputs, inst.args)}
    new: dict[Node, Node] = {}
    # The callee is inlined into a scratch copy first so its own instances flatten too.
    body = copy_graph(callee)
    _inline(body, program, stack + (key,))
    for n in body.nodes:
        if n.op == "input":
            new[n] = port_arg[n.attrs["port"]]
            continue
        attrs = dict(n.attrs)
        if n.op == "extern":
            attrs["label"] = f"{label}_{attrs.get('label', attrs['module'])}"
        if n.op == "reg":
            # The reg's name attr, or its node name (add() cannot take a "name" attr).
            reg_name = n.attrs.get("name", n.name)
            decl = next(r for r in body.regs if r.name == reg_name)
            attrs["name"] = f"{label}_{decl.name}"
            graph.regs.append(RegDecl(attrs["name"], decl.type, decl.default))
        m = graph.add(n.op, n.type, tuple(new[a] for a in n.args), loc=n.loc,
                      name=f"{label}_{n.name}" if n.name else None)
        m.attrs = attrs  # set afterwards: a reg's "name" attr clashes with add()'s keyword
        new[n] = m
    return [new[o.node] for o in body.outputs]
