"""Lowering to the IR exactly as docs/internals.md "Front end -> IR" specifies."""
import struct
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from spgen.frontend import load_program
from spgen.frontend._consts import f32_bits, real_literal
from spgen.ir import Type

PROGRAMS = Path(__file__).parent / "programs"
HEAD = ("Name m;\nMain_In {Mi::a, b, n:i32, j:i32, k:u32, l:u32};\nMain_Out {Mo::y};\n"
        "EQU c1, p = a < b;\nEQU c2, q = n > j;\nEQU o, y = a;\n")


def _graph(tmp_path, body: str, **kw):
    path = tmp_path / "t.spd"
    path.write_text(HEAD + body + "\n")
    prog, _ = load_program(path, **kw)
    return prog.top_graph


def _node(g, name):
    (n,) = [x for x in g.nodes if x.name == name]
    return n


OPS = [  # expression, IR op of the node named r, its type
    ("a + b", "fadd", "f32"), ("a - b", "fsub", "f32"), ("a * b", "fmul", "f32"),
    ("a / b", "fdiv", "f32"), ("-a", "fneg", "f32"), ("sqrt(a)", "fsqrt", "f32"),
    ("abs(a)", "fabs", "f32"), ("min(a, b)", "fmin", "f32"), ("max(a, b)", "fmax", "f32"),
    ("a < b", "flt", "bool"), ("a <= b", "fle", "bool"), ("a > b", "fgt", "bool"),
    ("a >= b", "fge", "bool"), ("a == b", "feq", "bool"), ("a != b", "fne", "bool"),
    ("n + j", "add", "i32"), ("n - j", "sub", "i32"), ("n * j", "mul", "i32"),
    ("n / j", "sdiv", "i32"), ("n % j", "srem", "i32"), ("-n", "neg", "i32"),
    ("n << j", "shl", "i32"), ("n >> j", "ashr", "i32"), ("n & j", "and", "i32"),
    ("n | j", "or", "i32"), ("n ^ j", "xor", "i32"), ("~n", "not", "i32"),
    ("abs(n)", "iabs", "i32"), ("min(n, j)", "smin", "i32"), ("max(n, j)", "smax", "i32"),
    ("n < j", "slt", "bool"), ("n <= j", "sle", "bool"), ("n > j", "sgt", "bool"),
    ("n >= j", "sge", "bool"), ("n == j", "ieq", "bool"), ("n != j", "ine", "bool"),
    ("k + l", "add", "u32"), ("k / l", "udiv", "u32"), ("k % l", "urem", "u32"),
    ("k << l", "shl", "u32"), ("k >> l", "lshr", "u32"), ("k >> n", "lshr", "u32"),
    ("min(k, l)", "umin", "u32"), ("max(k, l)", "umax", "u32"), ("-k", "neg", "u32"),
    ("k < l", "ult", "bool"), ("k <= l", "ule", "bool"), ("k > l", "ugt", "bool"),
    ("k >= l", "uge", "bool"), ("k == l", "ieq", "bool"), ("k != l", "ine", "bool"),
    ("p && q", "and", "bool"), ("p || q", "or", "bool"), ("!p", "not", "bool"),
    ("p != q", "xor", "bool"), ("p == q", "not", "bool"), ("p & q", "and", "bool"),
    ("p ? a : b", "select", "f32"), ("sel(q, n, j)", "select", "i32"),
    ("f32(n)", "sitofp", "f32"), ("f32(k)", "uitofp", "f32"), ("i32(a)", "fptosi", "i32"),
    ("u32(a)", "fptoui", "u32"), ("i32(k)", "bitcast", "i32"), ("u32(n)", "bitcast", "u32"),
    ("i32(p)", "booltoint", "i32"), ("u32(q)", "booltoint", "u32"),
    ("bits(a)", "bitcast", "u32"), ("fbits(k)", "bitcast", "f32"), ("fbits(n)", "bitcast", "f32"),
    ("shift(a, 2)", "shift", "f32"), ("shift(n + j, -1)", "shift", "i32"),
]


@pytest.mark.parametrize("expr,op,ty", OPS)
def test_operator_selection(tmp_path, expr, op, ty):
    r = _node(_graph(tmp_path, f"EQU t, r = {expr};"), "r")
    assert (r.op, str(r.type)) == (op, ty)


def test_identities_make_no_node(tmp_path):
    g = _graph(tmp_path, "EQU t1, r1 = abs(k);\nEQU t2, r2 = f32(a);\nEQU t3, r3 = i32(n);")
    assert not [n for n in g.nodes if n.name in ("r1", "r2", "r3")]
    assert len(g.nodes) == 6 + 2  # 6 inputs and p, q


CONSTS = [  # expression, op that reads the constant, constant type, bits
    ("a * 2", "fmul", "f32", 0x40000000),  # an integer literal takes f32
    ("a + 0.1", "fadd", "f32", 0x3DCCCCCD),
    ("a + 1e-45", "fadd", "f32", 0x00000001),  # rounds to the smallest subnormal
    ("a + 3.4028235e38", "fadd", "f32", 0x7F7FFFFF),
    ("a + 16777217", "fadd", "f32", 0x4B800000),  # nearest-even
    ("n + 0xFFFFFFFF", "add", "i32", 0xFFFFFFFF), ("n + -2147483648", "add", "i32", 0x80000000),
    ("k * 3", "mul", "u32", 3), ("n + (3 * 4 - 20)", "add", "i32", 0xFFFFFFF8),
    ("n + 7 / -2", "add", "i32", 0xFFFFFFFD), ("n + -7 % 3", "add", "i32", 0xFFFFFFFF),
    ("k >> 1 << 2", "shl", "u32", 2), ("n > 1 << 4", "sgt", "i32", 16),
]


@pytest.mark.parametrize("expr,op,ty,bits", CONSTS)
def test_constants_and_literal_typing(tmp_path, expr, op, ty, bits):
    r = _node(_graph(tmp_path, f"EQU t, r = {expr};"), "r")
    assert r.op == op
    consts = [a for a in r.args if a.op == "const"]
    assert [(str(c.type), c.attrs["bits"]) for c in consts] == [(ty, bits)]


def test_negative_real_literal_is_one_constant(tmp_path):
    g = _graph(tmp_path, "EQU t, r = -1.5;")
    r = _node(g, "r")
    assert (r.op, r.attrs["bits"]) == ("const", 0xBFC00000)
    assert not [n for n in g.nodes if n.op == "fneg"]


def test_untyped_constants_default_to_i32_and_bool_constants(tmp_path):
    g = _graph(tmp_path, "EQU t1, r1 = 5;\nEQU t2, r2 = 0xFFFFFFFF;\nEQU t3, r3 = 1 < 2;")
    assert [(str(_node(g, r).type), _node(g, r).attrs["bits"]) for r in ("r1", "r2", "r3")] == [
        ("i32", 5), ("u32", 0xFFFFFFFF), ("bool", 1)]


def test_output_port_types_its_integer_literal(tmp_path):
    path = tmp_path / "o.spd"
    path.write_text("Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y, z:u32};\n"
                    "EQU e, y = 3;\nEQU f, z = 3;\n")
    g = load_program(path)[0].top_graph
    assert [(o.port.name, str(o.node.type), o.node.attrs["bits"]) for o in g.outputs] == [
        ("y", "f32", 0x40400000), ("z", "u32", 3)]


@pytest.mark.parametrize("text", ["0.1", "1e-3", "2.0e+4", ".5", "3.14159265358979", "1e-40",
                                  "1.17549435e-38", "7e-46", "3.4028234e38", "123456789"])
def test_real_literals_round_to_nearest_even(text):
    want = struct.unpack("<I", np.float32(Fraction(text).numerator / Fraction(text).denominator
                                          ).tobytes())[0]
    assert real_literal(text) == f32_bits(Fraction(text)) == want


def test_f32_rounding_matches_numpy_on_exact_doubles():
    rng = np.random.default_rng(5)
    vals = np.concatenate([rng.standard_normal(2000) * 10.0 ** rng.integers(-45, 39, 2000),
                           np.array([2.0 ** -149 * 0.5, 2.0 ** -149 * 1.5, 2.0 ** -126])])
    for v in vals:
        with np.errstate(over="ignore"):
            want = int(np.float32(v).view(np.uint32))
        assert f32_bits(Fraction(float(v))) == want, v


def test_shift_attrs(tmp_path):
    g = _graph(tmp_path, "Param W = 10;\nEQU t1, r1 = shift(a, -W / 2, 1);\n"
                         "EQU t2, r2 = shift(n, W, -1);\nEQU t3, r3 = shift(k, 1);\n"
                         "EQU t4, r4 = shift(a * b, 3, -0.0);")
    got = [(_node(g, r).attrs["offset"], _node(g, r).attrs["fill"], str(_node(g, r).type))
           for r in ("r1", "r2", "r3", "r4")]
    assert got == [(-5, 0x3F800000, "f32"), (10, 0xFFFFFFFF, "i32"), (1, 0, "u32"),
                   (3, 0x80000000, "f32")]
    assert _node(g, "r4").args[0].op == "fmul"


def test_ports_regs_and_outputs():
    prog, diags = load_program(PROGRAMS / "brch.spd")
    g = prog.top_graph
    assert not diags.items
    assert [(p.name, str(p.type), p.stream, p.index) for p in g.inputs] == [
        ("f0", "f32", "main", 0), ("f1", "f32", "main", 1), ("attr", "u32", "main", 2),
        ("h", "f32", "brch", 0), ("hi", "i32", "brch", 1)]
    ins = [n for n in g.nodes if n.op == "input"]
    assert [(n.attrs["port"], n.attrs["stream"], n.attrs["index"], n.name) for n in ins] == [
        (p.name, p.stream, p.index, p.name) for p in g.inputs]
    assert [(r.name, str(r.type), r.default) for r in g.regs] == [
        ("omega", "f32", 0x3FCCCCCD), ("mask", "u32", 0xFF), ("off", "i32", 0xFFFFFFC0)]
    regs = [n for n in g.nodes if n.op == "reg"]
    assert [(n.attrs["name"], n.attrs["default"]) for n in regs] == [
        (r.name, r.default) for r in g.regs]
    assert [(o.port.name, o.port.stream, o.port.index, o.node.name) for o in g.outputs] == [
        ("g0", "main", 0, "g0"), ("g1", "main", 1, "g1"), ("attr_o", "main", 2, "attr"),
        ("k", "brch", 0, "k"), ("ki", "brch", 1, "ki")]
    assert g.params == {"W": 64, "HALF": 0.5}
    assert (g.outputs[0].node.loc.line, g.outputs[0].node.loc.col) == (14, 28)  # the '-'


def test_instances_externs_and_projections():
    prog, _ = load_program(PROGRAMS / "hier.spd")
    assert prog.top == "hier"
    assert sorted(prog.modules) == ["addsub", "hier", "scale", "scale__G_4"]
    g = prog.top_graph
    insts = [n for n in g.nodes if n.op == "inst"]
    assert [(n.attrs["label"], n.attrs["module"], len(n.args)) for n in insts] == [
        ("s1", "scale", 1), ("s2", "scale__G_4", 1), ("s3", "scale__G_4", 1), ("as", "addsub", 2)]
    assert insts[3].attrs["latency"] == 7 and "latency" not in insts[0].attrs
    assert prog.modules["scale__G_4"].params == {"G": 4}
    k = next(n for n in prog.modules["scale__G_4"].nodes if n.op == "const")
    assert k.attrs["bits"] == 0x40800000
    projs = [(n.args[0].attrs["label"], n.attrs["index"], n.name, str(n.type))
             for n in g.nodes if n.op == "proj"]
    assert projs == [("s1", 0, "x2", "f32"), ("s2", 0, "x4", "f32"), ("s3", 0, "x4b", "f32"),
                     ("as", 0, "su", "f32"), ("as", 1, "df", "f32"), ("f1", 0, "raw", "u32")]
    (ext,) = [n for n in g.nodes if n.op == "extern"]
    assert ext.attrs["file"] == str((PROGRAMS / "filt.v").resolve())
    assert (ext.attrs["module"], ext.attrs["latency"], ext.attrs["label"]) == ("filt", 3, "f1")
    assert ext.attrs["out_types"] == (Type.U32,) and ext.args[0].op == "bitcast"
    for m in prog.modules.values():
        m.verify()


def test_unreachable_module_is_checked_but_not_in_program(tmp_path):
    path = tmp_path / "two.spd"
    path.write_text("Name spare;\nMain_In {Mi::x};\nMain_Out {Mo::y};\nEQU e, y = x;\n"
                    "Name top;\nMain_In {Mi::x};\nMain_Out {Mo::y};\nEQU e, y = -x;\n")
    prog, _ = load_program(path)
    assert list(prog.modules) == ["top"] and prog.top == "top"
    prog, _ = load_program(path, top="spare")
    assert list(prog.modules) == ["spare"]


def test_statement_order_is_free_and_drct_makes_no_node(tmp_path):
    path = tmp_path / "o.spd"
    path.write_text("Name m;\nMain_In {Mi::x};\nMain_Out {Mo::y, z};\n"
                    "DRCT (z) = (t);\nEQU e2, y = t * 2.0;\nEQU e1, t = x + 1.0;\n")
    g = load_program(path)[0].top_graph
    assert [n.name for n in g.nodes if n.name] == ["x", "t", "y"]
    assert g.outputs[1].node is _node(g, "t")


def test_printed_ir_is_deterministic():
    a = load_program(PROGRAMS / "hier.spd")[0].to_text()
    b = load_program(PROGRAMS / "hier.spd")[0].to_text()
    assert a == b and "inst %0 [label='s1' module='scale' params={G:2}]" in a


def test_include_paths_are_relative_to_the_including_file(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "lib/outer.spd").write_text(
        'Include "inner.spd";\nName outer;\nMain_In {Mi::x};\nMain_Out {Mo::y};\n'
        "HDL i, auto, (t) = inner(x);\nEQU e, y = t + 1.0;\n")
    (tmp_path / "lib/inner.spd").write_text(
        "Name inner;\nMain_In {Mi::x};\nMain_Out {Mo::y};\nEQU e, y = x * x;\n")
    main = tmp_path / "app/main.spd"
    main.write_text('Include "../lib/outer.spd";\nName top;\nMain_In {Mi::a};\n'
                    "Main_Out {Mo::b};\nHDL o, auto, (b) = outer(a);\n")
    prog, diags = load_program(main)
    assert sorted(prog.modules) == ["inner", "outer", "top"] and not diags.items
    # Diagnostics in an included file name that file.
    (tmp_path / "lib/inner.spd").write_text(
        "Name inner;\nMain_In {Mi::x};\nMain_Out {Mo::y};\nEQU e, y = x % x;\n")
    with pytest.raises(Exception) as info:
        load_program(main)
    (d,) = info.value.diagnostics.errors
    assert (Path(d.file).resolve(), d.line, d.col) == ((tmp_path / "lib/inner.spd").resolve(), 4, 14)
