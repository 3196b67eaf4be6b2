"""CUDA back end: SPD dataflow graphs as GPU kernels, bit-exact with the hardware.

``emulate`` takes and returns host arrays like ``spgen.backend.llvm.emulate``;
``get_program(graph, ftz).run(...)`` works on device arrays (CuPy) and is what the
benchmark times. GPU access goes through CuPy (the optional extra ``spgen[cuda]``);
``cuda_unavailable()`` says why none can be used. The source generator needs neither.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..._diagnostics import SpgenError
from ...ir import Graph
from ._device import Program, cuda_unavailable, get_program
from ._source import NVRTC_OPTIONS, module_source

__all__ = ["NVRTC_OPTIONS", "Program", "cuda_unavailable", "emulate", "get_program",
           "module_source"]


def emulate(graph: Graph, n: int, inputs: Mapping[str, np.ndarray], regs: Mapping[str, int], *,
            steps: int = 1, ftz: bool = False, blocking: bool = False,
            group: int | None = None) -> dict[str, np.ndarray]:
    """Run ``graph`` on the GPU on ``n`` elements; the same contract and bits as
    ``spgen.backend.llvm.emulate``. Each step is a launch per phase over whole arrays;
    ``blocking``: up to ``group`` steps (default 16) per launch, temporal blocking in the
    L2 cache (see ``Program.run``)."""
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or steps < 1:
        raise SpgenError(f"steps must be a positive integer, got {steps!r}")
    if group is not None and (not isinstance(group, (int, np.integer)) or group < 1):
        raise SpgenError(f"group must be a positive integer, got {group!r}")
    from .._plan import make_plan

    make_plan(graph)  # unsupported graphs (external Verilog) fail before any GPU check
    prog = get_program(graph, ftz)
    if n == 0:
        return {o.port.name: np.zeros(0, dtype=np.uint32) for o in graph.outputs}
    cp = prog.cp
    ins = []
    for name in prog.plan.in_slot:
        arr = np.ascontiguousarray(np.asarray(inputs[name]).view(np.uint32))
        if arr.shape != (n,):
            raise SpgenError(f"input {name!r}: expected {n} elements, got shape {arr.shape}")
        ins.append(cp.asarray(arr))
    outs = prog.run(n, ins, regs, steps=steps, blocking=blocking, group=group)
    order = sorted(prog.plan.out_slot.items(), key=lambda kv: kv[1])
    return {name: cp.asnumpy(a) for (name, _slot), a in zip(order, outs)}
