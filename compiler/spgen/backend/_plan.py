"""Streaming plan of one module (shared by the LLVM and CUDA back ends): phases, materialised
signals, buffer slots, reaches and lags."""
from __future__ import annotations

from dataclasses import dataclass, field

from .._diagnostics import SpgenError
from ..ir import Graph, Node, Type

__all__ = ["CHUNK", "Plan", "feedback", "make_plan", "ring_sizes", "stage_lags"]

# Elements per chunk of the generated loops; lags and ring sizes are multiples of it.
CHUNK = 256

_SOURCES = ("input", "const", "reg")


@dataclass
class Plan:
    """How one module application runs as a sweep over the stream.

    A *phase* is one vectorisable loop over a chunk of elements. Shifting a computed
    signal needs its values at other elements, so the signal is *materialised* (stored
    into a ring buffer) in its phase and read back by a later phase. Shifts of input
    ports, constants and registers are *free*: read directly at any element.

    Slots number the buffers one module application touches: input ports, then
    materialised signals, then output ports.
    """

    graph: Graph
    n_phases: int
    phase: dict[Node, int]
    free: set[Node]
    mat: list[Node]
    in_slot: dict[str, int]
    mat_slot: dict[Node, int]
    out_slot: dict[str, int]
    n_slots: int
    # per phase: nodes computed there (topological), stores (slot, node), reads (slot, d)
    compute: list[list[Node]] = field(default_factory=list)
    stores: list[list[tuple[int, Node]]] = field(default_factory=list)
    reads: list[list[tuple[int, int]]] = field(default_factory=list)
    # per phase: smallest and largest shift offset read there (bounds of the fast path)
    dmin: list[int] = field(default_factory=list)
    dmax: list[int] = field(default_factory=list)
    # per slot: (consumer phase, offset) pairs; per materialised slot: producer phase
    consumers: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    producer: dict[int, int] = field(default_factory=dict)
    reach_past: int = 0
    reach_future: int = 0

    def src_of(self, n: Node, p: int) -> tuple[int, int] | None:
        """(slot, offset) a phase-``p`` read of ``n`` at offset 0 goes through, if a buffer."""
        if n.op == "input":
            return self.in_slot[n.attrs["port"]], 0
        if n in self.mat_slot and self.phase[n] < p:
            return self.mat_slot[n], 0
        return None


def feedback(graph: Graph) -> dict[str, str] | None:
    """Input port fed by each output port in a cascade, or None if the ports do not match.

    SPD signals are defined once, so an output cannot share its input's name; outputs
    feed back by position (stream, then index), with the same types.
    """
    key = lambda p: (p.stream != "main", p.stream, p.index)
    ins = sorted(graph.inputs, key=key)
    outs = sorted((o.port for o in graph.outputs), key=key)
    if [(p.stream, p.type) for p in ins] != [(p.stream, p.type) for p in outs]:
        return None
    return {o.name: i.name for o, i in zip(outs, ins)}


def _check_supported(g: Graph) -> None:
    for n in g.nodes:
        if n.op == "extern":
            raise SpgenError(
                f"module {g.name} instantiates external Verilog module "
                f"{n.attrs.get('module', '?')!r} ({n.attrs.get('file', 'no file')}): "
                f"external Verilog cannot be emulated; use `spgen sim` instead")
        if n.op == "inst":
            raise SpgenError(f"module {g.name}: instance of {n.attrs.get('module')!r} was not "
                             f"inlined (emulate needs the flattened graph from spgen.passes)")
    for o in g.outputs:
        if o.port.type is Type.BOOL:
            raise SpgenError(f"output {o.port.name}: bool values cannot be stream ports")


def make_plan(g: Graph) -> Plan:
    """Assign phases, materialise what later phases or shifts read, number the slots."""
    _check_supported(g)
    free: set[Node] = set()
    phase: dict[Node, int] = {}
    for n in g.nodes:
        if n.op in _SOURCES or (n.op == "shift" and n.args[0].op in _SOURCES):
            free.add(n)
            phase[n] = 0
        elif n.op == "shift":
            phase[n] = phase[n.args[0]] + 1
        else:
            phase[n] = max((phase[a] for a in n.args), default=0)
    users = g.users()
    mat: list[Node] = []
    for n in g.nodes:
        if n.op in _SOURCES:
            continue
        us = users[n]
        if any(u.op == "shift" for u in us) or (
                n not in free and any(phase[u] > phase[n] for u in us if u not in free)):
            mat.append(n)
    n_phases = max(phase.values(), default=0) + 1
    in_slot = {p.name: i for i, p in enumerate(g.inputs)}
    mat_slot = {n: len(in_slot) + i for i, n in enumerate(mat)}
    base = len(in_slot) + len(mat)
    out_slot = {o.port.name: base + i for i, o in enumerate(g.outputs)}
    plan = Plan(g, n_phases, phase, free, mat, in_slot, mat_slot, out_slot,
                base + len(g.outputs))
    matset = set(mat)
    for p in range(n_phases):
        stores = [(mat_slot[n], n) for n in mat if phase[n] == p]
        stores += [(out_slot[o.port.name], o.node) for o in g.outputs if phase[o.node] == p
                   or (o.node in free and p == 0)]
        # walk back from the stores to what this phase computes and reads
        need: set[Node] = set()
        stack = [n for _, n in stores]
        reads: set[tuple[int, int]] = set()
        offs: list[int] = []
        while stack:
            n = stack.pop()
            if n in need:
                continue
            src = plan.src_of(n, p)
            if src is not None:
                reads.add(src)
                continue
            if n.op in ("const", "reg"):
                continue
            need.add(n)
            if n.op == "shift":
                x = n.args[0]
                d = n.attrs["offset"]
                offs.append(d)
                if x.op == "input":
                    reads.add((in_slot[x.attrs["port"]], d))
                elif x.op not in _SOURCES:
                    if x not in matset or phase[x] >= p:
                        raise AssertionError("shifted signal not materialised")  # plan bug
                    reads.add((mat_slot[x], d))
                continue
            stack.extend(n.args)
        plan.compute.append([n for n in g.nodes if n in need])
        plan.stores.append(stores)
        plan.reads.append(sorted(reads))
        plan.dmin.append(min(offs, default=0))
        plan.dmax.append(max(offs, default=0))
        for slot, d in reads:
            plan.consumers.setdefault(slot, []).append((p, d))
        for slot, n in stores:
            if n in matset and slot == mat_slot.get(n):
                plan.producer[slot] = p
    # output port -> store phase (an output may be a materialised node: stored twice)
    plan.out_phase = {}  # type: ignore[attr-defined]
    for p, st in enumerate(plan.stores):
        for slot, _n in st:
            if slot >= base:
                plan.out_phase[slot] = p  # type: ignore[attr-defined]
    plan.reach_past, plan.reach_future = _reaches(g)
    return plan


def _reaches(g: Graph) -> tuple[int, int]:
    """Largest total past and future shift distance along any path to an output."""
    past: dict[Node, int] = {}
    fut: dict[Node, int] = {}
    for n in g.nodes:
        p = max((past[a] for a in n.args), default=0)
        f = max((fut[a] for a in n.args), default=0)
        if n.op == "shift":
            d = n.attrs["offset"]
            p += max(d, 0)
            f += max(-d, 0)
        past[n], fut[n] = p, f
    return (max((past[o.node] for o in g.outputs), default=0),
            max((fut[o.node] for o in g.outputs), default=0))


def _up(x: int) -> int:
    return -(-x // CHUNK) * CHUNK


def stage_lags(plan: Plan, stages: int, feed: dict[int, int]) -> list[list[int]]:
    """Lag (elements, multiple of CHUNK) of every phase of every chained stage.

    At sweep position ``t`` phase ``p`` of stage ``j`` computes the chunk starting at
    element ``t - lag[j][p]``; a consumer lags its producer by the future distance it
    reads, so the values it needs are always written earlier in the same sweep.
    ``feed`` maps an input slot to the output slot of the previous stage that feeds it.
    """
    lags: list[list[int]] = []
    for j in range(stages):
        lag = [0] * plan.n_phases
        for p in range(plan.n_phases):
            need = lag[p - 1] if p else 0  # keep phases ordered: simpler rings
            for slot, cons in plan.consumers.items():
                for q, d in cons:
                    if q != p:
                        continue
                    fut = _up(max(-d, 0))
                    if slot in plan.producer:
                        need = max(need, lag[plan.producer[slot]] + fut)
                    elif j > 0 and slot in feed:
                        prev = lags[j - 1][plan.out_phase[feed[slot]]]  # type: ignore[attr-defined]
                        need = max(need, prev + fut)
            lag[p] = need
        lags.append(lag)
    return lags


def ring_sizes(plan: Plan, lags: list[list[int]], feed: dict[int, int]) -> list[dict[int, int]]:
    """Ring length per stage and slot (materialised slots, and input slots of stages > 0)."""
    out: list[dict[int, int]] = []
    for j, lag in enumerate(lags):
        sizes: dict[int, int] = {}
        for slot, cons in plan.consumers.items():
            if slot in plan.producer:
                lp = lag[plan.producer[slot]]
            elif j > 0 and slot in feed:
                lp = lags[j - 1][plan.out_phase[feed[slot]]]  # type: ignore[attr-defined]
            else:
                continue
            span = max(lag[q] - lp + max(d, 0) for q, d in cons) + CHUNK
            sizes[slot] = _up(span)
        out.append(sizes)
    return out
