"""The emulator's kernel as a position-independent object for native callers (the card's fast cores).

A caller links the object and runs ``spg_run`` itself on slices of a stream it holds:
one stage, one thread, plain (unspecialised) loops. ``NativeKernel.layout`` gives
what it needs to fill the sweep's tables (``_run._Template`` for one stage): every
read and store ("key") with its buffer, shift offset and phase, the phase lags, the
rings of materialised signals and the reaches.
"""
from __future__ import annotations

from dataclasses import dataclass

import llvmlite.binding as llvm

from ...ir import Graph
from .._plan import CHUNK, make_plan
from ._codegen import NO_RING, RUN_SYMBOL
from ._jit import Kernel, _compile_object, _new_target_machine
from ._run import _STAGGER, _keys, _layout

__all__ = ["NativeKernel", "native_kernel"]


@dataclass(frozen=True)
class NativeKernel:
    """Object code with ``symbol`` (the ``spg_run`` signature) and its table layout."""

    obj: bytes
    symbol: str
    layout: dict


def _pic_target_machine():
    _new_target_machine()  # initialises the native target
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
        opt=3, reloc="pic", codemodel="default")


def native_kernel(graph: Graph, ftz: bool) -> NativeKernel:
    """Compile ``graph`` (flattened, optimised) for linking into a shared library.

    Raises ``SpgenError`` for what the emulator cannot run (external Verilog).
    """
    plan = make_plan(graph)
    obj = _compile_object(plan, ftz, _pic_target_machine())

    # the emulator's ring layout of one stage (a kernel without an engine: only the
    # plan and the memo that _layout fills are used)
    k = Kernel(plan, None, None, False)
    lags, ring_off, ring_mod, ring_words = _layout(k, 1, {})
    kslot, kd, kphase = _keys(k)
    in_names = list(plan.in_slot)
    out_rows = {slot: i for i, slot in enumerate(plan.out_slot.values())}
    keys = []
    for slot, d, p in zip(kslot.tolist(), kd.tolist(), kphase.tolist()):
        if slot < len(in_names):
            kind, index = "in", slot
        elif slot in out_rows:
            kind, index = "out", out_rows[slot]
        else:
            kind, index = "ring", int(ring_off[0, slot])
        keys.append({"kind": kind, "index": index, "mod": int(ring_mod[0, slot]) if kind == "ring"
                     else NO_RING, "d": int(d), "phase": int(p)})
    layout = {
        "chunk": CHUNK,
        "no_ring": NO_RING,
        "phases": plan.n_phases,
        "lags": [int(x) for x in lags[0]],
        "ring_words": int(ring_words) + _STAGGER,
        "reach_past": plan.reach_past,
        "reach_future": plan.reach_future,
        "inputs": in_names,
        # the word of the record each input slot and output row is (port index)
        "in_words": [p.index for p in graph.inputs],
        "in_streams": [p.stream for p in graph.inputs],
        "outputs": [o.port.name for o in graph.outputs],
        "out_words": [o.port.index for o in graph.outputs],
        "out_streams": [o.port.stream for o in graph.outputs],
        "regs": [r.name for r in graph.regs],
        "keys": keys,
    }
    return NativeKernel(obj, RUN_SYMBOL, layout)
