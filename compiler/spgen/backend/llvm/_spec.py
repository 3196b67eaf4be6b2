"""Chunk-uniform select specialisation: which selects a fast chunk loop may resolve per block."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ...ir import OPS, Node, Type
from .._plan import CHUNK, Plan, feedback

__all__ = ["SPECIALISE", "SUB", "cls_bytes", "cls_entry", "cone", "spec_variants",
           "specialisation", "stage_invariant"]

_ICMP = ("ieq", "ine", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")

# Chunk-uniform select specialisation. A select whose condition is cheap to test (an
# integer/bool function of reads, constants and registers: in LBM the wall tags of a
# cell and its neighbours) usually takes the same side for long runs of elements. The
# fast chunk loop tests those conditions first and runs each block of SUB elements
# where they all hold one value through a loop that computes only the taken sides (no
# bounce-back or moving-wall arithmetic in fluid blocks, no collision in solid ones);
# other blocks take the general loop. Both compute the same operations on the same
# operands for every element they store, so the results are the same bits.
SUB = 16
SPECIALISE = True  # switched by ``specialisation`` (part of the JIT cache key)
_COND_OPS = {"and", "or", "xor", "not", "add", "sub", "mul", "neg", "shl", "lshr", "ashr",
             "smin", "smax", "umin", "umax", "iabs", "select", "booltoint", "shift",
             *_ICMP}
_COND_MAX = 96  # nodes of a condition's cone, tested per element
# A phase with little float work is bound by its loads and stores (Jacobi-5: 4 float
# operations per element): the per-block test would cost more than it saves.
_MIN_WORK = 12


@contextmanager
def specialisation(on: bool) -> Iterator[None]:
    """Within the block, compile kernels with (the default) or without select
    specialisation; both compute the same bits (for comparisons and benchmarks)."""
    global SPECIALISE
    saved, SPECIALISE = SPECIALISE, on
    try:
        yield
    finally:
        SPECIALISE = saved


def _work(nodes) -> int:
    """Float work of ``nodes``: one per operation, five per division or square root."""
    return sum(5 if n.op in ("fdiv", "fsqrt") else 1 for n in nodes if OPS[n.op].float)


def cls_entry() -> int:
    """Bytes per chunk in a block-class table: tag (int64), a class per block."""
    return -(-(8 + CHUNK // SUB) // 8) * 8


def cls_bytes(plan: Plan, n: int) -> int:
    """Bytes of a sweep's block-class tables over a stream of ``n`` (all phases)."""
    return plan.n_phases * (n // CHUNK + 1) * cls_entry()


def cone(plan: Plan, p: int, roots, stop=lambda n: False) -> set[Node]:
    """The phase-``p`` computed nodes that ``roots`` need (reads and sources excluded)."""
    need: set[Node] = set()
    stack = list(roots)
    while stack:
        n = stack.pop()
        if n in need or n.op in ("const", "reg", "input") or plan.src_of(n, p) is not None:
            continue
        need.add(n)
        if n.op != "shift":
            stack.extend(stop(n) or n.args)
    return need


def spec_variants(plan: Plan, p: int) -> list[tuple[bool, list[Node], set[Node]]]:
    """Specialised loops of phase ``p``: (value, conditions, nodes computed), cheapest first.

    A variant assumes that every cheap select condition on its path from the stores has
    ``value`` (all true, or all false); the conditions it needs are those of the selects
    it then still reaches, and it computes only what the taken sides need.
    """
    comp = set(plan.compute[p])
    total = _work(comp)
    if not SPECIALISE or total < _MIN_WORK:
        return []
    cheap: dict[Node, bool] = {}

    def is_cheap(c: Node) -> bool:
        if c not in cheap:
            nodes = cone(plan, p, [c])
            cheap[c] = (c.type is Type.BOOL and len(nodes) <= _COND_MAX
                        and all(n.op in _COND_OPS and n.type is not Type.F32 for n in nodes))
        return cheap[c]

    conds = [n.args[0] for n in plan.compute[p] if n.op == "select" and is_cheap(n.args[0])]
    if not conds:
        return []
    roots = [n for _slot, n in plan.stores[p]]
    inner = _inner_selects(plan, p, roots, cheap)
    out = []
    # all true, all false, and the inner selects false (the outer ones left general)
    for value, assumed in ((True, None), (False, None), (False, inner)):
        used: list[Node] = []

        def taken(n: Node, value=value, assumed=assumed, used=used):
            if (n.op == "select" and cheap.get(n.args[0])
                    and (assumed is None or n in assumed)):
                if n.args[0] not in used:
                    used.append(n.args[0])
                return [n.args[1] if value else n.args[2]]
            return None

        if assumed is not None and not assumed:
            continue
        live = cone(plan, p, roots, taken)
        # worth a loop only if it drops real (float) work, not just the selects
        if used and _work(comp - live) >= max(3, total // 10):
            out.append((value, used, live))
    out.sort(key=lambda v: len(v[2]))
    return out


def _inner_selects(plan: Plan, p: int, roots, cheap: dict[Node, bool]) -> set[Node]:
    """Cheap-condition selects used only as the false side of other cheap-condition
    selects: the rarer case behind a common test (LBM: "moving wall?" inside "is the
    neighbour fluid?"). The blocks at a wall mix the outer tests lane by lane, but
    there the inner ones are usually all false: a loop assuming just that skips the
    work behind them (LBM: the moving-wall terms) where the all-true and all-false
    loops cannot run."""
    users: dict[Node, list[tuple[Node, int]]] = {}
    for n in plan.compute[p]:
        for i, a in enumerate(n.args):
            users.setdefault(a, []).append((n, i))
    stored = set(roots)
    return {n for n in plan.compute[p]
            if n.op == "select" and cheap.get(n.args[0]) and n not in stored and users.get(n)
            and all(u.op == "select" and i == 2 and cheap.get(u.args[0]) for u, i in users[n])}


def stage_invariant(plan: Plan, p: int, conds: list[Node]) -> bool:
    """Whether ``conds`` have the same values at an element in every stage of a cascade.

    True when they read only input ports that a cascade feeds back unchanged (an output
    that is the input itself, like LBM's cell tags), constants and registers: the block
    classes of a chunk are then computed by the first stage that runs it fast and
    reused by the later stages of the sweep.
    """
    g = plan.graph
    fb = feedback(g) or {}
    same = {fb[o.port.name] for o in g.outputs
            if o.port.name in fb and o.node.op == "input" and o.node.attrs["port"] == fb[o.port.name]}
    inner = cone(plan, p, conds)
    leaves = set(conds) | {a for n in inner for a in n.args}
    for x in leaves - inner:
        if x.op == "input" and x.attrs["port"] not in same:
            return False
        if x.op not in ("input", "const", "reg"):
            return False  # a materialised signal of an earlier phase
    return True
