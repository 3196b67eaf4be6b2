"""One Yosys run per unit: a module with its parameters mapped onto Intel ALM cells."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .._diagnostics import SpgenError
from .._tools import cache_dir, content_hash
from ._timing import worst_path

__all__ = ["FAMILY", "MapTimeout", "Sources", "is_hard_fp", "map_unit", "yosys_exe"]

FAMILY = "cyclone10gx"  # Arria 10's 20 nm ALM fabric with M20K blocks (docs/fit.md)
# Part of every cache key: bump when the script or the stored result changes.
_VERSION = "fit-2"   # fit-2: timing lists the registers past the clock
_MODULE = re.compile(r"^[ \t]*module\s+(\w+)\b.*?^[ \t]*endmodule\b", re.DOTALL | re.MULTILINE)
# `name #(` or `name inst (` / `name inst [N:0] (`: filtered by the known module names
_INSTANCE = re.compile(r"^\s*(\w+)\s*(?:#\s*\(|\w+\s*(?:\[[^\]]*\]\s*)?\()", re.MULTILINE)
_INCLUDE = re.compile(r'^\s*`include\s+"([^"]+)"', re.MULTILINE)
# An Arria 10 hard floating-point DSP: spgen's wrappers (renamed <core>_spg_dsp_* inside a
# core) and the Quartus primitive they instantiate. Always a black box of one DSP.
_HARD_FP = re.compile(r"(?:^|_)spg_dsp_\w+$|^twentynm_fp_mac$")
_DSP_STUB = ("(* blackbox *) module {name} (input wire clk, input wire ce, input wire [31:0] a, "
             "input wire [31:0] b, output wire [31:0] y);\nendmodule\n")
_OUT_PORT = re.compile(r"^(result|chainout)|(overflow|underflow|inexact|invalid)$")


class MapTimeout(SpgenError):
    """Yosys did not map a unit within the time it was given (nothing is cached)."""


def is_hard_fp(module: str) -> bool:
    return bool(_HARD_FP.search(module))


def yosys_exe() -> str:
    exe = shutil.which("yosys")
    if not exe:
        raise SpgenError("yosys is not installed (the native one, with ABC): run "
                         "scripts/ensure-system-packages.sh or `apt-get install yosys`")
    return exe


@dataclass
class Sources:
    """The Verilog modules of a design, and which of them are inlined into their parent.

    Every instantiated module is its own unit (mapped once per parameter set, a black box
    in its parent) unless it is in `inline`; hard FP DSPs are always black boxes."""

    modules: dict[str, str] = field(default_factory=dict)
    include_dirs: list[Path] = field(default_factory=list)
    inline: set[str] = field(default_factory=set)

    def add_text(self, text: str) -> list[str]:
        names = []
        for m in _MODULE.finditer(text):
            self.modules[m.group(1)] = m.group(0)
            names.append(m.group(1))
        return names

    def add_files(self, paths) -> None:
        for p in paths:
            self.add_text(Path(p).read_text())

    def children(self, module: str) -> list[str]:
        """Modules `module` instantiates (defined here, or hard FP black boxes)."""
        seen: list[str] = []
        for name in _INSTANCE.findall(self.modules[module]):
            if name != module and name not in seen and (name in self.modules or is_hard_fp(name)):
                seen.append(name)
        return seen

    def closure(self, top: str) -> tuple[list[str], list[str]]:
        """(modules mapped in `top`'s run, top first; modules that are black boxes there)."""
        mapped, boxes, todo = [top], [], [top]
        while todo:
            for c in self.children(todo.pop()):
                if c in mapped or c in boxes:
                    continue
                if c in self.inline and not is_hard_fp(c):
                    mapped.append(c)
                    todo.append(c)
                else:
                    boxes.append(c)
        return mapped, boxes

    def _includes(self, texts: list[str]) -> list[str]:
        """The include files `texts` name (found in the include folders), recursively."""
        names: list[str] = []
        out: list[str] = []
        todo = list(texts)
        while todo:
            for n in _INCLUDE.findall(todo.pop()):
                found = [Path(d) / n for d in self.include_dirs if (Path(d) / n).is_file()]
                if n not in names and found:
                    names.append(n)
                    out.append(found[0].read_text())
                    todo.append(out[-1])
        return [f"{n}\n{t}" for n, t in sorted(zip(names, out))]

    def key(self, top: str, params: dict) -> str:
        mapped, boxes = self.closure(top)
        texts = [self.modules.get(m, m) for m in mapped + boxes]
        return content_hash(_VERSION, FAMILY, top, json.dumps(sorted(params.items())),
                            json.dumps(boxes), *texts, *self._includes(texts))


def _param_value(v) -> str:
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    s = str(v)
    return s if re.fullmatch(r"\d*'[sS]?[bBoOdDhH][0-9a-fA-FxXzZ_]+|-?\d+", s) else json.dumps(s)


def _json_params(p: dict[str, str]) -> dict[str, object]:
    """Cell parameters of Yosys' JSON as the ints (or Verilog literals) `chparam` takes."""
    out: dict[str, object] = {}
    for k, v in sorted(p.items()):
        if isinstance(v, int):
            out[k] = v
        elif v and set(v) <= set("01"):
            out[k] = int(v, 2) if len(v) <= 64 else f"{len(v)}'h{int(v, 2):x}"
        elif v and set(v) <= set("01xz"):
            out[k] = f"{len(v)}'b{v}"
        else:
            out[k] = v.removesuffix(" ")
    return out


def _stub(name: str, texts: list[str]) -> str:
    """A black-box declaration of a hard DSP that no source defines, ports from its uses."""
    if name != "twentynm_fp_mac":
        return _DSP_STUB.format(name=name)
    ports: list[str] = []
    params: list[str] = []
    for t in texts:
        for m in re.finditer(rf"\b{name}\b\s*(?:#\s*\((.*?)\))?\s*\w+\s*\((.*?)\)\s*;", t,
                             re.DOTALL):
            params += [p for p in re.findall(r"\.(\w+)\s*\(", m.group(1) or "") if p not in params]
            ports += [p for p in re.findall(r"\.(\w+)\s*\(", m.group(2)) if p not in ports]
    prm = "#(" + ", ".join(f"parameter {p} = 0" for p in params) + ") " if params else ""
    decl = ", ".join(f"{'output' if _OUT_PORT.search(p) else 'input'} wire [31:0] {p}"
                     for p in ports)
    return f"(* blackbox *) module {name} {prm}({decl});\nendmodule\n"


def _script(top: str, params: dict, boxes: list[str], incs: str) -> str:
    run = f"synth_intel_alm -family {FAMILY} -top {top} -noiopad -noclkbuf"
    lines = [f"read_verilog {incs} unit.v"]
    if boxes:
        lines.append("blackbox " + " ".join(boxes))
    if params:  # all at once: one at a time, a module's parameter checks see mixed values
        lines.append("chparam " + " ".join(f"-set {k} {_param_value(v)}" for k, v in params.items())
                     + f" {top}")
    lines += [f"{run} -run begin:map_bram",
              # the logical memories (width x depth) before they become blocks, MLABs or FFs
              "tee -q -o mems.txt dump t:$mem_v2",
              # synth_intel_alm's own map_bram step, with a map file that accepts the
              # initial contents Yosys 0.23's M20K rules let through (and its map rejects)
              "memory_bram -rules +/intel_alm/common/bram_m20k.txt",
              "techmap -map m20k_map.v",
              f"{run} -run map_lutram:",
              "write_json net.json"]
    return "\n".join(lines) + "\n"


def _m20k_map() -> str:
    """Yosys' M20K map file with an INIT parameter (an M20K's initial contents cost no
    resources; the 0.23 file lacks it and fails on memories with an `initial` block)."""
    share = Path(os.path.realpath(yosys_exe())).parent.parent / "share" / "yosys"
    text = (share / "intel_alm" / "common" / "bram_m20k_map.v").read_text()
    return text.replace("parameter CFG_ABITS", "parameter INIT = 0;\nparameter CFG_ABITS", 1)


def _memories(dump: str, cells: dict) -> list[dict]:
    mems = []
    for m in re.finditer(r"cell \$mem_v2 (\S+)\n(.*?)\n\s*end\b", dump, re.DOTALL):
        prm = dict(re.findall(r"parameter \\(\w+) (\S+)", m.group(2)))
        name = m.group(1).lstrip("\\")

        def num(v: str) -> int:
            return int(v.split("'")[1], 2) if "'" in v else int(v)

        width, depth = num(prm["WIDTH"]), num(prm["SIZE"])
        mine = [c["type"] for n, c in cells.items() if n.startswith(name + ".")]
        kind = ("m20k" if "altsyncram" in mine else "mlab" if "MISTRAL_MLAB" in mine else "ff")
        mems.append({"name": name, "width": width, "depth": depth, "kind": kind,
                     "blocks": mine.count("altsyncram")})
    return mems


def _yosys(d: str, timeout: float | None) -> subprocess.CompletedProcess:
    """Run the unit's script; past `timeout` seconds Yosys and its ABC children are killed."""
    cmd = [yosys_exe(), "-q", "-l", "log.txt", "-s", "unit.ys"]
    with subprocess.Popen(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as p:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # its own session: yosys and the abc it started
            p.communicate()
            raise MapTimeout(f"yosys did not map the unit within {timeout:g} s") from None
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def map_unit(src: Sources, top: str, params: dict, timeout: float | None = None) -> dict:
    """Map `top` with `params` (children black boxes); cached by content. Past `timeout`
    seconds of Yosys (None: no limit) it raises MapTimeout."""
    key = src.key(top, params)
    cached = cache_dir("fit") / f"{top[:60]}-{key}.json"
    if cached.is_file():
        res = json.loads(cached.read_text())
        res["cached"] = True
        return res
    mapped, boxes = src.closure(top)
    texts = [src.modules[m] for m in mapped]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="spgen-fit-") as d:
        unit = [src.modules[b] if b in src.modules else _stub(b, texts) for b in boxes]
        Path(d, "unit.v").write_text("\n".join(texts + unit) + "\n")
        incs = " ".join(f"-I{Path(i).resolve()}" for i in src.include_dirs)
        Path(d, "unit.ys").write_text(_script(top, params, boxes, incs))
        Path(d, "m20k_map.v").write_text(_m20k_map())
        try:
            r = _yosys(d, timeout)
        except MapTimeout as e:
            raise MapTimeout(f"{top}: {e}") from None
        if r.returncode:
            log = (Path(d, "log.txt").read_text() if Path(d, "log.txt").exists() else "")
            err = [ln for ln in (log + r.stderr).splitlines() if "ERROR" in ln] or [r.stderr[-500:]]
            raise SpgenError(f"yosys could not map {top}: {err[-1].strip()}")
        net = json.loads(Path(d, "net.json").read_text())
        dump = Path(d, "mems.txt").read_text()
    mod = net["modules"][top] if top in net["modules"] else _derived(net, top)
    box_names = set(boxes)
    prims: Counter[str] = Counter()
    kids: Counter[tuple[str, str]] = Counter()
    for cell in mod["cells"].values():
        t = _base_name(cell["type"])
        if t in box_names:
            kids[(t, json.dumps(_json_params(cell.get("parameters", {}))))] += 1
        else:
            prims[t] += 1
    res = {"module": top, "params": params, "cells": dict(sorted(prims.items())),
           "children": [{"module": m, "params": json.loads(p), "count": n}
                        for (m, p), n in sorted(kids.items())],
           "memories": _memories(dump, mod["cells"]),
           "timing": worst_path(mod, box_names),
           "seconds": round(time.perf_counter() - t0, 2)}
    tmp = cached.with_name(f"{cached.name}.tmp")
    tmp.write_text(json.dumps(res, indent=1) + "\n")
    tmp.replace(cached)
    res["cached"] = False
    return res


def _base_name(t: str) -> str:
    r"""`$paramod$<hash>\name` or `$paramod\name\P=V` -> `name`."""
    if t.startswith("$paramod"):
        return t.split("\\")[1]
    return t


def _derived(net: dict, top: str) -> dict:
    for name, mod in net["modules"].items():
        if _base_name(name) == top and mod.get("attributes", {}).get("top"):
            return mod
    for name, mod in net["modules"].items():
        if _base_name(name) == top:
            return mod
    raise SpgenError(f"yosys did not produce module {top}")
