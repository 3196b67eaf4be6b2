"""The IR contract: construction, verification and deterministic printing."""
import copy
import pickle

import pytest
from spgen.ir import Graph, IRError, Output, Port, Type, edit_count


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


def _edits_by(change) -> int:
    before = edit_count()
    change()
    return edit_count() - before


def test_every_edit_in_place_moves_the_edit_count():
    # caches keyed by a graph's content (the emulator's kernels) check this one number
    g = _jacobi_like()
    s = g.nodes[3]
    p = Port("w", Type.F32, "main", 1)
    edits = [
        lambda: s.attrs.__setitem__("k", 1),
        lambda: s.attrs.update(k=2),
        lambda: s.attrs.pop("k"),
        lambda: setattr(s, "args", (s.args[1], s.args[0])),
        lambda: setattr(s, "attrs", {"k": 3}),
        lambda: s.attrs.setdefault("j", 4),  # a dict set as a field counts its edits too
        lambda: setattr(s, "op", "fmul"),
        lambda: setattr(s, "name", "t"),
        lambda: g.add("const", Type.F32, bits=0),
        lambda: g.nodes.pop(),
        lambda: g.nodes.insert(0, g.nodes.pop(0)),
        lambda: g.nodes.__setitem__(0, g.nodes[0]),
        lambda: g.outputs.append(Output(p, s)),
        lambda: g.outputs.__delitem__(-1),
        lambda: g.inputs.append(p),
        lambda: g.inputs.remove(p),
        lambda: g.params.__setitem__("N", 4),
        lambda: setattr(g, "nodes", list(g.nodes)),
        lambda: g.nodes.append(s),  # the list just set counts its edits as well
        lambda: g.renumber(),
    ]
    assert [_edits_by(e) > 0 for e in edits] == [True] * len(edits)


def test_reading_a_graph_is_no_edit():
    g = _jacobi_like()
    before = edit_count()
    g.verify()
    g.to_text()
    g.users()
    g.op_counts()
    assert [n.key() for n in g] and g.nodes[3].attrs.get("k") is None
    assert edit_count() == before


def test_graphs_copy_and_pickle_with_counted_containers():
    g = _jacobi_like()
    for h in (g.copy(), pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert h.to_text() == g.to_text()
        assert _edits_by(lambda h=h: h.nodes[3].attrs.__setitem__("k", 1)) > 0
        assert _edits_by(lambda h=h: h.nodes.append(h.nodes[0])) > 0


def test_printed_text_follows_every_edit():
    g = _jacobi_like()
    first = g.to_text()
    assert g.to_text() is first  # remembered while nothing changed
    g.nodes[3].attrs["k"] = 1
    assert "k=1" in g.to_text()
    del g.nodes[3].attrs["k"]
    assert g.to_text() == first
    h = pickle.loads(pickle.dumps(g))
    assert "_printed" not in h.__dict__ and h.to_text() == first
