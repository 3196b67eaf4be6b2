"""Arria 10 resource and timing report of spgen's RTL: Yosys maps each module once (docs/fit.md)."""
from __future__ import annotations

import re
from pathlib import Path

from ._alm import PAC_AFU, Resources, m20k_blocks, resources
from ._report import (
    FIM_ALLOWANCE,
    PUBLISHED_RESOURCES,
    design_report,
    fit,
    format_report,
    published_rows,
    published_table,
    timing_lines,
    write_json,
)
from ._timing import CLOCK_NS, MODEL
from ._yosys import FAMILY, Sources, map_unit

__all__ = [
    "CLOCK_NS",
    "FAMILY",
    "FIM_ALLOWANCE",
    "MODEL",
    "PAC_AFU",
    "PUBLISHED_RESOURCES",
    "Resources",
    "Sources",
    "build_report",
    "cascade_report",
    "core_report",
    "core_sources",
    "core_summary",
    "fit",
    "format_report",
    "m20k_blocks",
    "map_unit",
    "project_report",
    "published_rows",
    "published_table",
    "resources",
    "timing_lines",
]

# The project's modules are counted apart in a build's report (spgen build).
_GROUPS = {"core": None, "cascade": "afu_cores", "sort_scatter": "shell_sort_scatter",
           "shell": "afu_shell"}


def core_sources(text: str, name: str, src: Sources | None = None) -> Sources:
    """A generated core's modules: its operators (`<name>_spg_*`) are units of their own,
    its delay lines, ring buffers and output buffer are part of the core's own unit."""
    src = src or Sources()
    for m in src.add_text(text):
        if m != name and not re.match(rf"{re.escape(name)}_spg_", m):
            src.inline.add(m)
    return src


def core_report(text: str, name: str, progress: bool = True) -> dict:
    """The report of one generated core (spgen compile --resources)."""
    return design_report(core_sources(text, name), name, {}, groups={"core": name},
                         progress=progress, desc=f"fit {name}")


def project_report(project, core_name: str | None = None, progress: bool = True) -> dict:
    """The report of a written project (spgen build): cores, cascade, shell, RDMA block,
    the sort's scatter writer; the fit of the whole AFU in the PAC's AFU region."""
    root = Path(project.root)
    src = Sources(include_dirs=[root / "rtl" / "shell"])
    for f in project.rtl:
        text = (root / f).read_text()
        if f == project.core_file and core_name:
            core_sources(text, core_name, src)
        else:
            src.add_text(text)
    groups = {k: (core_name if k == "core" else m) for k, m in _GROUPS.items()}
    if not core_name:
        groups.pop("core")
    rep = design_report(src, project.top, dict(project.params), groups=groups,
                        progress=progress, desc=f"fit {project.top}")
    g = rep["groups"]
    total = Resources(**rep["total"])
    if project.top == "afu_rdma_top" and "shell" in g:
        rdma = (total - Resources(**g["shell"]["all"])).to_json()
        g["rdma"] = {"module": "afu_rdma_top beside afu_shell", "instances": 1, "one": rdma,
                     "all": rdma}
    shell = Resources(**g["shell"]["all"]) if "shell" in g else total
    for inner in ("cascade", "sort_scatter"):
        if inner in g:
            shell = shell - Resources(**g[inner]["all"])
    g["shell"] = {"module": "afu_shell without the cascade and the sort writer",
                  "instances": 1, "one": shell.to_json(), "all": shell.to_json()}
    return rep


def build_report(project, core_name: str | None, progress: bool = True) -> str:
    """spgen build --resources: BUILD/hw/resources.json and the printed summary."""
    rep = project_report(project, core_name, progress=progress)
    write_json(Path(project.root) / "hw" / "resources.json", rep)
    return format_report(rep, f"resources of {project.top}") + \
        f"\n  wrote {Path(project.root) / 'hw' / 'resources.json'}"


def core_summary(text: str, name: str, json_path: str | Path | None = None) -> str:
    """spgen compile --resources: the printed report, and the JSON where asked."""
    rep = core_report(text, name)
    if json_path:
        write_json(Path(json_path), rep)
    return format_report(rep, f"resources of core {name}")


def cascade_report(core_text: str, core_name: str, interface, depths: list[int],
                   progress: bool = True) -> dict:
    """Whole AFUs of 1, 2, ... cores (spgen bench lbm --resources): each project written to
    a scratch folder and reported; beside the published figures."""
    import tempfile

    from ..shellgen import write_project

    per: dict[int, tuple[Resources, Resources]] = {}
    reps = {}
    with tempfile.TemporaryDirectory(prefix="spgen-fit-") as d:
        for n in depths:
            p = write_project(Path(d) / f"n{n}", interface, core_text, n)
            rep = project_report(p, core_name, progress=progress)
            per[n] = (Resources(**rep["groups"]["cascade"]["one"]), Resources(**rep["total"]))
            reps[n] = rep
    last = reps[max(depths)]
    return {"core": core_name, "rows": published_rows(per),
            "groups": {n: r["groups"] for n, r in reps.items()},
            "timing_failures": last["timing_failures"],
            "by_module": last["by_module"], "units": last["units"],
            "mapped": sum(r["mapped"] for r in reps.values()),
            "seconds": round(sum(r["seconds"] for r in reps.values()), 2)}
