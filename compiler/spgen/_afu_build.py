"""`spgen.build`: a core's AFU project (or the loop-back's) and its simulated card, as one call."""
from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._diagnostics import Diagnostics, SpgenError

__all__ = ["Build", "build", "link_card"]


@dataclass
class Build:
    """What `build` made: the folder, the simulated card's library and the project's checks.

    ``notes`` are remarks a user should see (e.g. why the fast core model fell back to the
    RTL); ``diagnostics`` the compiler's warnings for the core; ``project`` the shell
    generator's project (its file lists and parameters, what the resource report reads).
    """

    out: Path
    core: str | None
    params: dict[str, Any]
    core_model: str | None
    card: Path | None
    checks: list[str]
    files: dict[str, str]
    seconds: float
    project: Any
    diagnostics: Diagnostics | None = None
    notes: list[str] = field(default_factory=list)

    def summary(self, cascade: int) -> str:
        """The lines `spgen build` prints."""
        what = f"{cascade} x {self.core}" if self.core else "loop-back"
        lines = [f"AFU ({what}) in {self.out}  ({self.seconds:.1f} s)"]
        lines += [f"  ok  {c}" for c in self.checks]
        lines += [f"  {role:<14} {self.out / path}" for role, path in self.files.items()]
        return "\n".join(lines)


def _fast_model(design, out: Path, notes: list[str]):
    """The fast core model written to ``sim/``, or None (RTL) with the reason in ``notes``."""
    from .backend.fast import FastModelUnsupported, fast_core_model

    try:
        fast = fast_core_model(design.graph, design.verilog.report, ftz=design.ftz)
    except FastModelUnsupported as e:
        notes.append(f"{e}; the card simulates the RTL core instead")
        return None
    (out / "sim").mkdir(parents=True, exist_ok=True)
    (out / "sim" / f"{fast.name}_fast.v").write_text(fast.verilog)
    return fast


def _card_info(core, vcore, design, project, links: int, link_gbps: int, op_timeout: int,
               sort_scatter: bool, model: str | None) -> dict[str, object]:
    """The facts the runtime reads from the card library (its build.json-like info)."""
    from .runtime._build import link_bits

    info: dict[str, object] = {"target": core.name if core else "loopback",
                               "n_cores": project.params["N_CORES"]}
    if links:
        info.update(links=links, link_bits=link_bits(project.params), link_gbps=link_gbps,
                    rdma_op_timeout=op_timeout)
        # what the cluster checks between cards: a stream's element size on both ends
        if core and core.brch_in_words:
            info["brch_in_words"] = core.brch_in_words
        if core and core.brch_out_words:
            info["brch_out_words"] = core.brch_out_words
    if sort_scatter:
        info["sort_scatter"] = 1
    if not core:
        return info
    for i, (name, _) in enumerate(core.regs):
        info[f"reg.{name}"] = i
    # the records' fields (name:type, port 0 first), so the runtime returns typed records
    for port, key in (("s_data", "in_ports"), ("m_data", "out_ports")):
        info[key] = ",".join(f"{q['name']}:{q['type']}" for q in vcore.report["ports"][port])
    # each Reg's type, so the runtime converts values by it (a float to its binary32 bits)
    for r in vcore.report.get("registers", []):
        info[f"regtype.{r['name']}"] = r["type"]
    # the core's Params as built: the runtime and host helpers check them (a stencil
    # core's line buffers hold rows of exactly W cells: another width gives wrong results)
    for name, value in design.graph.params.items():
        info[f"param.{name}"] = value
    if model == "fast":  # RTL cards keep their content hash (and cached builds)
        info["core_model"] = model
    return info


def build(program: str | os.PathLike | None, out: str | os.PathLike, *, top: str | None = None,
          params: Mapping[str, Any] | None = None, ftz: bool = False, hard_fp: bool = False,
          cascade: int = 1, links: int = 0, link_gbps: int = 40, op_timeout: int = 2_000_000,
          sort_scatter: bool = False, sim: bool = True, core_model: str = "rtl") -> Build:
    """Builds the AFU of ``cascade`` instances of ``program``'s core (``None``: the loop-back,
    TX straight into RX) into the folder ``out``: rtl/, hw/ (the Quartus project's files),
    sim/libafucard.so (the simulated card, unless ``sim`` is false) and build.json.

    ``links`` (1..4) adds the RDMA block with that many serial-link ports at ``link_gbps``;
    ``core_model="fast"`` simulates the cores with the emulator's native kernel where that
    is exact. The simulated card comes from the build cache while its sources stay the same.
    Raises `SpgenError` (or `CompileError`) on bad arguments or a failed check.
    """
    from .shellgen import check_project, core_interface, write_project

    t0 = time.perf_counter()
    if not 1 <= cascade <= 255:
        raise SpgenError(f"--cascade {cascade}: must be 1..255")
    if links and not 1 <= links <= 4:
        raise SpgenError(f"--links {links}: must be 1..4")
    if op_timeout < 1000:
        raise SpgenError(f"--op-timeout {op_timeout}: at least 1000 cycles")
    if core_model not in ("rtl", "fast"):
        raise SpgenError(f"core_model must be 'rtl' or 'fast', got {core_model!r}")
    out = Path(out).resolve()   # tools run with the build folder as cwd
    core = text = design = vcore = None
    if program is not None:
        from ._design import compile as spgen_compile

        design = spgen_compile(program, top=top, params=dict(params or {}), ftz=ftz,
                               hard_fp=hard_fp)
        vcore = design.verilog
        core, text = core_interface(vcore.report), vcore.hw_text
        out.mkdir(parents=True, exist_ok=True)
        (out / "core.json").write_text(json.dumps(vcore.report, indent=2) + "\n")
    project = write_project(out, core, text, cascade, links=links, link_gbps=link_gbps,
                            op_timeout=op_timeout, sort_scatter=sort_scatter,
                            dsp=vcore.dsp_sources() if core else None)
    # The project's checks (mostly Verilator's lint) run beside the card's build: they are
    # independent and of about the same length, so the build takes the time of one of them.
    pool = ThreadPoolExecutor(max_workers=1)
    checking = pool.submit(check_project, project)
    pool.shutdown(wait=False)
    notes: list[str] = []
    sources = [out / f for f in project.rtl]
    fast = None
    model = "rtl" if core else None
    if core and core_model == "fast":
        fast = _fast_model(design, out, notes)
        if fast is not None:
            sources[project.rtl.index(project.core_file)] = out / "sim" / f"{core.name}_fast.v"
            model = "fast"

    checks: list[str] = []
    card = None
    if sim:
        from .runtime._build import build_card

        info = _card_info(core, vcore, design, project, links, link_gbps, op_timeout,
                          sort_scatter, model)
        lib = build_card(sources, params=project.params, include_dirs=[out / "rtl" / "shell"],
                         info=info, top=project.top, fast_core=fast)
        (out / "sim").mkdir(exist_ok=True)
        card = out / "sim" / "libafucard.so"
        # a new file renamed over the old one, never written in place: a simulation still
        # running the previous build has that file mapped, and truncating it kills the
        # simulation with SIGBUS
        tmp = card.with_name(f"{card.name}.{os.getpid()}.tmp")
        shutil.copyfile(lib, tmp)
        os.replace(tmp, card)
        checks.append(f"simulated card: {card} (cached build {lib.parent.name})")

    checks = checking.result() + checks
    summary = {"core": core.name if core else None, "params": project.params,
               "core_model": model,
               "core_params": dict(design.graph.params) if core else {},
               "links": links, "link_gbps": link_gbps if links else None,
               "rtl": project.rtl, "hw_rtl": project.hw_rtl, "files": project.files,
               "checks": checks,
               "card": str(card) if card else None}
    (out / "build.json").write_text(json.dumps(summary, indent=2) + "\n")
    return Build(out=out, core=core.name if core else None, params=project.params,
                 core_model=model, card=card, checks=checks, files=project.files,
                 seconds=time.perf_counter() - t0, project=project,
                 diagnostics=design.diagnostics if design else None, notes=notes)


def link_card(links: int = 4, op_timeout: int = 100_000, sort_scatter: bool = False) -> Path:
    """A loop-back card with ``links`` RDMA link ports (C++ tests, ``make sanitize``; with
    the sort's scatter writer if ``sort_scatter``) built into the cache; its library is
    reused while the sources stay the same."""
    from ._tools import locked
    from .runtime._build import cache_dir

    out = cache_dir("card") / (f"loopback-links{links}-timeout{op_timeout}" + ("-scatter" if sort_scatter else ""))
    with locked(out.with_suffix(".lock")):
        build(None, out, links=links, op_timeout=op_timeout, sort_scatter=sort_scatter)
    return out / "sim" / "libafucard.so"
