"""One entry point for the emulators: the same arguments and bits on the CPU or the GPU."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._diagnostics import SpgenError
from ..ir import Graph

__all__ = ["DEVICES", "emulate_on"]

DEVICES = ("cpu", "cuda")


def emulate_on(device: str, graph: Graph, n: int, inputs: Mapping[str, np.ndarray],
               regs: Mapping[str, int], *, steps: int = 1, ftz: bool = False,
               threads: int | None = None, fuse: bool = True) -> dict[str, np.ndarray]:
    """``spgen.backend.llvm.emulate`` (``device="cpu"``) or ``spgen.backend.cuda.emulate``
    (``"cuda"``; ``threads`` and ``fuse`` are CPU settings: the GPU runs a cascade as one
    launch per step, on the device)."""
    if device == "cpu":
        from .llvm import emulate

        return emulate(graph, n, inputs, regs, steps=steps, ftz=ftz, threads=threads, fuse=fuse)
    if device == "cuda":
        from .cuda import emulate

        return emulate(graph, n, inputs, regs, steps=steps, ftz=ftz)
    raise SpgenError(f"unknown emulation device {device!r}: expected one of {', '.join(DEVICES)}")
