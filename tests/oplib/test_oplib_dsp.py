"""The hard floating-point DSP operators: models against SoftFloat (flush to zero) and bit for
bit against the soft operators at FTZ = 1; the Quartus wrappers' lint and interface."""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from oplib_reference import FLOAT_SPECIALS, check, expected, is_nan, vectors
from spgen import SpgenError
from spgen._tools import verilator_bin, verilator_env, yosys_read
from spgen.oplib import (
    DSP_LATENCY,
    DSP_OPS,
    dsp_model_file,
    dsp_primitive_file,
    dsp_stub_file,
)
from spgen.oplib._harness import build, variants

pytestmark = pytest.mark.xdist_group("oplib")

OPS = sorted(DSP_OPS)
# The soft operator at FTZ = 1 and the DSP model of each op, side by side in one model.
VARIANTS = [v for v in variants(OPS, dsp=True) if v.ftz == 1]
SOFT = {v.op: v for v in VARIANTS if not v.dsp}
DSP = {v.op: v for v in VARIANTS if v.dsp}
QNAN = 0x7FC00000

# Besides the special classes: NaN payloads (quiet and signalling), values around
# overflow (squares and sums that reach 2^128, max normal minus an ulp) and around the
# subnormal boundary (products and differences that land just below, on or just above
# the smallest normal, 1 - 2^-24 times the smallest normal is the tie that rounds up).
DSP_SPECIALS = FLOAT_SPECIALS + [s | m for m in (0, 0x80000000) for s in (
    0x7FC00001, 0x7FFFFFFF, 0x7FA00000, 0x7FBFFFFF,
    0x7F7FFFFE, 0x7F000000, 0x7EFFFFFF, 0x5F800000, 0x5F7FFFFF, 0x5F3504F3,
    0x3F800001, 0x40000000, 0x3F000000, 0x3FFFFFFF,
    0x00800001, 0x00FFFFFF, 0x01000000, 0x00400000, 0x3F7FFFFF, 0x3F7FFFFE,
    0x1F800000, 0x1F7FFFFF, 0x20000000, 0x34000000, 0x33800000)]


@pytest.fixture(scope="module")
def model():
    return build(VARIANTS)


def _run_and_check(model, n_random: int, seed: int, stall_permille: int):
    """Every vector through soft and DSP variants, once plain and once with random ce
    stalls; returns the vectors, the plain results and the run statistics."""
    a, b, s = vectors(n_random, seed, DSP_SPECIALS)
    plain, _ = model.run(a, b, s)
    stalled, stats = model.run(a, b, s, stall_permille=stall_permille, seed=seed + 1)
    assert stats["stall_cycles"] > len(a) * stall_permille // 2000  # the stalls happened
    for v in VARIANTS:  # ce low holds every pipeline: the same results
        assert np.array_equal(stalled[v.name], plain[v.name]), v.name
    for op in OPS:
        exp = expected(SOFT[op], a, b, s)  # SoftFloat on flushed operands, result flushed
        check(DSP[op], a, b, s, plain[DSP[op].name], exp)
        check(SOFT[op], a, b, s, plain[SOFT[op].name], exp)
        got = plain[DSP[op].name]
        assert (got[is_nan(exp)] == QNAN).all(), f"{op}: NaN results are not 0x7FC00000"
        diff = np.flatnonzero(got != plain[SOFT[op].name])
        assert len(diff) == 0, (f"{op}: DSP model and spg_{op} #(.FTZ(1)) differ at "
                                f"a={a[diff[0]]:08x} b={b[diff[0]]:08x}")
    return a, b, s, plain, stats


def test_models_against_softfloat_and_the_soft_operators(model):
    a, _, _, plain, _ = _run_and_check(model, 20_000, seed=2027, stall_permille=300)
    assert len(a) > 20_000 + len(DSP_SPECIALS) ** 2
    assert len(DSP_SPECIALS) == 68
    # NaN, infinite, -0 and smallest-normal results were really exercised
    for op in OPS:
        got = plain[DSP[op].name]
        assert (got == QNAN).sum() > 1000 and (got == 0x80000000).sum() > 20, op
        assert ((got & 0x7FFFFFFF) == 0x7F800000).sum() > 100, op
        assert ((got & 0x7FFFFFFF) == 0x00800000).sum() > 20, op


# Cases Intel's tables state (and the choice where they say nothing: rounding decides
# whether a product below the smallest normal is flushed), spelled out.
RULES = [
    ("fadd", 0x3F800000, 0xBF800000, 0x00000000),  # x + (-x) = +0
    ("fadd", 0x80000000, 0x80000000, 0x80000000),  # (-0) + (-0) = -0
    ("fadd", 0x80000001, 0x80000000, 0x80000000),  # a subnormal operand is a zero, sign kept
    ("fadd", 0x00000001, 0x3F800000, 0x3F800000),  # subnormal + normal: the normal
    ("fadd", 0x00800001, 0x80800000, 0x00000000),  # exact subnormal sum: +0
    ("fadd", 0x80800001, 0x00800000, 0x80000000),  # ... sign kept
    ("fadd", 0x7F7FFFFF, 0x73000000, 0x7F800000),  # max normal + half an ulp: tie to inf
    ("fadd", 0x7F800000, 0xFF800000, QNAN),         # inf - inf: invalid
    ("fadd", 0x7F800001, 0x3F800000, QNAN),         # signalling NaN: the quiet NaN
    ("fsub", 0x3F800000, 0x3F800000, 0x00000000),  # x - x = +0
    ("fsub", 0x80000000, 0x00000000, 0x80000000),  # (-0) - (+0) = -0
    ("fsub", 0x00000000, 0x00000000, 0x00000000),  # (+0) - (+0) = +0
    ("fsub", 0x7F800000, 0x7F800000, QNAN),         # inf - inf: invalid
    ("fsub", 0x3F800000, 0xFFC00123, QNAN),         # a NaN b: the quiet NaN
    ("fmul", 0x3F7FFFFF, 0x00800000, 0x00800000),  # 2^-126 - 2^-150 rounds up: stays
    ("fmul", 0xBF7FFFFF, 0x00800000, 0x80800000),
    ("fmul", 0x3F7FFFFE, 0x00800000, 0x00000000),  # rounds to a subnormal: flushed
    ("fmul", 0x3F000000, 0x80800000, 0x80000000),  # exact subnormal product: flushed, sign kept
    ("fmul", 0x00400000, 0x7F000000, 0x00000000),  # subnormal operand: a zero
    ("fmul", 0x80000001, 0x3F800000, 0x80000000),  # ... of its own sign
    ("fmul", 0x5F800000, 0x5F800000, 0x7F800000),  # 2^128: overflow to inf
    ("fmul", 0x7F800000, 0x80000001, QNAN),         # inf * (flushed) zero: invalid
    ("fmul", 0x7F800000, 0x80800000, 0xFF800000),
]


def test_documented_rules(model):
    a = np.array([r[1] for r in RULES], np.uint32)
    b = np.array([r[2] for r in RULES], np.uint32)
    out, _ = model.run(a, b)
    for i, (op, x, z, want) in enumerate(RULES):
        for v in (DSP[op], SOFT[op]):
            got = int(out[v.name][i])
            assert got == want, f"{v.name}({x:08x}, {z:08x}) = {got:08x}, want {want:08x}"


@pytest.mark.slow
def test_models_million_vectors(model):
    """Dedicated run: 1,000,000 random pairs (plus the specials) per op, 10 % stalls."""
    a, _, _, _, stats = _run_and_check(model, 1_000_000, seed=9_2026, stall_permille=100)
    assert len(a) > 1_000_000
    print(f"\n{len(a)} vectors x {len(VARIANTS)} variants, {stats['cycles']} cycles "
          f"({stats['stall_cycles']} stalled) in {stats['wall_s']:.2f} s of simulation")


# ---- files, interface, lint

def test_helper_paths_and_latency():
    assert DSP_OPS == {"fadd", "fsub", "fmul"} and DSP_LATENCY == 3
    assert all(v.latency == 3 for v in DSP.values())
    for op in OPS:
        assert dsp_model_file(op).parent.name == "dsp_model"
        assert dsp_primitive_file(op).parent.name == "dsp"
        assert dsp_model_file(op).name == dsp_primitive_file(op).name == f"spg_dsp_{op}.v"
    assert dsp_stub_file().is_file()
    with pytest.raises(SpgenError, match="no hard floating-point DSP module for IR op 'fdiv'"):
        dsp_model_file("fdiv")


def _ports(path) -> list[str]:
    text = path.read_text()
    assert text.startswith("`default_nettype none")
    assert re.findall(r"^module\s+(\w+)", text, re.MULTILINE) == [path.stem]
    header = re.search(r"^module\s.*?^\);", text, re.MULTILINE | re.DOTALL).group(0)
    assert "parameter" not in header
    return re.findall(r"\b(input|output)\s+wire\s*(\[[^\]]*\])?\s*(\w+)",
                      re.sub(r"//[^\n]*", "", header))


@pytest.mark.parametrize("op", OPS)
def test_both_files_have_the_contract_interface(op):
    want = [("input", "", "clk"), ("input", "", "ce"), ("input", "[31:0]", "a"),
            ("input", "[31:0]", "b"), ("output", "[31:0]", "y")]
    assert _ports(dsp_model_file(op)) == _ports(dsp_primitive_file(op)) == want


@pytest.mark.parametrize("op", OPS)
def test_wrapper_sets_the_documented_mode_and_registers(op):
    text = dsp_primitive_file(op).read_text()
    params = dict(re.findall(r"\.(\w+)\(\"([^\"]*)\"\)", text))
    stub = dsp_stub_file().read_text()
    assert set(params) <= set(re.findall(r"parameter\s+(\w+)", stub))
    mode = {"fadd": ("sp_add", "false"), "fsub": ("sp_add", "true"), "fmul": ("sp_mult", "false")}
    assert (params["operation_mode"], params["adder_subtract"]) == mode[op]
    clocked = {k for k, val in params.items() if k.endswith("_clock") and val == "0"}
    path = ({"ax_clock", "ay_clock", "adder_input_clock"} if op != "fmul"
            else {"ay_clock", "az_clock", "mult_pipeline_clock"})
    assert clocked == path | {"output_clock"}  # three registers deep: latency 3
    assert all(params[k] == "NONE" for k in params if k.endswith("_clock") and k not in clocked)
    assert ".ena({2'b00, ce})" in text and ".aclr(2'b00)" in text


def test_fsub_model_is_the_fadd_model_with_b_negated():
    # each model is one file (as each wrapper is): the subtractor's is written from the
    # adder's file, whole, with b's sign flipped where it enters the pipeline
    add, sub = (dsp_model_file(op).read_text() for op in ("fadd", "fsub"))
    add_body, sub_body = (t[t.index("\nmodule "):] for t in (add, sub))
    assert sub_body == add_body.replace("module spg_dsp_fadd", "module spg_dsp_fsub").replace(
        "b_reg <= b;", "b_reg <= {~b[31], b[30:0]};")
    assert "spg_dsp_fadd" not in sub_body and sub_body.count("{~b[31], b[30:0]}") == 1


def test_wrappers_are_written_from_one_template():
    # the three differ only in the table's settings: the same lines but for those
    texts = {op: dsp_primitive_file(op).read_text() for op in OPS}
    body = {op: t[t.index("\nmodule "):].replace(f"spg_dsp_{op}", "spg_dsp_OP")
            for op, t in texts.items()}
    differ = {op: [a for a, b in zip(body[op].splitlines(), body["fadd"].splitlines()) if a != b]
              for op in OPS}
    assert differ["fsub"] == ['        .adder_subtract("true"),']
    assert len(differ["fmul"]) == 8 and all(
        re.search(r'"sp_mult"|_clock\("|\.a[xyz]\(', line) for line in differ["fmul"])


def _lint(top: str, files) -> str:
    r = subprocess.run([str(verilator_bin()), "--lint-only", "-Wall", "--top-module", top,
                        *[str(f) for f in files]],
                       check=False, capture_output=True, text=True, env=verilator_env())
    return "" if r.returncode == 0 and "%" not in r.stderr else r.stderr.strip()[:800]


def test_lint_clean_under_verilator_wall():
    dirty = {}
    for op in OPS:
        dirty[f"model {op}"] = _lint(f"spg_dsp_{op}", [dsp_model_file(op)])
        dirty[f"wrapper {op}"] = _lint(f"spg_dsp_{op}", [dsp_primitive_file(op), dsp_stub_file()])
    assert {k: v for k, v in dirty.items() if v} == {}


def test_yosys_reads_wrappers_and_models():
    # plain Verilog-2005, as Quartus and Yosys read it; the stub stands in for the primitive
    for op in OPS:
        assert yosys_read([dsp_primitive_file(op), dsp_stub_file()]) == "", op
        assert yosys_read([dsp_model_file(op)]) == "", op
