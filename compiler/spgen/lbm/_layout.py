"""The D2Q9 lattice and the LBM record layout, read from cores/lbm/lbm_record.json."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .._diagnostics import SpgenError
from .._paths import cores_dir

__all__ = [
    "ATTR_MASK",
    "FLUID",
    "LAYOUT_PATH",
    "MOVING_WALL",
    "OPP",
    "RECORD_BYTES",
    "RECORD_DTYPE",
    "WALL",
    "WEIGHTS",
    "E",
    "render_header",
]

LAYOUT_PATH = cores_dir() / "lbm" / "lbm_record.json"
_TYPES = {"f4": ("<f4", "float"), "u4": ("<u4", "std::uint32_t")}


def _load(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text())
        _ = doc["record"], doc["attr_codes"], doc["attr_mask"], doc["lattice"]["e"]
        _ = doc["lattice"]["weights"], doc["lattice"]["opposite"]
        if any(f["type"] not in _TYPES or f["count"] < 1 for f in doc["record"]):
            raise ValueError("record field types are f4 or u4, counts at least 1")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SpgenError(f"LBM layout {path}: {e}") from None
    return doc


def _field_names(field: dict) -> list[str]:
    """numpy's names of a record field: f0..f8 for a count of 9, attr for one."""
    n = field["count"]
    return [field["name"]] if n == 1 else [f"{field['name']}{i}" for i in range(n)]


_DOC = _load(LAYOUT_PATH)
FLUID, WALL, MOVING_WALL = (int(_DOC["attr_codes"][k]) for k in ("FLUID", "WALL", "MOVING_WALL"))
ATTR_MASK = int(_DOC["attr_mask"])
E = np.array(_DOC["lattice"]["e"])
# numerator / denominator in double, as C++ computes them, so float32 casts round alike
WEIGHTS = np.array([n / d for n, d in _DOC["lattice"]["weights"]])
OPP = np.array(_DOC["lattice"]["opposite"])
# One stream element: f0..f8 then attr, little-endian 32-bit words (port 0 lowest).
RECORD_DTYPE = np.dtype([(name, _TYPES[f["type"]][0]) for f in _DOC["record"]
                         for name in _field_names(f)])
RECORD_BYTES = RECORD_DTYPE.itemsize  # 40: one record per cell


def _cpp_list(values) -> str:
    return "{" + ", ".join(str(v) for v in values) + "}"


def render_header(doc: dict = _DOC) -> str:
    """runtime/include/afushell/lbm_layout.hpp: the record struct and the lattice in C++."""
    q = len(doc["lattice"]["e"])
    fields = [f"    {_TYPES[f['type']][1]} {f['name']}{f'[{n}]' if (n := f['count']) > 1 else ''};"
              f"  // {f['description']}" for f in doc["record"]]
    descr = ", ".join(f"('{name}', '{_TYPES[f['type']][0]}')" for f in doc["record"]
                      for name in _field_names(f))
    codes = ", ".join(f"{k} = {v}" for k, v in doc["attr_codes"].items())
    return "\n".join([
        "// The D2Q9 lattice and the LBM record: generated from cores/lbm/lbm_record.json by",
        "// cores/lbm/gen_layout.py; do not edit (spgen.lbm reads the same file).",
        "#pragma once", "", "#include <cstdint>", "",
        "namespace afushell {", "namespace lbm {", "",
        "// One stream element, little-endian 32-bit words, port 0 lowest.",
        "struct Record {", *fields, "};",
        f"inline constexpr unsigned RECORD_BYTES = {RECORD_DTYPE.itemsize};",
        "static_assert(sizeof(Record) == RECORD_BYTES, \"an LBM record has no padding\");",
        "// numpy's descr of the record (spgen.lbm.RECORD_DTYPE), for .npy files",
        f"inline constexpr const char* RECORD_NPY_DESCR = \"[{descr}]\";", "",
        f"// attr bits [1:0] ({doc['attr_mask']}: the mask); the other codes are walls to the core.",
        f"enum : std::uint32_t {{ {codes} }};",
        f"inline constexpr std::uint32_t ATTR_MASK = {doc['attr_mask']};", "",
        f"inline constexpr int Q = {q};",
        f"inline constexpr int E[Q][2] = {_cpp_list(_cpp_list(e) for e in doc['lattice']['e'])};",
        "// numerator / denominator in double, as spgen.lbm.WEIGHTS",
        "inline constexpr double W[Q] = "
        + _cpp_list(f"{n}.0 / {d}" for n, d in doc["lattice"]["weights"]) + ";",
        f"inline constexpr int OPP[Q] = {_cpp_list(doc['lattice']['opposite'])};", "",
        "}  // namespace lbm", "}  // namespace afushell", ""])
