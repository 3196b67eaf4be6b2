"""The SPD.md example lowers to the IR the back ends expect."""
from pathlib import Path

from spgen.frontend import load_program
from spgen.ir import Type

ROOT = Path(__file__).resolve().parents[2]


def test_jacobi5_lowers():
    prog, diags = load_program(ROOT / "cores/jacobi5/jacobi5.spd")
    assert not diags.items
    g = prog.top_graph
    assert prog.top == "jacobi5" and list(prog.modules) == ["jacobi5"]
    assert [(p.name, p.type, p.stream, p.index) for p in g.inputs] == [
        ("u", Type.F32, "main", 0), ("attr", Type.U32, "main", 1)]
    assert [(o.port.name, o.node.op) for o in g.outputs] == [("v", "select"), ("attr_o", "input")]
    assert sorted(n.attrs["offset"] for n in g.shifts()) == [-64, -1, 1, 64]
    assert g.regs[0].default == 0x3E800000
    assert g.flops()["total"] == 4


def test_param_override_specialises():
    prog, _ = load_program(ROOT / "cores/jacobi5/jacobi5.spd", params={"W": "128"})
    assert sorted(n.attrs["offset"] for n in prog.top_graph.shifts()) == [-128, -1, 1, 128]
    assert prog.top_graph.params == {"W": 128}
