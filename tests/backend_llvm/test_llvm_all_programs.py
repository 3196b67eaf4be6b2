"""Every .spd program of the repository's tests and cores: emulate == numpy reference.

The Verilog suite checks simulate == the same reference on its programs, so together
they give emulate == simulate == reference for every program that compiles.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import spgen
from llvm_graphs import F32_SPECIAL, random_bits
from reference import evaluate, mismatches
from spgen import CompileError, SpgenError, _streams
from spgen.backend.llvm import emulate
from spgen.ir import Type

ROOT = Path(__file__).parent.parent.parent
ALL = sorted(p for d in ("tests", "cores") for p in (ROOT / d).rglob("*.spd"))


def _load(path: Path, ftz: bool):
    try:
        return spgen.compile(path, ftz=ftz)
    except CompileError:
        return None  # negative front-end tests (include cycles, errors) and libraries


def _inputs(g, n: int, rng) -> dict[str, np.ndarray]:
    ins = {}
    for p in g.inputs:
        bits = random_bits(rng, n, str(p.type))
        if p.type is Type.F32:
            k = min(n, len(F32_SPECIAL))
            bits[:k] = F32_SPECIAL[:k]
        elif p.type is Type.U32 and "attr" in p.name:
            bits = (rng.random(n) < 0.3).astype(np.uint32) * rng.integers(0, 4, n).astype(np.uint32)
        ins[p.name] = bits
    return ins


@pytest.mark.parametrize("ftz", [False, True], ids=["ieee", "ftz"])
@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_program_matches_reference(path, ftz):
    d = _load(path, ftz)
    if d is None:
        with pytest.raises(CompileError):
            spgen.compile(path, ftz=ftz)
        return
    g = d.graph
    if any(n.op == "extern" for n in g.nodes):
        with pytest.raises(SpgenError, match="cannot be emulated"):
            emulate(g, 4, {p.name: np.zeros(4, np.uint32) for p in g.inputs}, {})
        return
    regs = _streams.parse_regs(g, None)
    rng = np.random.default_rng(len(str(path)))
    for n in (1, 300, 2000):
        ins = _inputs(g, n, rng)
        got = emulate(g, n, ins, regs, ftz=ftz)
        want = evaluate(g, n, ins, regs, ftz)
        for o in g.outputs:
            bad = mismatches(got[o.port.name], want[o.port.name], str(o.port.type))
            assert bad.size == 0, f"{o.port.name} n={n}: {bad.size} mismatches at {bad[:5]}"
