"""`spgen compile` and `spgen sim` from the command line, and their error messages."""
import json

import numpy as np
import pytest
import spgen
from reference import evaluate, nan_equal
from spgen.cli import main
from verilog_suite import HERE

PROG = HERE / "programs"


def test_compile_writes_verilog_report_and_header(tmp_path, capsys):
    rc = main(["compile", str(PROG / "regs.spd"), "-o", str(tmp_path / "out"),
               "--emit-header", str(tmp_path / "regs.h"), "--dot", str(tmp_path / "g.dot")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "pipeline latency" in out and "reg_mask at CSR +0x18" in out
    assert len(out.splitlines()) <= 24  # one screen
    v = (tmp_path / "out" / "regs.v").read_text()
    assert "module regs (" in v and "module regs_spg_fmul" in v  # operators included
    rep = json.loads((tmp_path / "out" / "regs.json").read_text())
    for key in ("latency_cycles", "element_delay", "operations", "flops_per_element",
                "delay_bits", "ports", "registers"):
        assert key in rep
    assert rep["delay_bits"]["minimised"]["total"] <= rep["delay_bits"]["asap"]["total"]
    assert [r["offset"] for r in rep["registers"]] == [0, 8, 16, 24]
    h = (tmp_path / "regs.h").read_text()
    assert "#define REGS_REG_GAIN_OFFSET 0x0000u" in h
    assert "#define REGS_REG_MASK_OFFSET 0x0018u" in h
    assert (tmp_path / "g.dot").read_text().startswith("digraph")


@pytest.mark.parametrize("what,needle", [("ir", "module shift_neg {"),
                                         ("verilog", "module shift_neg ("),
                                         ("report", '"latency_cycles"')])
def test_compile_emit(capsys, what, needle):
    assert main(["compile", str(PROG / "shift_neg.spd"), "--emit", what]) == 0
    assert needle in capsys.readouterr().out


def test_compile_param_override(capsys):
    assert main(["compile", str(PROG / "params.spd"), "-P", "D=9", "--emit", "report"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["element_delay"] == 10


def _sim(tmp_path, prog, arr, *extra):
    i, o = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(i, arr)
    return main(["sim", str(PROG / prog), "-i", str(i), "-o", str(o), *extra]), o


@pytest.mark.parametrize("dtype,needle", [
    ([("u", "<f4"), ("atr", "<u4")], "'atr' is not an input port"),
    ([("u", "<f4")], "'attr' is missing"),
    ([("u", "<f8"), ("attr", "<u4")], "'u' has dtype float64"),
    ([("u", "<f4"), ("attr", "<i4")], "'attr' has dtype int32"),
])
def test_sim_rejects_malformed_inputs(tmp_path, capsys, dtype, needle):
    rc, _ = _sim(tmp_path, "jacobi.spd", np.zeros(4, dtype=dtype))
    assert rc == 1
    assert needle in capsys.readouterr().err


def test_sim_rejects_unstructured_and_missing_files(tmp_path, capsys):
    rc, _ = _sim(tmp_path, "jacobi.spd", np.zeros(4, np.float32))
    assert rc == 1 and "structured array" in capsys.readouterr().err
    rc = main(["sim", str(PROG / "jacobi.spd"), "-i", str(tmp_path / "nope.npy"), "-o",
               str(tmp_path / "o.npy")])
    assert rc == 1 and "no such file" in capsys.readouterr().err


def test_branch_stream_length_mismatch_names_the_streams():
    d = spgen.compile(PROG / "brch.spd")
    main_arr = np.zeros(5, dtype=[("a", "<f4"), ("b", "<f4")])
    brch_arr = np.zeros(4, dtype=[("c", "<f4")])
    with pytest.raises(spgen.SpgenError, match="main: 5, brch: 4"):
        d.simulate({"main": main_arr, "brch": brch_arr})


def test_sim_bad_register(tmp_path, capsys):
    arr = np.zeros(3, dtype=[("u", "<f4"), ("attr", "<u4")])
    rc, _ = _sim(tmp_path, "jacobi.spd", arr, "--reg", "omega=1")
    assert rc == 1 and "unknown register 'omega'" in capsys.readouterr().err


@pytest.mark.xdist_group("verilog_bundle")
def test_sim_end_to_end_with_stalls(tmp_path, capsys, suite):
    # `suite` built the shared model first: `spgen sim` finds this core in the cache
    rng = np.random.default_rng(4)
    n = 57
    arr = np.zeros(n, dtype=[("u", "<f4"), ("attr", "<u4")])
    arr["u"] = rng.standard_normal(n)
    arr["attr"] = rng.integers(0, 2, n)
    rc, o = _sim(tmp_path, "jacobi.spd", arr, "--reg", "w=0.5", "--stall-pattern", "7")
    assert rc == 0
    text = capsys.readouterr().out
    assert f"{n} elements in" in text and "stall cycles" in text and "elements/s" in text
    out = np.load(o)
    assert out.dtype.names == ("v", "attr_o")
    d = spgen.compile(PROG / "jacobi.spd")
    ref = evaluate(d.graph, n, {"u": arr["u"], "attr": arr["attr"]}, {"w": 0x3f000000})
    assert nan_equal(out["v"].view(np.uint32), ref["v"], "f32")
    assert np.array_equal(out["attr_o"], arr["attr"])


def test_sim_trace_writes_fst(tmp_path, capsys):
    arr = np.zeros(6, dtype=[("a", "<f4"), ("k", "<u4")])
    arr["k"] = np.arange(6)
    rc, o = _sim(tmp_path, "passthru.spd", arr, "--trace", str(tmp_path / "w.fst"))
    assert rc == 0, capsys.readouterr().err
    data = (tmp_path / "w.fst").read_bytes()
    assert len(data) > 100
    out = np.load(o)
    assert np.array_equal(out["k_o"], arr["k"]) and np.all(out["c"] == 42)


def _hier_with_latency(tmp_path, latency: str):
    text = (PROG / "hier.spd").read_text().replace("HDL h3, auto,", f"HDL h3, {latency},")
    p = tmp_path / "hier_lat.spd"
    p.write_text(text)
    return p


def test_explicit_instance_latency_is_checked(tmp_path, capsys):
    from spgen.backend.verilog import module_latency

    d = spgen.compile(PROG / "hier.spd")
    real = module_latency(d.program, "smooth")
    assert real > 0
    assert spgen.compile(_hier_with_latency(tmp_path, str(real))).graph is not None
    with pytest.raises(spgen.CompileError, match=f"latency of {real} cycles.*says {real + 1}"):
        spgen.compile(_hier_with_latency(tmp_path, str(real + 1)))
    assert main(["compile", str(_hier_with_latency(tmp_path, "3"))]) == 1
    err = capsys.readouterr().err
    assert "hier_lat.spd:" in err and "HDL h3, 3" in err and "^" in err
