"""Golden tests: printed IR before and after each clean-up pass on hand-built graphs.

Set SPGEN_UPDATE_GOLDEN=1 to rewrite the files after checking a change by hand.
"""
from __future__ import annotations

import os
from pathlib import Path

import _pass_graphs as G
import numpy as np
import pytest
from reference import evaluate, nan_equal
from spgen.ir import Graph, IRError, Program, to_dot
from spgen.passes import PASSES, optimize, run_passes
from spgen.passes._rewrite import copy_graph

GOLDEN = Path(__file__).parent / "golden"


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("SPGEN_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}"
    assert text == path.read_text()


def _one(pass_name: str, **kw):
    mod = PASSES[pass_name]
    return [(pass_name, lambda g: mod.run(g, **kw))]


# (golden name, graph builder, steps, ftz)
CASES = [
    ("fold_f32", G.fold_f32, _one("fold-constants"), False),
    ("fold_f32_ftz", G.fold_f32, _one("fold-constants", ftz=True), True),
    ("fold_int", G.fold_int, _one("fold-constants"), False),
    ("simplify", G.simplify_graph, _one("simplify"), False),
    ("simplify_ftz", G.simplify_graph, _one("simplify", ftz=True), True),
    ("cse", G.cse_graph, _one("eliminate-common-subexpressions"), False),
    ("dce", G.dce_graph, _one("eliminate-dead-code") + _one("renumber"), False),
    ("reassociate", G.chain_graph, _one("reassociate") + _one("eliminate-dead-code"), None),
]


@pytest.mark.parametrize("name,build,steps,ftz", CASES, ids=[c[0] for c in CASES])
def test_pass_golden(name, build, steps, ftz):
    before = build()
    before.verify()
    after = run_passes(copy_graph(before), steps)
    _check_golden(name, f"## before\n{before.to_text()}## after\n{after.to_text()}")
    if ftz is not None:  # bit-exact passes: the reference sees no difference
        _assert_same_outputs(before, after, ftz)


def _random_inputs(g: Graph, n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    specials = np.array([0, 0x80000000, 0x3F800000, 0xBF800000, 0x00000001, 0x807FFFFF,
                         0x7F800000, 0xFF800000, 0x7FC00000, 0x7F7FFFFF, 0x00800000],
                        dtype=np.uint32)
    out = {}
    for p in g.inputs:
        v = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
        if str(p.type) == "f32":
            v = rng.standard_normal(n).astype(np.float32).view(np.uint32)
            v[: specials.size] = specials
        out[p.name] = v
    return out


def _assert_same_outputs(a: Graph, b: Graph, ftz: bool, modules=None, externs=None) -> None:
    n = 40
    ins = _random_inputs(a, n, 1)
    ra = evaluate(a, n, ins, {}, ftz, modules=modules, externs=externs)
    rb = evaluate(b, n, ins, {}, ftz, externs=externs)
    types = {o.port.name: o.port.type for o in a.outputs}
    for port in ra:
        assert nan_equal(ra[port], rb[port], types[port]), port


def test_inline_golden_and_semantics():
    prog = G.inline_program()
    for g in prog.modules.values():
        g.verify()
    flat = run_passes(copy_graph(prog.top_graph), [
        ("inline-modules", lambda g: PASSES["inline-modules"].run(g, prog)),
        ("renumber", PASSES["renumber"].run)])
    _check_golden("inline", f"## before\n{prog.to_text()}## after\n{flat.to_text()}")
    assert not any(n.op == "inst" for n in flat.nodes)
    assert sum(n.op == "extern" for n in flat.nodes) == 2
    assert [r.name for r in flat.regs] == ["m1_l0_gain", "m2_l0_gain", "lx_gain"]
    assert "inst" in prog.top_graph.to_text()  # the program itself is untouched
    ext = {"filt": lambda a: (a * np.uint32(3),)}
    _assert_same_outputs(prog.top_graph, flat, False, modules=prog.modules, externs=ext)


def test_every_pass_records_its_edits_in_the_graph_version():
    # the passes edit nodes in place; caches of a graph's content (its printed text, the
    # emulator's kernels) see that only through Graph.version
    prog = G.inline_program()
    runs = {name: (lambda g, m=m: m.run(g)) for name, m in PASSES.items()}
    runs["inline-modules"] = lambda g: PASSES["inline-modules"].run(g, prog)
    for name, run in runs.items():
        g = copy_graph(prog.top_graph)
        version = g.version
        out = run(g)
        assert out is g and g.version > version, name
    g = G.fold_f32()
    text = g.to_text()
    PASSES["fold-constants"].run(g)
    assert g.to_text() != text  # folded in place, and the remembered text followed


def test_inline_rejects_recursion():
    b = G.Builder("self")
    x = b.inp("x")
    i = b.op("inst", G.F, x, module="self", label="again", params=())
    b.out(b.op("proj", G.F, i, index=0), "y")
    with pytest.raises(IRError, match="recursive"):
        optimize(Program({"self": b.g}, "self"))


def test_optimize_pipeline_golden():
    g = G.jacobi_graph()
    out = optimize(Program({"jacobi": g}, "jacobi"))
    _check_golden("optimize_jacobi", f"## before\n{g.to_text()}## after\n{out.to_text()}")
    assert [n.id for n in out.nodes] == list(range(len(out.nodes)))
    # 0.5*0.5+0.75 folds to 1.0, then u*1.0 -> u: only attr == 0 keeps a constant
    assert out.op_counts()["const"] == 1 and out.op_counts()["fmul"] == 1
    _assert_same_outputs(g, out, False)


def test_optimize_inline_program_matches_reference():
    prog = G.inline_program()
    ext = {"filt": lambda a: (a ^ np.uint32(0x80000000),)}
    for ftz in (False, True):
        out = optimize(prog, ftz=ftz)
        _assert_same_outputs(prog.top_graph, out, ftz, modules=prog.modules, externs=ext)


def test_fast_math_balances_chain():
    g = G.chain_graph()
    out = optimize(Program({"chain": g}, "chain"), fast_math=True)
    depth: dict = {}
    for n in out.nodes:
        depth[n] = 1 + max((depth[a] for a in n.args if a.op == "fadd"), default=0)
    root = next(o.node for o in out.outputs if o.port.name == "sum")
    assert depth[root] == 3  # 7 leaves: ceil(log2 7), was 6
    assert out.flops()["add"] == 6
    plain = optimize(Program({"chain": g}, "chain"))
    assert plain.flops() == out.flops()


def test_to_dot_lists_every_node_and_edge():
    g = G.jacobi_graph()
    dot = to_dot(g)
    assert dot.startswith('digraph "jacobi" {') and dot.rstrip().endswith("}")
    assert sum(" -> n" in ln for ln in dot.splitlines()) == sum(len(n.args) for n in g.nodes)
    assert all(f"  n{n.id} [label=" in dot for n in g.nodes)
    assert dot.count("shape=house") == len(g.outputs)
    assert dot == to_dot(G.jacobi_graph())


def test_verifier_runs_between_passes():
    def broken(g):
        g.nodes.reverse()
        return g
    with pytest.raises(IRError, match="after pass broken"):
        run_passes(G.jacobi_graph(), [("broken", broken)])
