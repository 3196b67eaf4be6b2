"""The Python API: `spgen.compile(path) -> Design` with emulate, simulate and a report."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import _streams
from ._diagnostics import Diagnostics
from ._fpenv import ieee_fp
from .ir import Graph, Program

__all__ = ["Design", "compile"]


@dataclass(eq=False)
class Design:
    """A compiled SPD program: the checked, cleaned-up dataflow graph of its top module.

    Both back ends read only ``graph`` (never the source), which is what keeps
    emulation and simulation bit-identical.
    """

    source: Path
    program: Program
    graph: Graph
    ftz: bool = False
    fast_math: bool = False
    hard_fp: bool = False
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    _verilog: Any = None
    last_sim: dict | None = None

    @property
    def name(self) -> str:
        return self.graph.name

    @property
    def verilog(self):
        """The generated Verilog core (scheduled and balanced), built on first use."""
        if self._verilog is None:
            from .backend.verilog import generate

            self._verilog = generate(self.graph, ftz=self.ftz, hard_fp=self.hard_fp)
        return self._verilog

    @property
    def report(self) -> dict:
        """Pipeline latency, op counts, FLOPs per element, buffer bits, ports and registers."""
        return self.verilog.report

    def emulate(self, inputs: np.ndarray | Mapping[str, np.ndarray], regs: Mapping | None = None,
                steps: int = 1, threads: int | None = None, device: str = "cpu") -> np.ndarray:
        """Run the program natively, bit-exact with the hardware: on the CPU (LLVM JIT) or,
        with ``device="cuda"``, on an NVIDIA GPU (docs/gpu.md)."""
        from .backend import emulate_on

        n, bits = _streams.check_inputs(self.graph, inputs)
        reg_bits = _streams.parse_regs(self.graph, regs)
        out = emulate_on(device, self.graph, n, bits, reg_bits, steps=steps, ftz=self.ftz,
                         threads=threads)
        return _streams.pack_outputs(self.graph, out, n)

    def simulate(self, inputs: np.ndarray | Mapping[str, np.ndarray], regs: Mapping | None = None,
                 stall_seed: int | None = None, trace: str | None = None) -> np.ndarray:
        """Run the generated Verilog cycle by cycle in Verilator; statistics go to ``last_sim``."""
        from .backend.verilog import simulate

        n, bits = _streams.check_inputs(self.graph, inputs)
        reg_bits = _streams.parse_regs(self.graph, regs)
        out, stats = simulate(self.verilog, n, bits, reg_bits, stall_seed=stall_seed, trace=trace)
        self.last_sim = stats
        return _streams.pack_outputs(self.graph, out, n)

    def input_dtype(self) -> np.dtype:
        return _streams.input_dtype(self.graph)

    def output_dtype(self) -> np.dtype:
        return _streams.output_dtype(self.graph)


def compile(path: str | Path, *, top: str | None = None, params: Mapping[str, Any] | None = None,
            ftz: bool = False, fast_math: bool = False, hard_fp: bool = False) -> Design:
    """Parse, check and lower an ``.spd`` file; raise ``CompileError`` with every diagnostic.

    ``hard_fp`` maps f32 add, sub and mul onto the Arria 10's hardened FP DSP blocks
    (docs/oplib.md); they flush subnormals, so it implies ``ftz``.
    """
    ftz = ftz or hard_fp
    from .frontend import load_program
    from .passes import optimize

    with ieee_fp():  # f32 literals and folding are rounded with numpy
        program, diags = load_program(Path(path), top=top, params=params)
        graph = optimize(program, ftz=ftz, fast_math=fast_math)
    # HDL statements with a number instead of `auto` must state the callee's real latency
    from .backend.verilog import check_instance_latencies

    check_instance_latencies(program, ftz=ftz, fast_math=fast_math, hard_fp=hard_fp)
    return Design(Path(path), program, graph, ftz=ftz, fast_math=fast_math, hard_fp=hard_fp,
                  diagnostics=diags)
