"""LLVM IR of a module's streaming kernel: per phase its chunk loops, then the sweep driver.

The parts, each a module of this package:

- ``_ops``: op emission, the computation of one phase at one element (or ``SUB`` lanes);
- ``_phase``: ``PhaseGen``, the context the loops of one phase are generated from;
- ``_chunk``: the fast chunk loops (no bounds checks) and the plain block-range loop;
- ``_pipeline``: the software-pipelined loops of the specialised variants, with their
  tuning constants;
- ``_dispatch``: the per-block classes that pick a variant;
- ``_edge``: the checked loop for the chunks at the stream ends;
- ``_sweep``: each phase's chunk function and the sweep over chunks and stages;
- ``_fpenv``: the entry point that sets the floating-point environment.
"""
from __future__ import annotations

from llvmlite import ir

from .._plan import Plan
from ._chunk import chunk_loop
from ._edge import edge_loop
from ._fpenv import fp_entry
from ._ops import Emitter
from ._phase import PhaseGen
from ._pipeline import class_loop
from ._spec import spec_variants, stage_invariant
from ._sweep import NO_RING, key_counts, phase_fn, sweep_fn

__all__ = ["NO_RING", "RUN_SYMBOL", "emit_module", "key_counts"]

RUN_SYMBOL = "spg_run"


def emit_module(plan: Plan, ftz: bool, x86: bool) -> ir.Module:
    """The kernel module; its entry point is ``spg_run`` (see ``_run.py`` for the tables).

    ``spg_run(bases, offs, mods, lags, rng, S, t0, t1, N, nt, regs, cls)``: for t in
    [t0, t1) by CHUNK, for each stage j and phase p, the chunk at
    ``s = t - lags[j*P+p]`` clipped to ``[rng[4j], rng[4j+1])`` with output stores
    limited to ``[rng[4j+2], rng[4j+3])``. ``bases``, ``offs`` and ``mods`` (S x
    key_counts[-1]) give every read and store of stage j its buffer address, chunk
    offset at t0 and ring size (see ``_sweep.phase_fn``); the offsets are advanced
    there. ``nt`` bit 0 asks for streaming stores into the (64-byte aligned) output
    arrays, bit 1 for the specialised loops. ``cls``: zeroed block-class tables,
    ``cls_bytes(plan, N)`` bytes (``_dispatch``).
    """
    mod = ir.Module(name=f"spg_{plan.graph.name}")
    em = Emitter(mod, plan, ftz)
    kb = key_counts(plan)
    phases = []
    for p in range(plan.n_phases):
        ph = PhaseGen(mod, em, plan, p)
        outs = any(ph.is_out(slot) for slot, _n in ph.stores)
        runs = None
        cached = False
        variants = spec_variants(plan, p)
        if variants:
            cached = stage_invariant(plan, p, [c for _v, used, _l in variants for c in used])
            runs = []
            for k, (value, used, live) in enumerate(variants):
                nodes = [n for n in plan.compute[p] if n in live]
                f = class_loop(ph, f"spg_spec{p}_{k}", nodes, {c: value for c in used})
                runs.append((f, [(c, value) for c in used]))
            runs.append((class_loop(ph, f"spg_genc{p}"), []))
        fast = (chunk_loop(ph), runs and chunk_loop(ph, runs=runs, cached=cached))
        fastnt = outs and (chunk_loop(ph, nt=True),
                           runs and chunk_loop(ph, nt=True, runs=runs, cached=cached))
        phases.append(phase_fn(ph, fast, fastnt or None, edge_loop(ph), kb[p], cached))
    fp_entry(mod, sweep_fn(mod, plan, phases, RUN_SYMBOL + "_body"), RUN_SYMBOL, x86)
    return mod
