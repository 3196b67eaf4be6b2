"""The context every loop of one phase is generated from."""
from __future__ import annotations

from llvmlite import ir

from ...ir import Node
from .._plan import Plan
from ._ir import I32, P32, VOID, Reader
from ._ops import Emitter

__all__ = ["PhaseGen"]


class PhaseGen:
    """Module, scalar emitter, plan and phase index of the loops of phase ``p``.

    The fast loops of a phase share one argument list: a pointer per read (``reads``,
    keyed by (slot, distance)), a pointer per store, then the register values.
    """

    def __init__(self, mod: ir.Module, em: Emitter, plan: Plan, p: int):
        self.mod, self.em, self.plan, self.p = mod, em, plan, p
        self.reads, self.stores = plan.reads[p], plan.stores[p]
        self.n_ptrs = len(self.reads) + len(self.stores)

    def fast_args(self) -> list[ir.Type]:
        return [P32] * self.n_ptrs + [I32] * len(self.plan.graph.regs)

    def function(self, name: str, extra: list[ir.Type]) -> ir.Function:
        """An internal, always-inlined loop taking the fast arguments and ``extra``; its
        pointers are noalias (the inliner turns that into alias scopes)."""
        fn = ir.Function(self.mod, ir.FunctionType(VOID, self.fast_args() + extra), name)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        for a in fn.args[:self.n_ptrs]:
            a.add_attribute("noalias")
        return fn

    def split(self, args) -> tuple[dict, list, dict[str, ir.Value]]:
        """(read pointers by key, store pointers, register values by name) of fast arguments."""
        nr, nw = len(self.reads), len(self.stores)
        rptr = dict(zip(self.reads, args))
        wptr = list(args[nr:nr + nw])
        regv = {r.name: args[nr + nw + k] for k, r in enumerate(self.plan.graph.regs)}
        return rptr, wptr, regv

    def is_out(self, slot: int) -> bool:
        """Whether a store slot is an output port (else a ring or a materialised signal)."""
        return slot >= self.plan.n_slots - len(self.plan.out_slot)

    @staticmethod
    def scalar_reader(rptr: dict, i: ir.Value) -> Reader:
        """Reads of element ``i`` of a chunk with no bounds checks (the fast path)."""
        def read(b: ir.IRBuilder, slot: int, d: int):
            if slot < 0:
                return None, None
            return b.load(b.gep(rptr[(slot, d)], [i])), None
        return read

    def stored(self, b: ir.IRBuilder, val: dict[Node, ir.Value], n: Node, read: Reader,
               regs, em: Emitter | None = None) -> ir.Value:
        """The value a store of ``n`` writes: computed, or a source the phase reads."""
        return val[n] if n in val else (em or self.em).source(b, n, self.p, read, regs)
