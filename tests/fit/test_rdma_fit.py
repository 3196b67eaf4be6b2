"""The RDMA block's committed resource figures (benchmarks/rdma/rdma_fit.json): their shape, the
totals they claim, cheap units re-mapped to the same figures, the reduction unit within the card's
clock; and the per-unit time limit that keeps slow units from blocking the report."""
from __future__ import annotations

import functools
import importlib.util
import json
import uuid
from pathlib import Path

import pytest
from spgen import fit
from spgen.fit._yosys import MapTimeout, map_unit

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "rdma" / "rdma_fit.py"
FIGURES_KEYS = ("alms", "ffs", "m20k", "bram_bits", "dsps", "lut_levels", "carry_bits", "delay_ns",
                "fmax_mhz", "meets", "path")


@functools.cache
def _figures() -> dict:
    return json.loads(SCRIPT.with_suffix(".json").read_text())


def _script():
    spec = importlib.util.spec_from_file_location("rdma_fit", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _units(gbps: str) -> dict[str, dict]:
    return {u["module"] + json.dumps(u["params"], sort_keys=True): u
            for u in _figures()["builds"][gbps]["units"]}


def test_figures_name_machine_command_and_cover_both_link_rates() -> None:
    assert _figures()["family"] == fit.FAMILY and _figures()["clock_ns"] == fit.CLOCK_NS
    assert _figures()["date"] and _figures()["machine"] and "rdma_fit.py" in _figures()["command"]
    assert set(_figures()["builds"]) == {"40", "100"}
    for gbps, build in _figures()["builds"].items():
        assert build["top"] == "afu_rdma_top"
        assert build["params"]["RDMA_LANES"] == {"40": 16, "100": 32}[gbps]
        mods = {u["module"] for u in build["units"]}
        assert {"afu_rdma_top", "rdma_node", "rdma_reduce", "rdma_chunks", "spg_fadd"} <= mods


@pytest.mark.parametrize("gbps", ["40", "100"])
def test_every_unit_is_measured_or_says_why_not_and_the_totals_add_up(gbps: str) -> None:
    build = _figures()["builds"][gbps]
    done = []
    for u in build["units"]:
        assert u["instances"] >= 1, u["module"]
        assert u["status"] in ("mapped", "cached", "timeout", "error"), u
        if u["status"] == "timeout":
            assert u["limit_s"] > 0 and "alms" not in u
        elif u["status"] == "error":
            assert u["error"] and "alms" not in u
        else:
            assert all(k in u for k in FIGURES_KEYS), u["module"]
            assert u["fmax_mhz"] == round(1000.0 / u["delay_ns"], 1)
            assert u["meets"] == (u["delay_ns"] <= _figures()["clock_ns"])
            done.append(u)
    s = build["summary"]
    for k in ("alms", "ffs", "m20k", "dsps"):
        assert s["total"][k] == sum(u[k] * u["instances"] for u in done)
    assert len(s["not_finished"]) == len(build["units"]) - len(done)
    assert s["complete"] == (not s["not_finished"])
    # four chunk counters in the one reduction unit; one f32 adder a lane
    units = _units(gbps)
    assert units["rdma_chunks{}"]["instances"] == 4
    assert units['spg_fadd{"FTZ": 0}']["instances"] == 16


@pytest.mark.parametrize("gbps", ["40", "100"])
def test_reduction_unit_meets_the_card_clock(gbps: str) -> None:
    units = _units(gbps)
    red = next(u for u in units.values() if u["module"] == "rdma_reduce")
    assert red["meets"] and red["lut_levels"] <= 5, red
    assert units["rdma_chunks{}"]["meets"]


@pytest.mark.parametrize("module", ["rdma_chunks", "rdma_reduce_csr"])
def test_cheap_units_map_to_their_committed_figures(module: str, tmp_path: Path) -> None:
    src, _ = _script()._sources(40, tmp_path)
    rec = _script()._record(map_unit(src, module, {}))
    want = _units("40")[module + "{}"]
    assert {k: rec[k] for k in FIGURES_KEYS} == {k: want[k] for k in FIGURES_KEYS}


def test_a_unit_past_its_time_limit_is_cut_and_not_cached() -> None:
    src = fit.Sources()
    name = f"slow_{uuid.uuid4().hex[:8]}"  # a module no cache holds
    src.add_text(f"module {name} (input wire clk, input wire [511:0] a, output reg [511:0] y);\n"
                 "  integer i;\n  always @(posedge clk) for (i = 0; i < 512; i = i + 1) y[i] <= ^(a >> i) * a[i];\n"
                 "endmodule\n")
    with pytest.raises(MapTimeout, match=f"{name}: yosys did not map the unit within 0.05 s"):
        map_unit(src, name, {}, timeout=0.05)
    assert not list(fit._yosys.cache_dir("fit").glob(f"{name}-*.json"))
