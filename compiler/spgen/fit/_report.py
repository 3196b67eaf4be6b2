"""The resource and timing report: units mapped once each, summed over the design's tree."""
from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ._alm import PAC_AFU, Resources, resources
from ._timing import CLOCK_NS, MODEL, OVER_LISTED
from ._yosys import FAMILY, Sources, is_hard_fp, map_unit

__all__ = ["FIM_ALLOWANCE", "PUBLISHED_RESOURCES", "design_report", "fit", "fit_lines", "format_report",
           "published_rows", "published_table", "timing_lines", "write_json"]

# Published resources of the RIKEN LBM design on the Intel PAC, FIM included
# (docs/reference.md): cores -> ALMs, block-memory bits, RAM blocks, DSPs.
PUBLISHED_RESOURCES = {1: (53_183, 1_779_295, 482, 84), 2: (64_835, 2_468_350, 753, 168),
                       4: (87_973, 3_846_460, 1_295, 336), 8: (134_486, 6_602_680, 2_379, 672),
                       12: (219_203, 8_897_260, 1_506, 1_008)}
# What the published totals hold besides their cores (the FIM and their shell): the 1-core
# total less one core's growth (1 -> 2 cores).
FIM_ALLOWANCE = tuple(a - (b - a) for a, b in zip(PUBLISHED_RESOURCES[1], PUBLISHED_RESOURCES[2]))
_HARD = Resources(dsps=1, hard_fp=1)
_FIT_KEYS = (("alms", "ALMs"), ("bram_bits", "block-memory bits"), ("m20k", "M20K"),
             ("dsps", "DSPs"))


def _ukey(module: str, params: dict) -> str:
    return f"{module} {json.dumps(params, sort_keys=True)}" if params else module


def _map_tree(src: Sources, top: str, params: dict, progress: bool, desc: str) -> dict:
    """Every unit under `top`, mapped (or read from the cache) once, in parallel."""
    from tqdm import tqdm

    units: dict[str, dict] = {}
    level = [(top, params)]
    jobs = max(1, min(2, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=jobs) as pool, \
            tqdm(total=1, desc=desc, unit="module", file=sys.stderr, disable=not progress,
                 leave=False) as bar:
        while level:
            futs = [(u, pool.submit(map_unit, src, *u)) for u in level]
            nxt: list[tuple[str, dict]] = []
            for (m, p), f in futs:
                res = f.result()
                units[_ukey(m, p)] = res
                bar.update(1)
                bar.set_postfix_str(m[-40:])
                for ch in res["children"]:
                    k = _ukey(ch["module"], ch["params"])
                    if k not in units and not is_hard_fp(ch["module"]) \
                            and (ch["module"], ch["params"]) not in nxt:
                        nxt.append((ch["module"], ch["params"]))
            bar.total += len(nxt)
            bar.refresh()
            level = nxt
    return units


def _sum(units: dict[str, dict], key: str, memo: dict[str, Resources]) -> Resources:
    if key not in memo:
        u = units[key]
        total = resources(u["cells"], u["memories"])
        for ch in u["children"]:
            sub = _HARD if is_hard_fp(ch["module"]) \
                else _sum(units, _ukey(ch["module"], ch["params"]), memo)
            total = total + sub * ch["count"]
        memo[key] = total
    return memo[key]


def _instances(units: dict[str, dict], root: str) -> dict[str, int]:
    """How many times each unit occurs in the design (units form a DAG)."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(k: str) -> None:
        if k in seen:
            return
        seen.add(k)
        for ch in units[k]["children"]:
            if not is_hard_fp(ch["module"]):
                visit(_ukey(ch["module"], ch["params"]))
        order.append(k)

    visit(root)
    count = dict.fromkeys(order, 0)
    count[root] = 1
    for k in reversed(order):
        for ch in units[k]["children"]:
            if not is_hard_fp(ch["module"]):
                count[_ukey(ch["module"], ch["params"])] += count[k] * ch["count"]
    return count


def fit(total: Resources) -> dict:
    """Use, capacity and headroom per resource of the PAC's AFU region."""
    t = total.to_json()
    rows = {k: {"used": t[k], "available": PAC_AFU[k], "headroom": PAC_AFU[k] - t[k],
                "percent": round(100 * t[k] / PAC_AFU[k], 1)} for k, _ in _FIT_KEYS}
    return {"region": "Intel PAC AFU region (Arria 10 GX 1150)", "resources": rows,
            "fits": all(r["headroom"] >= 0 for r in rows.values())}


def design_report(src: Sources, top: str, params: dict, *, groups: dict[str, str] | None = None,
                  progress: bool = True, desc: str = "fit") -> dict:
    """Map the design under `top` unit by unit and sum it. `groups` names subtrees:
    label -> module whose first unit's subtree (one instance) is reported as well."""
    t0 = time.perf_counter()
    units = _map_tree(src, top, params, progress, desc)
    root = _ukey(top, params)
    memo: dict[str, Resources] = {}
    total = _sum(units, root, memo)
    count = _instances(units, root)
    rows = []
    by_module: dict[str, Resources] = {}
    for k, u in units.items():
        own = resources(u["cells"], u["memories"]) + sum(
            (_HARD * ch["count"] for ch in u["children"] if is_hard_fp(ch["module"])), Resources())
        by_module[u["module"]] = by_module.get(u["module"], Resources()) + own * count[k]
        rows.append({"module": u["module"], "params": u["params"], "instances": count[k],
                     "own": own.to_json(), "subtree": memo[k].to_json(), "timing": u["timing"],
                     "memories": u["memories"], "seconds": u["seconds"], "cached": u["cached"]})
    found = {}
    for label, module in (groups or {}).items():
        keys = [k for k, u in units.items() if u["module"] == module]
        if keys:
            found[label] = {"module": module, "instances": sum(count[k] for k in keys),
                            "one": memo[keys[0]].to_json(),
                            "all": sum((memo[k] * count[k] for k in keys), Resources()).to_json()}
    return {"family": FAMILY, "clock_ns": CLOCK_NS, "timing_model_ns": MODEL, "top": top,
            "params": params, "total": total.to_json(), "groups": found,
            "by_module": {m: r.to_json() for m, r in sorted(by_module.items())},
            "units": rows, "fit": fit(total),
            "timing_failures": [{"module": r["module"], "params": r["params"], **r["timing"]}
                                for r in rows if not r["timing"]["meets"]],
            "mapped": sum(not u["cached"] for u in units.values()),
            "from_cache": sum(u["cached"] for u in units.values()),
            "seconds": round(time.perf_counter() - t0, 2)}


def published_rows(per_depth: dict[int, tuple[Resources, Resources]]) -> list[dict]:
    """Our cascades beside the published ones. `per_depth`: N -> (the cascade of N cores
    with its wrapper, the whole AFU: cascade and shell, what must fit the AFU region)."""
    rows = []
    for n, (casc, afu) in sorted(per_depth.items()):
        c = casc.to_json()
        rows.append({"cascade": n, "cores": c, "afu": afu.to_json(),
                     "cores_with_fim_allowance": [c["alms"] + FIM_ALLOWANCE[0],
                                                  c["bram_bits"] + FIM_ALLOWANCE[1],
                                                  c["m20k"] + FIM_ALLOWANCE[2],
                                                  c["dsps"] + FIM_ALLOWANCE[3]],
                     "published": list(PUBLISHED_RESOURCES.get(n, ())) or None,
                     "fit": fit(afu)})
    return rows


def published_table(rows: list[dict]) -> str:
    """The side-by-side table of published_rows()."""
    a = FIM_ALLOWANCE
    lines = [(f"Cascades beside the published design (FIM allowance: published 1-core total less "
             f"one core's growth = {a[0]:,} ALMs, {a[1]:,} bits, {a[2]:,} RAM blocks, "
             f"{a[3]} DSPs):"),
             (f"{'N':>3} | {'AFU ALMs':>9} {'M20K':>5} {'DSP':>5} {'fits':>4} | "
             f"{'cores+FIM ALMs':>14} {'bits':>10} {'RAM':>5} {'DSP':>5} | "
             f"{'pub. ALMs':>9} {'bits':>10} {'RAM':>5} {'DSP':>5}")]
    for r in rows:
        f, w, p = r["afu"], r["cores_with_fim_allowance"], r["published"]
        pub = (f"{p[0]:>9,} {p[1]:>10,} {p[2]:>5,} {p[3]:>5,}" if p
               else f"{'-':>9} {'-':>10} {'-':>5} {'-':>5}")
        lines.append(f"{r['cascade']:>3} | {f['alms']:>9,} {f['m20k']:>5,} {f['dsps']:>5,} "
                     f"{'yes' if r['fit']['fits'] else 'NO':>4} | {w[0]:>14,} {w[1]:>10,} "
                     f"{w[2]:>5,} {w[3]:>5,} | {pub}")
    return "\n".join(lines)


def _params(p: dict) -> str:
    s = ",".join(f"{k}={v}" for k, v in p.items() if len(str(v)) <= 12)  # no IDs, no defaults
    return s if len(s) <= 40 else s[:37] + "..."


def format_report(rep: dict, title: str) -> str:
    """The printed table: per module, the groups, the fit and the timing."""
    lines = [(f"{title}: yosys synth_intel_alm -family {rep['family']}, "
             f"{rep['mapped']} modules mapped, {rep['from_cache']} from the cache "
             f"({rep['seconds']:.1f} s)"),
             (f"  {'module':<34} {'inst':>5} {'ALMs':>8} {'FFs':>8} {'M20K':>5} {'DSP':>5} "
             f"{'levels':>6} {'ns':>6}")]
    for r in sorted(rep["units"], key=lambda r: -r["own"]["alms"] * r["instances"]):
        o, t = r["own"], r["timing"]
        name = r["module"] + (f" ({_params(r['params'])})" if r["params"] else "")
        lines.append(f"  {name[:34]:<34} {r['instances']:>5} {o['alms'] * r['instances']:>8,} "
                     f"{o['ffs'] * r['instances']:>8,} {o['m20k'] * r['instances']:>5,} "
                     f"{o['dsps'] * r['instances']:>5,} {t['lut_levels']:>6} "
                     f"{t['delay_ns']:>6.2f}{'' if t['meets'] else ' !'}")
    for label, g in rep["groups"].items():
        o = g["one"]
        lines.append(f"  {label:<10} x{g['instances']:<3} {g['module']}: {o['alms']:,} ALMs, "
                     f"{o['ffs']:,} FFs, {o['m20k']:,} M20K ({o['bram_bits']:,} bits), "
                     f"{o['dsps']:,} DSPs each")
    t = rep["total"]
    lines.append(f"  total: {t['alms']:,} ALMs (logic {t['logic_alms']:,}, registers/4 "
                 f"{t['ff_alms']:,}, LUT RAM {t['mlab_alms']:,}), {t['ffs']:,} FFs, "
                 f"{t['m20k']:,} M20K ({t['bram_bits']:,} bits), {t['dsps']:,} DSPs "
                 f"({t['hard_fp']} hard FP)")
    lines += fit_lines(rep["fit"])
    lines += timing_lines(rep["timing_failures"], rep["clock_ns"])
    return "\n".join(lines)


def timing_lines(fails: list[dict], clock_ns: float = CLOCK_NS) -> list[str]:
    """The modules whose worst path is past the clock, with that path."""
    lines = ["  timing (estimate, no placement or routing): "
             + (f"{len(fails)} module(s) over {clock_ns} ns" if fails
                else f"every module within {clock_ns} ns")]
    for f in sorted(fails, key=lambda f: -f["delay_ns"]):
        name = f["module"] + (f" ({_params(f['params'])})" if f["params"] else "")
        lines.append(f"    {name}: {f['delay_ns']:.2f} ns, {f['lut_levels']} LUT levels"
                     f" + {f['carry_bits']} carry bits, {f['from']} -> {f['to']}")
        over = f.get("over", [])
        if len(over) > 1:
            lines.append(f"      registers past the clock ({len(over)}"
                         f"{' slowest' if len(over) == OVER_LISTED else ''}): "
                         + ", ".join(f"{o['to']} {o['delay_ns']:.2f} ns/{o['lut_levels']}"
                                     for o in over))
    return lines


def fit_lines(f: dict) -> list[str]:
    r = f["resources"]
    return [f"  fits the PAC AFU region: {'yes' if f['fits'] else 'NO'} (headroom "
            + ", ".join(f"{label} {r[k]['headroom']:,} = {100 - r[k]['percent']:.1f} %"
                        for k, label in _FIT_KEYS) + ")"]


def write_json(path: Path, rep: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rep, indent=1) + "\n")
