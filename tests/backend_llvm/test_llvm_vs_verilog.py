"""emulate == simulate (Verilator) == numpy reference, bit for bit, on the same programs.

One Verilator build holds every core here (the build is the expensive part).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import spgen
from llvm_graphs import F32_SPECIAL, pairs, random_bits, single_op
from reference import evaluate, mismatches
from spgen import _streams
from spgen.backend.llvm import emulate
from spgen.backend.verilog import build, generate, simulate
from spgen.ir import Type

pytestmark = pytest.mark.xdist_group("llvm_vs_verilog")

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
SINGLE = [("fadd", True), ("fmul", True), ("fdiv", False), ("fsqrt", True), ("fmin", True),
          ("fle", True), ("fptosi", False), ("sdiv", False), ("ashr", False)]
HARD_FP_OPS = ["fadd", "fsub", "fmul"]


def _renamed(g, name):
    return dataclasses.replace(g, name=name)


@pytest.fixture(scope="module")
def suite():
    cases = {}
    for p in sorted((HERE / "programs").glob("*.spd")):
        cases[p.stem] = (spgen.compile(p).graph, False)
    cases["jacobi5_w16"] = (spgen.compile(ROOT / "cores/jacobi5/jacobi5.spd",
                                          params={"W": 16}).graph, False)
    cases["shift_chain_ftz"] = (_renamed(spgen.compile(HERE / "programs/shift_chain.spd",
                                                       ftz=True).graph, "shift_chain_ftz"), True)
    for op, ftz in SINGLE:
        g = single_op(op)
        cases[f"{g.name}_ftz" if ftz else g.name] = (
            _renamed(g, f"{g.name}_ftz") if ftz else g, ftz)
    # f32 add, sub and mul in FP DSP blocks (--hard-fp, names ending _hfp): the emulator's
    # --ftz mode computes their bits
    for op in HARD_FP_OPS:
        g = single_op(op)
        cases[f"{g.name}_hfp"] = (_renamed(g, f"{g.name}_hfp"), True)
    cases["jacobi5_w16_hfp"] = (_renamed(spgen.compile(ROOT / "cores/jacobi5/jacobi5.spd",
                                                       params={"W": 16}, hard_fp=True).graph,
                                         "jacobi5_w16_hfp"), True)
    cores = {k: generate(g, ftz=ftz, hard_fp=k.endswith("_hfp")) for k, (g, ftz) in cases.items()}
    bundle = build(list(cores.values()))
    return cases, cores, bundle


def _inputs(g, n, seed):
    rng = np.random.default_rng(seed)
    ins = {}
    for p in g.inputs:
        bits = random_bits(rng, n, str(p.type))
        if p.type is Type.U32 and p.name.startswith(("id", "flag", "attr")):
            bits = (rng.random(n) < 0.3).astype(np.uint32)
        ins[p.name] = bits
    return ins


def _compare(g, ftz, core, bundle, n, ins) -> list[str]:
    """Problems found (empty when emulate == simulate == reference)."""
    regs = _streams.parse_regs(g, None)
    emu = emulate(g, n, ins, regs, ftz=ftz)
    sim, _ = simulate(core, n, ins, regs, bundle=bundle)
    ref = evaluate(g, n, ins, regs, ftz)
    bad = []
    for o in g.outputs:
        t = str(o.port.type)
        for other, what in ((sim, "simulate"), (ref, "reference")):
            m = mismatches(emu[o.port.name], other[o.port.name], t)
            if m.size:
                k = m[0]
                bad.append(f"{g.name}.{o.port.name} n={n}: emulate != {what} at {m.size} "
                           f"elements, first [{k}]: {emu[o.port.name][k]:#010x} vs "
                           f"{other[o.port.name][k]:#010x} (inputs "
                           + ", ".join(f"{p}={v[k]:#010x}" for p, v in ins.items()) + ")")
    return bad


def test_programs_emulate_equals_simulate(suite):
    cases, cores, bundle = suite
    bad: list[str] = []
    for name, (g, ftz) in cases.items():
        if name.startswith("op_"):
            continue
        for n in (1, 37, 600):
            bad += _compare(g, ftz, cores[name], bundle, n, _inputs(g, n, n))
    assert not bad, "\n".join(bad)


def test_single_ops_special_values_emulate_equals_simulate(suite):
    cases, cores, bundle = suite
    bad: list[str] = []
    for name, (g, ftz) in cases.items():
        if not name.startswith("op_"):
            continue
        if len(g.inputs) == 2 and g.inputs[0].type is Type.F32:
            a, b = pairs(F32_SPECIAL)
            ins = {"a": a, "b": b}
        elif g.inputs[0].type is Type.F32:
            ins = {"a": F32_SPECIAL.copy()}
        else:
            ins = _inputs(g, 300, 1)
        n = len(ins["a"])
        rnd = _inputs(g, 500, 2)
        ins = {k: np.concatenate([v, rnd[k]]) for k, v in ins.items()}
        bad += _compare(g, ftz, cores[name], bundle, n + 500, ins)
    assert not bad, "\n".join(bad)
