"""Running N time steps of the D2Q9 core on a grid, in the emulator or on the simulated card."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from .._diagnostics import SpgenError
from .._paths import cores_dir
from ..ir import Output, Port
from ._grid import RECORD_DTYPE, check_grid, from_records, to_records

__all__ = ["CORE_PATH", "as_core_input", "as_records", "compile_core", "run_emulator"]

CORE_PATH = cores_dir() / "lbm" / "lbm_d2q9.spd"


def compile_core(width: int, path: str | Path | None = None, **kwargs: Any):
    """The LBM core compiled for grids ``width`` cells wide (Param W)."""
    from .._design import compile

    return compile(path or CORE_PATH, params={"W": int(width)}, **kwargs)


def _renamed(records: np.ndarray, names) -> np.ndarray:
    """The same values under other field names (ports correspond by position)."""
    if records.dtype.names is None or len(records.dtype.names) != len(names):
        raise SpgenError(f"expected a structured array of {len(names)} fields "
                         f"({', '.join(names)})")
    out = np.empty(len(records), dtype=[(n, records.dtype[i]) for i, n in enumerate(names)])
    for src, dst in zip(records.dtype.names, names):
        out[dst] = records[src]
    return out


def as_core_input(design, records: np.ndarray) -> np.ndarray:
    """Records (f0..f8, attr) under the core's input port names."""
    return _renamed(records, design.input_dtype().names)


def as_records(out: np.ndarray) -> np.ndarray:
    """Core output (f0_o.. or f0..) under the record names f0..f8, attr."""
    return _renamed(out, RECORD_DTYPE.names)


def run_emulator(design, f: np.ndarray, attr: np.ndarray, steps: int = 1, omega: float = 1.0,
                 uw: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Advance f (9, H, W) by ``steps`` time steps with the core in the emulator."""
    a = check_grid(attr)
    _check_steps(steps)
    width = design.graph.params.get("W")
    if width is not None and int(width) != a.shape[1]:
        raise SpgenError(f"the core was compiled for grids {width} cells wide (Param W) but the "
                         f"grid is {a.shape[1]} wide; compile it with W={a.shape[1]}")
    regs = {"omega": float(omega), "uw_x": float(uw[0]), "uw_y": float(uw[1])}
    rec = to_records(f, a)
    if steps == 0:
        return from_records(rec, a.shape[1])[0]
    rec = _emulate_chained(design, as_core_input(design, rec), regs, int(steps))
    return from_records(as_records(rec), a.shape[1])[0]


def _check_steps(steps) -> None:
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise SpgenError(f"steps must be a non-negative integer, got {steps!r}")


def _chained(graph):
    """The graph with each output port renamed after the input port at its position.

    SPD names a signal once, so the core's outputs cannot carry the input names; a
    hardware cascade connects the record words by position, and so does this.
    """
    ins = sorted(graph.inputs, key=lambda p: (p.stream, p.index))
    outs = sorted(graph.outputs, key=lambda o: (o.port.stream, o.port.index))
    if [(p.stream, p.type) for p in ins] != [(o.port.stream, o.port.type) for o in outs]:
        raise SpgenError(f"{graph.name}: output ports do not match the input ports "
                         f"position by position, so steps cannot be chained")
    renamed = [Output(Port(p.name, o.port.type, o.port.stream, o.port.index), o.node)
               for p, o in zip(ins, outs)]
    return dataclasses.replace(graph, outputs=renamed)


def _emulate_chained(design, inputs: np.ndarray, regs: dict, steps: int) -> np.ndarray:
    """``steps`` applications of the design in one emulator call (fused sweeps)."""
    from .. import _streams
    from ..backend.llvm import emulate

    g = _chained(design.graph)
    n, bits = _streams.check_inputs(g, inputs)
    out = emulate(g, n, bits, _streams.parse_regs(g, regs), steps=steps, ftz=design.ftz)
    return _streams.pack_outputs(g, out, n)


def run_card(build: str | Path, f: np.ndarray, attr: np.ndarray, steps: int, omega: float = 1.0,
             uw: tuple[float, float] = (0.0, 0.0)) -> tuple[np.ndarray, list]:
    """Advance f by ``steps`` on the simulated card of a ``spgen build --cascade N`` of the core.

    Every transfer streams through the N cores (docs/shell.md): the upload (H2F)
    and the download (F2H) each advance the grid N steps, and each F2F run between
    the two memories N more, so ``steps`` must be a multiple of N and at least 2N.
    Returns the new f and the counters (``RunResult``) of the F2F runs. The C++
    ``afushell::lbm::run_card`` (runtime/include/afushell/lbm_card.hpp) does the work;
    its refusals come back as SpgenError naming the build.
    """
    from .. import runtime
    from ..runtime import RunResult
    from ..runtime._build import load_extension

    a = check_grid(attr)
    _check_steps(steps)
    rec = to_records(f, a)
    with runtime.open(build) as card:
        code, msg, value = load_extension().lbm_run_card(
            card.c_handle, rec.view(np.uint8), a.shape[1], int(steps), float(omega), float(uw[0]),
            float(uw[1]))
    if code:
        raise SpgenError(f"{build}: {msg.removeprefix('run_card: ')}")
    out, runs = value
    return from_records(out.view(RECORD_DTYPE), a.shape[1])[0], [RunResult(**r) for r in runs]
