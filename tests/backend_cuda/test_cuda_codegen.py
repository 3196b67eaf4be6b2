"""The CUDA back end's generated code, checked without a GPU.

Every float operation of every program must be a round-to-nearest intrinsic (never
contracted into FMA), division and square root the correctly rounded ones, and with
NVRTC at hand (``spgen[cuda]``) the PTX must hold no fused multiply-add and no
flush-to-zero instruction. Only the PTX checks need NVRTC; they say so when skipped.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import spgen
from llvm_graphs import single_op
from spgen import CompileError, SpgenError
from spgen.backend._plan import feedback, make_plan
from spgen.backend.cuda import NVRTC_OPTIONS, _device, module_source
from spgen.backend.cuda._ptx import nvrtc_unavailable, ptx
from spgen.ir import OPS

ROOT = Path(__file__).parent.parent.parent
ALL = sorted(p for d in ("tests", "cores") for p in (ROOT / d).rglob("*.spd"))
_INTRINSIC = {"fadd": "__fadd_rn(", "fsub": "__fsub_rn(", "fmul": "__fmul_rn(",
              "fdiv": "__fdiv_rn(", "fsqrt": "__fsqrt_rn("}


def _graphs():
    out = []
    for path in ALL:
        try:
            g = spgen.compile(path).graph
        except CompileError:
            continue
        if not any(n.op == "extern" for n in g.nodes):
            out.append(pytest.param(g, id=str(path.relative_to(ROOT))))
    return out


GRAPHS = _graphs()


def _source(g, ftz: bool) -> str:
    plan = make_plan(g)
    fb = feedback(g)
    feed = None if fb is None else {plan.out_slot[o]: plan.in_slot[i] for o, i in fb.items()}
    return module_source(plan, ftz, [r.name for r in g.regs], feed)


def _kernel_text(src: str, name: str) -> str:
    start = src.index(name + "(")
    end = src.find('extern "C"', start)
    return src[start:end if end > 0 else len(src)]


def test_compiler_options_are_ieee():
    for opt in ("--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true"):
        assert opt in NVRTC_OPTIONS


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("g", GRAPHS)
def test_every_float_op_is_a_round_to_nearest_intrinsic(g, ftz):
    src = _source(g, ftz)
    plan = make_plan(g)
    for p in range(plan.n_phases):
        text = _kernel_text(src, f"spg_phase{p}")
        for op, intr in _INTRINSIC.items():
            want = sum(1 for n in plan.compute[p] if n.op == op)
            assert text.count(intr) == want, (op, p)
        # no float arithmetic by C operators (which the compiler could contract) or libm
        assert not re.search(r"\bfmaf?\(|__fmaf|sqrtf\(|__fdividef|__f(add|mul|sub)_r[zud]\(", text)
    assert ("spg_flush(" in src.split("spg_phase0", 1)[1]) == (
        ftz and any(OPS[n.op].flush for n in g.nodes))


_NEED_NVRTC = pytest.mark.skipif(nvrtc_unavailable() is not None,
                                 reason=f"PTX needs NVRTC: {nvrtc_unavailable()}")


@_NEED_NVRTC
@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("g", GRAPHS)
def test_ptx_has_no_fma_and_correctly_rounded_div_sqrt(g, ftz):
    code = ptx(_source(g, ftz))
    assert not re.search(r"^\s*fma\.", code, re.MULTILINE), "a fused multiply-add in the PTX"
    assert ".ftz" not in code, "a flush-to-zero instruction (--ftz is explicit code)"
    assert not re.search(r"(div|sqrt)\.(approx|full)\.f32", code)
    ops = {n.op for n in g.nodes}
    assert ("div.rn.f32" in code) == ("fdiv" in ops)
    assert ("sqrt.rn.f32" in code) == ("fsqrt" in ops)


@_NEED_NVRTC
def test_ptx_keeps_the_product_rounded_before_the_sum():
    """a * b + c: one rounding after the product and one after the sum (a fused
    multiply-add rounds once and gives other bits for these operands)."""
    code = ptx(_source(single_op("fmul"), False))
    assert re.search(r"mul\.rn\.f32", code) and not re.search(r"\bfma\.", code)


def test_no_gpu_gives_a_clear_error(monkeypatch):
    monkeypatch.setattr(_device, "_checked", ["no CUDA device found"])
    d = spgen.compile(ROOT / "cores/jacobi5/jacobi5.spd")
    a = np.zeros(4, dtype=[("u", "<f4"), ("attr", "<u4")])
    with pytest.raises(SpgenError, match="--device cuda: no CUDA device found"):
        d.emulate(a, device="cuda")
    with pytest.raises(SpgenError, match="unknown emulation device 'tpu'"):
        d.emulate(a, device="tpu")


def test_cli_device_cuda_without_gpu(tmp_path, monkeypatch, capsys):
    from spgen.cli import main

    monkeypatch.setattr(_device, "_checked", ["no CUDA device found"])
    inp = tmp_path / "in.npy"
    np.save(inp, np.zeros(8, dtype=[("u", "<f4"), ("attr", "<u4")]))
    rc = main(["emulate", str(ROOT / "cores/jacobi5/jacobi5.spd"), "-i", str(inp), "-o",
               str(tmp_path / "o.npy"), "--device", "cuda"])
    assert rc == 1
    assert "no CUDA device found" in capsys.readouterr().err
    assert not (tmp_path / "o.npy").exists()


def test_external_verilog_is_refused_before_any_gpu_check():
    from spgen.backend.cuda import emulate

    for path in ALL:
        try:
            g = spgen.compile(path).graph
        except CompileError:
            continue
        if any(n.op == "extern" for n in g.nodes):
            with pytest.raises(SpgenError, match="cannot be emulated"):
                emulate(g, 4, {p.name: np.zeros(4, np.uint32) for p in g.inputs}, {})
            return
    pytest.fail("no program with external Verilog found")
