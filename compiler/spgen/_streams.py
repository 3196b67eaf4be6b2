"""Stream data at the API boundary: numpy structured arrays in, 32-bit patterns inside.

Both back ends (emulate and simulate) go through these functions, so a malformed
input gets the same clear error whichever one the user runs.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._diagnostics import SpgenError
from .ir import Graph, Port, Type

__all__ = [
    "bits_of",
    "check_inputs",
    "input_dtype",
    "load_npy",
    "output_dtype",
    "pack_outputs",
    "parse_regs",
    "port_dtype",
    "save_npy",
]

_NP = {Type.F32: np.dtype("<f4"), Type.I32: np.dtype("<i4"), Type.U32: np.dtype("<u4")}


def port_dtype(t: Type) -> np.dtype:
    if t is Type.BOOL:
        raise SpgenError("bool values cannot be stream ports")
    return _NP[t]


def _dtype(ports: list[Port]) -> np.dtype:
    return np.dtype([(p.name, port_dtype(p.type)) for p in ports])


def input_dtype(graph: Graph, stream: str | None = None) -> np.dtype:
    """Structured dtype of the input ports (all streams, main first, unless ``stream``)."""
    return _dtype([p for p in _ordered(graph.inputs) if stream in (None, p.stream)])


def output_dtype(graph: Graph, stream: str | None = None) -> np.dtype:
    return _dtype([o.port for o in _ordered_out(graph) if stream in (None, o.port.stream)])


def _ordered(ports: list[Port]) -> list[Port]:
    return sorted(ports, key=lambda p: (p.stream != "main", p.index))


def _ordered_out(graph: Graph):
    return sorted(graph.outputs, key=lambda o: (o.port.stream != "main", o.port.index))


def bits_of(values: np.ndarray) -> np.ndarray:
    """The 32-bit patterns of a float32/int32/uint32 array, as uint32."""
    return np.ascontiguousarray(values).view(np.uint32)


def check_inputs(graph: Graph, inputs: np.ndarray | Mapping[str, np.ndarray]
                 ) -> tuple[int, dict[str, np.ndarray]]:
    """Validate input streams; return (N, {port name: uint32 bit patterns}).

    ``inputs`` is one structured array holding every input port, or a mapping
    ``{"main": array, "brch": array}`` with one structured array per stream.
    Errors name the offending field and say what was expected.
    """
    if isinstance(inputs, Mapping):
        arrays = dict(inputs)
        for s in arrays:
            if s not in ("main", "brch"):
                raise SpgenError(f"unknown stream {s!r}: expected 'main' or 'brch'")
    else:
        arrays = {"main": inputs}
    fields: dict[str, np.ndarray] = {}
    lengths: dict[str, int] = {}
    for sname, arr in arrays.items():
        if not isinstance(arr, np.ndarray) or arr.dtype.names is None:
            raise SpgenError(f"{sname} stream: expected a numpy structured array with fields "
                             f"{', '.join(input_dtype(graph).names or ())}")
        if arr.ndim != 1:
            raise SpgenError(f"{sname} stream: expected a 1-D array, got shape {arr.shape}")
        lengths[sname] = len(arr)
        for name in arr.dtype.names:
            if name in fields:
                raise SpgenError(f"field {name!r} given twice")
            fields[name] = arr[name]
    ports = _ordered(graph.inputs)
    known = {p.name for p in ports}
    for name in fields:
        if name not in known:
            raise SpgenError(f"input field {name!r} is not an input port of module "
                             f"{graph.name} (ports: {', '.join(p.name for p in ports)})")
    out: dict[str, np.ndarray] = {}
    for p in ports:
        if p.name not in fields:
            raise SpgenError(f"input field {p.name!r} is missing (port of the {p.stream} "
                             f"stream, type {p.type})")
        col = fields[p.name]
        want = port_dtype(p.type)
        if col.dtype.newbyteorder("<") != want or col.dtype.shape:
            raise SpgenError(f"input field {p.name!r} has dtype {col.dtype}, expected "
                             f"{want.name} for a {p.type} port")
        out[p.name] = bits_of(col.astype(want, copy=False))
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{s}: {n}" for s, n in lengths.items())
        raise SpgenError(f"streams differ in length ({detail}); branch streams run in "
                         f"lock-step with the main stream")
    n = next(iter(lengths.values()), 0)
    if not ports:
        n = 0
    return n, out


def pack_outputs(graph: Graph, bits: Mapping[str, np.ndarray], n: int) -> np.ndarray:
    """Structured output array (every output port, main first) from uint32 patterns."""
    arr = np.zeros(n, dtype=output_dtype(graph))
    for o in graph.outputs:
        arr[o.port.name] = np.asarray(bits[o.port.name], dtype=np.uint32).view(arr.dtype[o.port.name])
    return arr


def _reg_bits(t: Type, value: object, name: str) -> int:
    try:
        if isinstance(value, str):
            value = float(value) if t is Type.F32 else int(value, 0)
        if t is Type.F32:
            return int(np.array(value, dtype=np.float32).view(np.uint32))
        v = int(value)  # type: ignore[arg-type]
        lo, hi = (-(1 << 31), (1 << 31) - 1) if t is Type.I32 else (0, 0xFFFFFFFF)
        if not lo <= v <= hi:
            raise ValueError(f"{v} is out of range for {t}")
        return v & 0xFFFFFFFF
    except (TypeError, ValueError) as e:
        raise SpgenError(f"register {name!r}: bad {t} value {value!r} ({e})") from None


def parse_regs(graph: Graph, regs: Mapping[str, object] | None) -> dict[str, int]:
    """Register values as 32-bit patterns: defaults overridden by ``regs`` (name -> value)."""
    out = {r.name: r.default for r in graph.regs}
    types = {r.name: r.type for r in graph.regs}
    for name, value in (regs or {}).items():
        if name not in types:
            known = ", ".join(types) or "none"
            raise SpgenError(f"unknown register {name!r} (registers of {graph.name}: {known})")
        out[name] = _reg_bits(types[name], value, name)
    return out


def load_npy(path: str) -> np.ndarray:
    try:
        arr = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise SpgenError(f"{path}: no such file") from None
    except (ValueError, OSError) as e:
        raise SpgenError(f"{path}: not a readable .npy file ({e})") from None
    if arr.dtype.names is None:
        raise SpgenError(f"{path}: expected a structured array with one field per port, "
                         f"got dtype {arr.dtype}")
    return arr


def save_npy(path: str, arr: np.ndarray) -> None:
    try:
        np.save(path, arr, allow_pickle=False)
    except OSError as e:
        raise SpgenError(f"{path}: cannot write ({e})") from None
