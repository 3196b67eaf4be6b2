"""Golden tests from .spd snippets: the front end's Program, then optimize() with and without ftz."""
from __future__ import annotations

from pathlib import Path

import pytest
from reference import evaluate, nan_equal
from spgen.frontend import load_program
from spgen.passes import optimize
from test_passes_golden import _check_golden, _random_inputs

SNIPPETS = sorted((Path(__file__).parent / "spd").glob("*.spd"))


@pytest.mark.parametrize("path", SNIPPETS, ids=[p.stem for p in SNIPPETS])
def test_spd_snippet_golden(path):
    program, _ = load_program(path)
    plain = optimize(program)
    ftz = optimize(program, ftz=True)
    text = (f"## program\n{program.to_text()}## optimize\n{plain.to_text()}"
            f"## optimize ftz\n{ftz.to_text()}")
    _check_golden(f"spd_{path.stem}", text)
    n = 32
    ins = _random_inputs(program.top_graph, n, 3)
    for g, z in ((plain, False), (ftz, True)):
        assert not any(node.op == "inst" for node in g.nodes)
        want = evaluate(program.top_graph, n, ins, {}, z, modules=program.modules)
        got = evaluate(g, n, ins, {}, z)
        for o in program.top_graph.outputs:
            assert nan_equal(want[o.port.name], got[o.port.name], o.port.type), o.port.name


def test_snippets_shrink():
    program, _ = load_program(SNIPPETS[0])
    before = sum(len(g.nodes) for g in program.modules.values())
    assert len(optimize(program).nodes) < before - 8
