"""Scheduling: a tick for every node, chosen to minimise delay-register bits (an LP retiming).

The core advances under one clock enable, one stream element per enabled cycle
("tick"), and drains after ``s_last``. A node's wire at tick T therefore carries
its value for element ``T - tau[node]``: pipeline latency and stream offsets
(``shift``) live on one axis, so one schedule balances both. An edge u -> v needs
u delayed by ``delta = tau[v] - tau[u] - w(u, v)`` ticks (w = operator latency,
``1 - offset`` for a shift, 0 for the output alignment); every delay line is shared
by all consumers of its source, so it costs ``width(u) * max(delta)`` bits.
Minimising that sum under ``delta >= 0`` is a difference-constraint LP whose
constraint matrix is totally unimodular, so the simplex vertex is integral.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from spgen._diagnostics import SpgenError
from spgen.ir import Graph, Node, Type

from ._oplib import op_latency

__all__ = ["STATIC_OPS", "Schedule", "latency_of", "schedule"]

STATIC_OPS = {"const", "reg"}
SINK = -1  # pseudo node id of the output alignment point


def latency_of(node: Node, hard_fp: bool = False) -> int:
    """Cycles from operands to result, from the operator library's one table (``hard_fp``:
    f32 add, sub and mul in Arria 10 FP DSP blocks)."""
    if node.op == "extern":
        return int(node.attrs["latency"])
    if node.op in ("proj", "input", "reg", "const"):
        return 0
    if node.op == "shift":
        return 1  # the fill multiplexer is registered
    return op_latency(node.op, hard_fp)


@dataclass
class Schedule:
    """The ticks and the delay taps every consumer needs.

    ``tau[id]`` is the node's tick (absent for static nodes); ``taps[id]`` the sorted
    set of delays (ticks) consumers read from the node's delay line; ``sink`` the
    tick at which outputs are aligned (the drain length after ``s_last``).
    """

    tau: dict[int, int]
    sink: int
    taps: dict[int, list[int]] = field(default_factory=dict)
    static: set[int] = field(default_factory=set)
    widths: dict[int, int] = field(default_factory=dict)
    hard_fp: bool = False   # f32 add, sub and mul scheduled at the FP DSP block's latency

    def latency(self, node: Node) -> int:
        return latency_of(node, self.hard_fp)

    def delay_bits(self) -> int:
        return sum(self.widths[u] * max(t) for u, t in self.taps.items() if t)


def _width(n: Node) -> int:
    if n.op == "extern":
        return 0
    return n.type.width if isinstance(n.type, Type) else 32


def _static_nodes(graph: Graph) -> set[int]:
    """Nodes that do not depend on the stream: constants, registers and ops on them only.

    They run with the clock enable tied high, so a register write settles within a
    few cycles whatever the stream does, and need no delay lines.
    """
    out: set[int] = set()
    for n in graph.nodes:
        if n.op in STATIC_OPS or n.op not in ("shift", "input", "extern", "proj", "inst") and n.args \
                and all(a.id in out for a in n.args):
            out.add(n.id)
    return out


def _edges(graph: Graph, static: set[int], hard_fp: bool = False
           ) -> tuple[list[tuple[int, int, int]], list[tuple[int, int]], dict[int, int]]:
    """Timing edges (u, v, w), equalities (proj = extern) and lower bounds tau[v] >= b."""
    edges: list[tuple[int, int, int]] = []
    equal: list[tuple[int, int]] = []
    lower: dict[int, int] = {}
    for n in graph.nodes:
        if n.id in static or n.op == "input":
            continue
        if n.op == "inst":
            raise SpgenError(f"module instance {n.attrs.get('label', n.id)} was not inlined")
        if n.op == "proj":
            equal.append((n.args[0].id, n.id))
            continue
        w = 1 - int(n.attrs["offset"]) if n.op == "shift" else latency_of(n, hard_fp)
        # A shift's fill register is written one tick before its value is read: tick
        # >= 1 keeps that write inside the stream (a register written before the first
        # tick would hold reset garbage instead of the fill).
        lower[n.id] = max(1 if n.op == "shift" else 0, w)
        for a in n.args:
            if a.id not in static:
                edges.append((a.id, n.id, w))
    for o in graph.outputs:
        if o.node.id not in static:
            edges.append((o.node.id, SINK, 0))
    return edges, equal, lower


def _asap(graph: Graph, edges, equal, lower, static) -> dict[int, int]:
    tau: dict[int, int] = {}
    preds: dict[int, list[tuple[int, int]]] = {}
    for u, v, w in edges:
        preds.setdefault(v, []).append((u, w))
    eq = {p: e for e, p in equal}
    for n in graph.nodes:
        if n.id in static:
            continue
        if n.op == "input":
            tau[n.id] = 0
        elif n.id in eq:
            tau[n.id] = tau[eq[n.id]]
        else:
            tau[n.id] = max([lower.get(n.id, 0)] + [tau[u] + w for u, w in preds.get(n.id, [])])
    tau[SINK] = max([0] + [tau[u] for u, _ in preds.get(SINK, [])])
    return tau


def _taps(edges, tau) -> dict[int, list[int]]:
    taps: dict[int, set[int]] = {}
    for u, v, w in edges:
        d = tau[v] - tau[u] - w
        if d < 0:
            raise AssertionError(f"negative delay on edge {u}->{v}")
        taps.setdefault(u, set()).add(d)
    return {u: sorted(t) for u, t in taps.items()}


def _min_bits(graph: Graph, edges, equal, lower, static, widths) -> dict[int, int] | None:
    """Solve the retiming LP; None if scipy is missing or the solver fails."""
    try:
        from scipy.optimize import linprog
        from scipy.sparse import coo_matrix
    except ImportError:
        return None
    timed = [n.id for n in graph.nodes if n.id not in static]
    col = {nid: i for i, nid in enumerate(timed + [SINK])}
    sources = sorted({u for u, _, _ in edges if widths.get(u, 0) > 0})
    mcol = {u: len(col) + i for i, u in enumerate(sources)}
    nvar = len(col) + len(sources)
    rows, cols, vals, rhs = [], [], [], []

    def le(terms: list[tuple[int, float]], b: float) -> None:  # sum(c * x) <= b
        r = len(rhs)
        for c, v in terms:
            rows.append(r)
            cols.append(c)
            vals.append(v)
        rhs.append(b)

    for u, v, w in edges:
        le([(col[u], 1.0), (col[v], -1.0)], -w)  # tau_v - tau_u >= w
        if u in mcol:  # M_u >= tau_v - tau_u - w  (M_u is the end tick of u's line)
            le([(col[v], 1.0), (col[u], -1.0), (mcol[u], -1.0)], w)
    for e, p in equal:
        le([(col[e], 1.0), (col[p], -1.0)], 0)
        le([(col[p], 1.0), (col[e], -1.0)], 0)
    bounds = [(0, None)] * nvar
    for n in graph.nodes:
        if n.id in col and n.op == "input":
            bounds[col[n.id]] = (0, 0)
        elif n.id in lower:
            bounds[col[n.id]] = (lower[n.id], None)
    cost = np.zeros(nvar)
    for u in sources:
        cost[mcol[u]] = widths[u]
    cost[col[SINK]] = 1e-4  # among equal-area schedules prefer the shortest pipeline
    a_ub = coo_matrix((vals, (rows, cols)), shape=(len(rhs), nvar)).tocsr() if rhs else None
    res = linprog(cost, A_ub=a_ub, b_ub=np.array(rhs) if rhs else None, bounds=bounds,
                  method="highs")
    if res.status != 0:
        return None
    x = np.rint(res.x).astype(int)
    tau = {nid: int(x[col[nid]]) for nid in col}
    for u, v, w in edges:
        if tau[v] - tau[u] < w:
            return None
    for e, p in equal:
        if tau[e] != tau[p]:
            return None
    return tau


def schedule(graph: Graph, *, minimise: bool = True,
             hard_fp: bool = False) -> tuple[Schedule, Schedule]:
    """(chosen schedule, ASAP schedule); the chosen one never has more delay bits."""
    static = _static_nodes(graph)
    edges, equal, lower = _edges(graph, static, hard_fp)
    widths = {n.id: _width(n) for n in graph.nodes}
    asap_tau = _asap(graph, edges, equal, lower, static)
    asap = Schedule(asap_tau, asap_tau[SINK], _taps(edges, asap_tau), static, widths, hard_fp)
    best = asap
    if minimise:
        tau = _min_bits(graph, edges, equal, lower, static, widths)
        if tau is not None:
            cand = Schedule(tau, tau[SINK], _taps(edges, tau), static, widths, hard_fp)
            if cand.delay_bits() <= asap.delay_bits():
                best = cand
    return best, asap
