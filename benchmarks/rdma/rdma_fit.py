"""Resources and timing of the RDMA block on the Arria 10 (spgen.fit: Yosys 0.23,
`synth_intel_alm -family cyclone10gx`, the packing rule and timing model of docs/fit.md): every
module of `afu_rdma_top` beside the shell (engines, router, link ports, stream endpoints, the
reduction unit and its adders, word and line buffers, CSRs) as the card builds of 40 and 100 Gb/s
links instantiate it (`spgen build --loopback --links 2 --link-gbps G`), mapped one unit at a time
(children black boxes) with a time limit per unit: a unit Yosys does not finish in time is listed
as such and the block's total is then a lower bound. Per unit: ALMs, registers, M20K, DSPs, LUT
levels, the model's delay and the Fmax it implies against the 200 MHz card clock. Prints a table;
--json writes the records after every unit, so a cut-short run keeps what it measured.

    nice python benchmarks/rdma/rdma_fit.py --json benchmarks/rdma/rdma_fit.json [--timeout 300]
        [--retry rdma_router]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "compiler"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from machine import cpu_name  # the machine's CPU, as the other benchmarks name it
from spgen._diagnostics import SpgenError
from spgen.fit import CLOCK_NS, FAMILY, Sources, resources
from spgen.fit._report import _ukey  # a unit's name: module and parameters
from spgen.fit._yosys import MapTimeout, is_hard_fp, map_unit
from spgen.shellgen import write_project

SHELL = "afu_shell"  # the shell's own report: spgen build --loopback --resources (docs/fit.md)
KEYS = ("alms", "ffs", "m20k", "bram_bits", "dsps")


def _sources(gbps: int, where: Path) -> tuple[Sources, dict]:
    """The RTL and afu_rdma_top's parameters of a loop-back card with 2 links at `gbps`."""
    p = write_project(where / f"link2_{gbps}", None, None, 0, links=2, link_gbps=gbps)
    src = Sources(include_dirs=[Path(p.root) / "rtl" / "shell"])
    src.add_files(Path(p.root) / f for f in p.rtl)
    return src, dict(p.params)


def _record(u: dict) -> dict:
    r = resources(u["cells"], u["memories"]).to_json()
    hard = sum(ch["count"] for ch in u["children"] if is_hard_fp(ch["module"]))
    t = u["timing"]
    return {**{k: r[k] for k in KEYS}, "dsps": r["dsps"] + hard,
            "lut_levels": t["lut_levels"], "carry_bits": t["carry_bits"], "delay_ns": t["delay_ns"],
            "fmax_mhz": round(1000.0 / t["delay_ns"], 1), "meets": t["meets"],
            "path": f"{t['from']} -> {t['to']}"}


def walk(src: Sources, top: str, params: dict, timeout: float, known: dict[str, dict],
         on_unit, retry: frozenset[str] = frozenset()) -> dict[str, dict]:
    """Map every unit under `top` (not under the shell), one at a time, breadth first; a unit
    that did not finish before is tried again only if its module is in `retry`."""
    units: dict[str, dict] = {}
    todo = [(top, params, 1)]
    while todo:
        module, prm, count = todo.pop(0)
        key = _ukey(module, prm)
        if key in units:
            units[key]["instances"] += count
            continue
        rec = {"module": module, "params": prm, "instances": count, "children": []}
        old = known.get(key)
        t0 = time.time()
        if old and old["status"] == "timeout" and old["limit_s"] >= timeout and module not in retry:
            rec.update(status="timeout", limit_s=old["limit_s"])  # not retried: as long again
        else:
            try:
                u = map_unit(src, module, prm, timeout=timeout)
            except MapTimeout:
                rec.update(status="timeout", limit_s=timeout)
            except SpgenError as e:  # Yosys rejects the module's text: say so, map the rest
                rec.update(status="error", error=str(e))
            else:
                rec.update(status="cached" if u["cached"] else "mapped",
                           seconds=u["seconds"], **_record(u))
                rec["children"] = [{"module": c["module"], "params": c["params"], "count": c["count"]}
                                   for c in u["children"] if not is_hard_fp(c["module"])]
        rec["wall_s"] = round(time.time() - t0, 1)
        units[key] = rec
        on_unit(rec)
        todo += [(c["module"], c["params"], count * c["count"]) for c in rec["children"]
                 if c["module"] != SHELL]
    return units


def _instances(units: dict[str, dict], top: str) -> None:
    """Instance counts over the DAG (a unit reached twice in the walk counts both paths)."""
    for u in units.values():
        u["instances"] = 0

    def visit(key: str, n: int) -> None:
        u = units[key]
        u["instances"] += n
        for c in u["children"]:
            k = _ukey(c["module"], c["params"])
            if k in units:
                visit(k, n * c["count"])

    visit(top, 1)


def summary(units: dict[str, dict]) -> dict:
    done = [u for u in units.values() if "alms" in u]
    total = {k: sum(u[k] * u["instances"] for u in done) for k in KEYS}
    return {"total": total, "complete": len(done) == len(units),
            "not_finished": [_ukey(u["module"], u["params"]) for u in units.values() if "alms" not in u],
            "past_clock": sorted(_ukey(u["module"], u["params"]) for u in done if not u["meets"])}


def _row(gbps: int, u: dict) -> str:
    prm = ", ".join(f"{k}={v}" for k, v in sorted(u["params"].items()))
    head = f"| {gbps} | `{u['module']}` | {prm} | {u['instances']} |"
    if "alms" not in u:
        what = f"not finished in {u['limit_s']:g} s" if u["status"] == "timeout" else u["error"]
        return head + f" {what} | | | | | | |"
    return head + (f" {u['alms']:,} | {u['ffs']:,} | {u['m20k']} | {u['dsps']} | {u['lut_levels']} | "
                   f"{u['delay_ns']:.2f} ns | {u['fmax_mhz']:.0f} MHz{'' if u['meets'] else ' !'} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gbps", type=int, nargs="+", default=[40, 100], help="link rates (default 40 100)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per unit (default 600)")
    ap.add_argument("--json", type=Path, help="write the records here (and read it first: units that "
                    "did not finish within at least --timeout there are not retried)")
    ap.add_argument("--retry", nargs="+", default=[], metavar="MODULE",
                    help="map these modules' units again even if they did not finish before")
    a = ap.parse_args(argv)
    old = json.loads(a.json.read_text()) if a.json and a.json.is_file() else {}
    out = {"date": time.strftime("%Y-%m-%d"), "machine": cpu_name(), "yosys": "0.23", "family": FAMILY,
           "clock_ns": CLOCK_NS, "timeout_s": a.timeout,
           "command": "python benchmarks/rdma/rdma_fit.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "builds": {}}
    print("| link | module | parameters | instances | ALMs | registers | M20K | DSPs | LUT levels | "
          "delay | Fmax |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="rdma-fit-") as d:
        for g in a.gbps:
            src, params = _sources(g, Path(d))
            known = {_ukey(u["module"], u["params"]): u
                     for u in old.get("builds", {}).get(str(g), {}).get("units", [])}
            build = out["builds"][str(g)] = {"top": "afu_rdma_top", "params": params, "units": []}

            def on_unit(rec: dict, g: int = g, build: dict = build) -> None:
                build["units"].append(rec)
                print(_row(g, rec), flush=True)
                if a.json:
                    a.json.write_text(json.dumps(out, indent=1) + "\n")

            units = walk(src, "afu_rdma_top", params, a.timeout, known, on_unit, frozenset(a.retry))
            _instances(units, _ukey("afu_rdma_top", params))
            build["units"] = list(units.values())
            build["summary"] = s = summary(units)
            t = s["total"]
            print(f"| {g} | the RDMA block{'' if s['complete'] else ', finished units only'} | | | "
                  f"{t['alms']:,} | {t['ffs']:,} | {t['m20k']} | {t['dsps']} | | | |", flush=True)
    if a.json:
        a.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
