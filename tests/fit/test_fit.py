"""The Arria 10 resource and timing report (spgen.fit): units, packing, DSP black boxes, cache."""
from __future__ import annotations

from pathlib import Path

import pytest
import spgen
from spgen import fit
from spgen._diagnostics import SpgenError
from spgen.cli import main
from spgen.fit import _budget

PROGRAMS = Path(__file__).parent / "programs"


def _core(name: str):
    return spgen.compile(str(PROGRAMS / f"{name}.spd")).verilog


def test_core_report_maps_each_operator_once_and_sums_its_instances():
    core = _core("fitsmall")
    rep = fit.core_report(core.text, core.name, progress=False)
    units = {u["module"]: u for u in rep["units"]}
    fadd = units["fitsmall_spg_fadd"]
    assert fadd["instances"] == core.report["operations"]["fadd"] == 2
    assert units["fitsmall"]["instances"] == 1
    # the ring buffer of shift(b, 40) is part of the core's own unit, in one M20K
    ring = [m for m in units["fitsmall"]["memories"] if m["kind"] == "m20k"]
    assert len(ring) == 1 and units["fitsmall"]["own"]["m20k"] == 1
    assert ring[0]["blocks"] == fit.m20k_blocks(ring[0]["width"], ring[0]["depth"])
    total = rep["total"]
    for key in ("alms", "ffs", "m20k", "lut6", "arith"):
        assert total[key] == sum(u["own"][key] * u["instances"] for u in rep["units"])
    assert total["alms"] >= fadd["own"]["alms"] * 2 > 0
    assert rep["groups"]["core"]["one"] == total
    assert rep["fit"]["fits"] and rep["fit"]["resources"]["alms"]["headroom"] == \
        fit.PAC_AFU["alms"] - total["alms"]
    for u in rep["units"]:
        t = u["timing"]
        assert t["delay_ns"] > 0 and t["from"] and t["to"]
        assert t["meets"] == (t["delay_ns"] <= fit.CLOCK_NS)


def test_second_report_comes_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPGEN_CACHE", str(tmp_path / "cache"))
    core = _core("fitint")
    cold = fit.core_report(core.text, core.name, progress=False)
    assert cold["mapped"] == len(cold["units"]) >= 3 and cold["from_cache"] == 0
    assert len(list((tmp_path / "cache" / "fit").glob("*.json"))) == cold["mapped"]
    warm = fit.core_report(core.text, core.name, progress=False)
    assert warm["mapped"] == 0 and warm["from_cache"] == len(cold["units"])
    assert warm["total"] == cold["total"]
    # an operator's new text remaps that operator and the core's glue that names it
    start = core.text.index("module fitint_spg_ieq")
    end = core.text.index("endmodule", start)
    changed = core.text[:end] + "// changed\n" + core.text[end:]
    again = fit.core_report(changed, core.name, progress=False)
    assert {u["module"] for u in again["units"] if not u["cached"]} == {"fitint_spg_ieq", "fitint"}
    assert again["total"] == cold["total"]


_HARD_FP_TOP = """
module hardtop (input wire clk, input wire ce, input wire [31:0] a, input wire [31:0] b,
                output wire [31:0] y);
    wire [31:0] s0, s1, p0;
    spg_dsp_fadd u0 (.clk(clk), .ce(ce), .a(a), .b(b), .y(s0));
    spg_dsp_fsub u1 (.clk(clk), .ce(ce), .a(s0), .b(b), .y(s1));
    spg_dsp_fmul u2 (.clk(clk), .ce(ce), .a(s1), .b(a), .y(p0));
    twentynm_fp_mac #(.operation_mode("sp_add")) u3 (.clk({2'b0, clk}), .ena({2'b0, ce}),
        .ax(p0), .ay(a), .resulta(y));
endmodule
// a wrapper whose Quartus body would map to a DSP: never mapped into ALMs
module spg_dsp_fmul (input wire clk, input wire ce, input wire [31:0] a, input wire [31:0] b,
                     output wire [31:0] y);
    reg [31:0] big [0:1023];
    reg [31:0] y_reg;
    always @(posedge clk) if (ce) begin big[a[9:0]] <= a * b; y_reg <= big[b[9:0]]; end
    assign y = y_reg;
endmodule
"""


def test_hard_fp_dsps_are_black_boxes_of_one_dsp_and_no_alms():
    src = fit.Sources()
    src.add_text(_HARD_FP_TOP)
    rep = fit.design_report(src, "hardtop", {}, progress=False)
    t = rep["total"]
    assert t["hard_fp"] == 4 and t["dsps"] == 4
    assert t["alms"] == 0 and t["m20k"] == 0 and t["ffs"] == 0
    assert [u["module"] for u in rep["units"]] == ["hardtop"]
    # inside a core the wrappers are renamed <core>_spg_dsp_*: still hard FP
    assert fit.Sources is not None and all(
        spgen.fit._yosys.is_hard_fp(m) for m in ("lbm_d2q9_spg_dsp_fadd", "spg_dsp_fmul",
                                                  "twentynm_fp_mac"))
    assert not spgen.fit._yosys.is_hard_fp("lbm_d2q9_spg_fadd")


def test_shell_module_maps_alone_with_its_children_as_parameterised_black_boxes():
    src = _budget._sources("shell")
    u = fit.map_unit(src, "shell_width_up", {"RECORD_WORDS": 10})
    assert u["children"] == [{"module": "shell_word_pack", "count": 1, "params": {
        "FILL_STEP": 2, "IN_WORDS": 10}}]
    own = fit.resources(u["cells"], u["memories"])
    assert own.alms < 20 and own.m20k == 0  # the converter is its packer
    assert u["timing"]["meets"]
    # another parameter value is another unit with its own child
    u3 = fit.map_unit(src, "shell_width_up", {"RECORD_WORDS": 3})
    assert u3["children"][0]["params"]["IN_WORDS"] == 3


_DEEP = """
module overtwo (input wire clk, input wire [63:0] a, input wire [6:0] n,
                output reg deep, output reg [1:0] deeper, output reg [6:0] near);
    function [6:0] ones(input [63:0] v);   // a chain: each step waits for the last
        integer i;
        begin ones = 7'd0; for (i = 0; i < 64; i = i + 1) ones = ones + {6'd0, v[i]}; end
    endfunction
    always @(posedge clk) begin
        deep <= ones(a) == n;
        deeper <= {ones(a ^ {a[31:0], a[63:32]}) > n, ones(a) < n};
        near <= n ^ a[6:0];
    end
endmodule
"""


def test_timing_lists_each_register_past_the_clock_once():
    src = fit.Sources()
    src.add_text(_DEEP)
    t = fit.map_unit(src, "overtwo", {})["timing"]
    assert not t["meets"]
    over = {o["to"]: o for o in t["over"]}
    # both bits of `deeper` are one register; `near` is one LUT deep and within the clock
    assert set(over) == {"deep", "deeper"}
    assert [o["delay_ns"] for o in t["over"]] == sorted((o["delay_ns"] for o in t["over"]),
                                                         reverse=True)
    assert t["over"][0]["delay_ns"] == t["delay_ns"]
    assert all(o["delay_ns"] > fit.CLOCK_NS and o["lut_levels"] > 5 for o in t["over"])
    line = "\n".join(fit.timing_lines([{"module": "overtwo", "params": {}, **t}]))
    assert "registers past the clock (2): deeper" in line


_INIT_MEM = """
module initmem (input wire clk, input wire we, input wire [8:0] wa, input wire [8:0] ra,
                input wire [31:0] d, output reg [31:0] q);
    reg [31:0] mem [0:511];
    integer i;
    initial for (i = 0; i < 512; i = i + 1) mem[i] = 32'd0;
    always @(posedge clk) begin
        if (we) mem[wa] <= d;
        q <= mem[ra];
    end
endmodule
"""


def test_memory_with_initial_contents_maps_to_m20k():
    src = fit.Sources()
    src.add_text(_INIT_MEM)
    u = fit.map_unit(src, "initmem", {})
    assert u["memories"] == [{"name": "mem", "width": 32, "depth": 512, "kind": "m20k",
                              "blocks": 1}]
    r = fit.resources(u["cells"], u["memories"])
    assert r.m20k == 1 and r.bram_bits == 32 * 512


def test_alm_packing_rule():
    r = fit.resources({"MISTRAL_ALUT6": 2, "MISTRAL_ALUT5": 3, "MISTRAL_ALUT3": 4,
                       "MISTRAL_ALUT4": 3, "MISTRAL_ALUT_ARITH": 5, "MISTRAL_FF": 8}, [])
    # 2 (LUT6) + 3 (LUT5, three of the LUT3 beside them) + (3 LUT4 + 1 LUT3) / 2 + 5 / 2
    assert r.logic_alms == 2 + 3 + 2 + 3
    assert r.ff_alms == 2 and r.alms == r.logic_alms
    regs = fit.resources({"MISTRAL_ALUT2": 2, "MISTRAL_FF": 41, "MISTRAL_MLAB": 3}, [])
    assert regs.logic_alms == 1 and regs.ff_alms == 11 and regs.mlab_alms == 2
    assert regs.alms == 11 + 2


@pytest.mark.parametrize("width,depth,blocks", [(32, 512, 1), (40, 512, 1), (32, 1024, 2),
                                                (41, 512, 2), (20, 1024, 1), (1, 16384, 1),
                                                (10, 2049, 2), (32, 181, 1), (64, 4096, 13)])
def test_m20k_blocks_by_aspect_ratio(width, depth, blocks):
    assert fit.m20k_blocks(width, depth) == blocks


def test_published_comparison_uses_the_fim_allowance():
    core = fit.Resources(alms=1000, bram_bits=2000, m20k=3, dsps=4)
    shell = fit.Resources(alms=10_000, m20k=20)
    rows = fit.published_rows({n: (core * n, core * n + shell) for n in (1, 12)})
    pub1, pub2 = fit.PUBLISHED_RESOURCES[1], fit.PUBLISHED_RESOURCES[2]
    assert fit.FIM_ALLOWANCE[0] == 2 * pub1[0] - pub2[0] == 41_531
    assert rows[1]["cores_with_fim_allowance"][0] == 12_000 + 41_531
    assert rows[1]["published"] == list(fit.PUBLISHED_RESOURCES[12])
    assert rows[1]["afu"]["alms"] == 22_000 and rows[1]["fit"]["fits"]
    huge = fit.fit(fit.Resources(alms=400_000, dsps=10))
    assert not huge["fits"] and huge["resources"]["alms"]["headroom"] == 381_213 - 400_000
    assert "NO" in fit.published_table(fit.published_rows({1: (core, core * 400)}))


def test_compile_resources_prints_the_report(capsys, tmp_path):
    assert main(["compile", str(PROGRAMS / "fitsmall.spd"), "-o", str(tmp_path),
                 "--resources"]) == 0
    out = capsys.readouterr().out
    assert "resources of core fitsmall" in out and "fitsmall_spg_fadd" in out
    assert "fits the PAC AFU region: yes" in out
    assert (tmp_path / "fitsmall.fit.json").is_file()


def test_missing_yosys_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(spgen.fit._yosys.shutil, "which", lambda name: None)
    with pytest.raises(SpgenError, match="yosys is not installed"):
        spgen.fit._yosys.yosys_exe()


def test_budget_violations_are_reported():
    budget = {"alms": 100, "m20k": 1, "dsps": 0, "lut_levels": 4}
    assert _budget.violations("m", dict(budget), budget) == []
    assert _budget.violations("m", {**budget, "alms": 101, "lut_levels": 5}, budget) == [
        "m: alms 101 > budget 100", "m: lut_levels 5 > budget 4"]


_BUDGETS = _budget.load()


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if e.get("slow") else [])
                                  for n, e in _BUDGETS.items()])
def test_module_within_its_budget(name):
    entry = _BUDGETS[name]
    assert _budget.violations(name, _budget.measure(name, entry), entry) == []
