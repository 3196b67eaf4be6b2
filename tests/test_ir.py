"""The IR contract: construction, verification and deterministic printing."""
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
