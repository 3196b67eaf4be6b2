"""The IR contract: construction, verification and deterministic printing."""
import copy
import pickle

import pytest
from spgen.ir import Graph, IRError, Output, Port, Type


def _jacobi_like() -> Graph:
    g = Graph("t")
    u = Port("u", Type.F32, "main", 0)
    g.inputs.append(u)
    x = g.add("input", Type.F32, stream="main", port="u", index=0, name="u")
    a = g.add("shift", Type.F32, (x,), offset=1, fill=0)
    b = g.add("shift", Type.F32, (x,), offset=-1, fill=0)
    s = g.add("fadd", Type.F32, (a, b), name="s")
    g.outputs.append(Output(Port("v", Type.F32, "main", 0), s))
    return g


def test_print_is_deterministic_and_verifies():
    g1, g2 = _jacobi_like(), _jacobi_like()
    g1.verify()
    assert g1.to_text() == g2.to_text()
    assert "%3:f32 = fadd %1, %2  ; s" in g1.to_text()
    assert g1.flops() == {"add": 1, "mul": 0, "div": 0, "sqrt": 0, "total": 1}


def test_verifier_rejects_type_errors():
    g = _jacobi_like()
    bad = g.add("fadd", Type.F32, (g.nodes[0],), name="oops")
    with pytest.raises(IRError, match="expects 2 operands"):
        g.verify()
    g.nodes.remove(bad)
    g.add("flt", Type.F32, (g.nodes[0], g.nodes[1]))
    with pytest.raises(IRError, match="bool"):
        g.verify()


def _moves_version(g: Graph, change) -> bool:
    before = g.version
    change()
    return g.version > before


def test_graph_methods_and_touch_move_the_version():
    # caches of a graph's content (its text, the emulator's kernels) check this one number
    g = _jacobi_like()
    s = g.nodes[3]
    changes = [
        lambda: g.add("const", Type.F32, bits=0),
        lambda: g.renumber(),
        lambda: g.touch(),
        lambda: (s.attrs.__setitem__("k", 1), g.touch()),  # an edit in place, then touch
    ]
    assert [_moves_version(g, c) for c in changes] == [True] * len(changes)


def test_versions_are_per_graph_and_reading_moves_none():
    g, h = _jacobi_like(), _jacobi_like()
    before = g.version
    h.touch()
    h.add("const", Type.F32, bits=0)
    g.verify()
    g.to_text()
    g.users()
    g.op_counts()
    assert [n.key() for n in g] and g.nodes[3].attrs.get("k") is None
    assert g.version == before


def test_graphs_copy_and_pickle_with_their_own_version():
    g = _jacobi_like()
    g.to_text()
    for h in (g.copy(), pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert h.to_text() == g.to_text()
        v = g.version
        h.nodes[3].attrs["k"] = 1
        h.touch()
        assert "k=1" in h.to_text() and "k=1" not in g.to_text() and g.version == v
    assert g.copy().nodes[3].attrs is not g.nodes[3].attrs  # a copy's edits stay its own


def test_printed_text_follows_every_recorded_edit():
    g = _jacobi_like()
    first = g.to_text()
    assert g.to_text() is first  # remembered while the version stands still
    g.nodes[3].attrs["k"] = 1
    assert g.to_text() is first  # an edit in place is seen once it is recorded
    g.touch()
    assert "k=1" in g.to_text()
    del g.nodes[3].attrs["k"]
    g.touch()
    assert g.to_text() == first
    h = pickle.loads(pickle.dumps(g))
    assert "_printed" not in h.__dict__ and h.to_text() == first
