"""IR clean-up passes, one per file, and the pipeline ``optimize`` runs."""
from __future__ import annotations

import gc
import time
from collections.abc import Callable

from spgen.ir import Graph, IRError, Program

from .._fpenv import ieee_fp
from . import (
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fold_constants,
    inline_modules,
    reassociate,
    renumber,
    simplify,
)
from ._rewrite import copy_graph

__all__ = ["PASSES", "optimize", "run_passes"]

# Every pass module, by its kebab-case name.
PASSES = {m.NAME: m for m in (inline_modules, fold_constants, simplify,
                              eliminate_common_subexpressions, eliminate_dead_code,
                              reassociate, renumber)}


def run_passes(graph: Graph, steps: list[tuple[str, Callable[[Graph], Graph]]],
               timings: dict[str, float] | None = None) -> Graph:
    """Run ``steps`` (name, function) in order, verifying the IR after each one.

    A step may edit the graph in place: its version is advanced after every step, so
    caches of the graph's content (the emulator's kernels) see the edit.
    ``timings``, when given, accumulates CPU seconds per pass name and ``"verify"``.
    """
    clock = time.thread_time
    for name, step in steps:
        t0 = clock()
        graph = step(graph)
        graph.touch()
        t1 = clock()
        try:
            graph.verify()
        except IRError as e:
            raise IRError(f"after pass {name}: {e}") from e
        if timings is not None:
            timings[name] = timings.get(name, 0.0) + t1 - t0
            timings["verify"] = timings.get("verify", 0.0) + clock() - t1
    return graph


def optimize(program: Program, *, ftz: bool = False, fast_math: bool = False,
             timings: dict[str, float] | None = None) -> Graph:
    """The top module of ``program`` flattened and cleaned up bit-exactly.

    Parameters
    ----------
    program : Program
        Output of the front end; it is not modified.
    ftz : bool
        Fold f32 constants with subnormal inputs and results flushed to zero.
    fast_math : bool
        Also rebalance chains of f32 additions and products (changes rounding).
    timings : dict, optional
        Filled with CPU seconds per pass (``"copy"`` and ``"verify"`` included).

    Returns
    -------
    Graph
        A new verified graph with no ``inst`` nodes and consecutive node ids.
    """
    # The passes allocate no cycles worth collecting; the cyclic GC walking ~10^5
    # live nodes on every few thousand allocations made large graphs superlinear.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with ieee_fp():  # folding uses numpy float32: keep subnormals whatever the process mode
            return _optimize(program, ftz, fast_math, timings)
    finally:
        if was_enabled:
            gc.enable()


def _optimize(program: Program, ftz: bool, fast_math: bool,
              timings: dict[str, float] | None) -> Graph:
    t0 = time.thread_time()
    graph = copy_graph(program.top_graph)
    graph.verify()
    if timings is not None:
        timings["copy"] = timings.get("copy", 0.0) + time.thread_time() - t0
    cleanup = [
        (fold_constants.NAME, lambda g: fold_constants.run(g, ftz=ftz)),
        (simplify.NAME, lambda g: simplify.run(g, ftz=ftz)),
        (eliminate_common_subexpressions.NAME, eliminate_common_subexpressions.run),
    ]
    steps = [(inline_modules.NAME, lambda g: inline_modules.run(g, program))]
    # Twice: folding exposes identities, and identities and CSE expose more folding.
    steps += cleanup + cleanup
    if fast_math:
        steps += [(eliminate_dead_code.NAME, eliminate_dead_code.run),
                  (reassociate.NAME, reassociate.run)]
    steps += [(eliminate_dead_code.NAME, eliminate_dead_code.run),
              (renumber.NAME, renumber.run)]
    return run_passes(graph, steps, timings)
