"""Parser: every construct of SPD.md, operator precedence and associativity, literals."""
from pathlib import Path

import pytest
from spgen._diagnostics import Diagnostics
from spgen.frontend import _ast as A
from spgen.frontend._parse import parse_text

PROGRAMS = Path(__file__).parent / "programs"


def _parse(text: str) -> A.SourceFile:
    d = Diagnostics()
    sf = parse_text(text, "t.spd", d)
    assert sf is not None and not d.items, d.render()
    return sf


def _sexpr(e: A.Expr) -> str:
    if isinstance(e, A.NameRef):
        return e.name
    if isinstance(e, (A.IntLit, A.RealLit)):
        return e.text
    if isinstance(e, A.Unary):
        return f"({e.op} {_sexpr(e.operand)})"
    if isinstance(e, A.Binary):
        return f"({e.op} {_sexpr(e.lhs)} {_sexpr(e.rhs)})"
    if isinstance(e, A.Cond):
        return f"(? {_sexpr(e.cond)} {_sexpr(e.a)} {_sexpr(e.b)})"
    return f"{e.name}[{' '.join(_sexpr(a) for a in e.args)}]"


def _expr(src: str) -> str:
    sf = _parse(f"Name m; EQU e, x = {src};")
    return _sexpr(sf.modules[0].stmts[0].value)


# SPD.md: lowest first  ?: · || · && · | · ^ · & · == != · < <= > >= · << >> · + - ·
# * / % · unary - ! ~ · calls and parentheses; equal precedence associates left.
PRECEDENCE = [
    ("a || b && c", "(|| a (&& b c))"), ("a && b || c", "(|| (&& a b) c)"),
    ("a && b | c", "(&& a (| b c))"), ("a | b && c", "(&& (| a b) c)"),
    ("a | b ^ c", "(| a (^ b c))"), ("a ^ b | c", "(| (^ a b) c)"),
    ("a ^ b & c", "(^ a (& b c))"), ("a & b ^ c", "(^ (& a b) c)"),
    ("a & b == c", "(& a (== b c))"), ("a != b & c", "(& (!= a b) c)"),
    ("a == b < c", "(== a (< b c))"), ("a >= b != c", "(!= (>= a b) c)"),
    ("a <= b << c", "(<= a (<< b c))"), ("a >> b > c", "(> (>> a b) c)"),
    ("a << b + c", "(<< a (+ b c))"), ("a - b >> c", "(>> (- a b) c)"),
    ("a + b * c", "(+ a (* b c))"), ("a / b - c", "(- (/ a b) c)"),
    ("a % b + c", "(+ (% a b) c)"), ("-a * b", "(* (- a) b)"), ("a * -b", "(* a (- b))"),
    ("!a && ~b", "(&& (! a) (~ b))"), ("- - a", "(- (- a))"), ("!~-a", "(! (~ (- a)))"),
    ("a - b - c", "(- (- a b) c)"), ("a / b / c", "(/ (/ a b) c)"),
    ("a << b >> c", "(>> (<< a b) c)"), ("a < b < c", "(< (< a b) c)"),
    ("a == b != c", "(!= (== a b) c)"), ("a * b % c / d", "(/ (% (* a b) c) d)"),
    ("a ? b : c ? d : e", "(? a b (? c d e))"), ("a ? b ? c : d : e", "(? a (? b c d) e)"),
    ("a || b ? c + d : e * f", "(? (|| a b) (+ c d) (* e f))"),
    ("(a + b) * c", "(* (+ a b) c)"), ("-(a + b)", "(- (+ a b))"),
    ("f(a, b + c) * g()", "(* f[a (+ b c)] g[])"),
    ("a + b * c - d / e % f << g < h == i & j ^ k | l && m || n",
     "(|| (&& (| (^ (& (== (< (<< (- (+ a (* b c)) (% (/ d e) f)) g) h) i) j) k) l) m) n)"),
]


@pytest.mark.parametrize("src,tree", PRECEDENCE)
def test_precedence_and_associativity(src, tree):
    assert _expr(src) == tree


@pytest.mark.parametrize("text,kind,value", [
    ("42", A.IntLit, 42), ("0x2A", A.IntLit, 42), ("0X2a", A.IntLit, 42), ("007", A.IntLit, 7),
    ("1.5", A.RealLit, "1.5"), (".5", A.RealLit, ".5"), ("1e-3", A.RealLit, "1e-3"),
    ("2.0e+4", A.RealLit, "2.0e+4"), ("3.", A.RealLit, "3."), ("1E5", A.RealLit, "1E5"),
])
def test_literals(text, kind, value):
    e = _parse(f"Name m; EQU e, x = {text};").modules[0].stmts[0].value
    assert isinstance(e, kind)
    assert (e.value if kind is A.IntLit else e.text) == value


def test_comments_whitespace_and_identifiers():
    sf = _parse("# a comment\nName m; // another\n\tEQU e_1, _x9 = A_b + # mid-expression\n c;\n")
    st = sf.modules[0].stmts[0]
    assert (st.label, st.target, _sexpr(st.value)) == ("e_1", "_x9", "(+ A_b c)")
    assert (st.loc.line, st.loc.col) == (3, 6)


def test_keywords_are_case_sensitive():
    d = Diagnostics()
    assert parse_text("name m;", "t.spd", d) is None and d.has_errors
    # Lower-case keyword spellings and type names are ordinary identifiers.
    e = _parse("Name m; EQU e, x = name + equ + f32;").modules[0].stmts[0].value
    assert _sexpr(e) == "(+ (+ name equ) f32)"


def test_declarations_and_statements():
    sf = _parse((PROGRAMS / "brch.spd").read_text())
    (m,) = sf.modules
    assert m.name == "brch"
    kinds = {s.kind: (s.stream, [(p.name, p.type) for p in s.ports]) for s in m.streams}
    assert kinds == {"Main_In": ("Mi", [("f0", None), ("f1", None), ("attr", "u32")]),
                     "Main_Out": ("Mo", [("g0", None), ("g1", None), ("attr_o", "u32")]),
                     "Brch_In": ("Bi", [("h", None), ("hi", "i32")]),
                     "Brch_Out": ("Bo", [("k", None), ("ki", "i32")])}
    assert [(p.name, _sexpr(p.value)) for p in m.params] == [("W", "64"),
                                                             ("HALF", "(/ W 128.0)")]
    assert [(r.name, r.type, _sexpr(r.value)) for r in m.regs] == [
        ("omega", None, "1.6"), ("mask", "u32", "0xFF"), ("off", "i32", "(- W)")]
    equs = [s for s in m.stmts if isinstance(s, A.Equ)]
    assert _sexpr(equs[3].value) == "shift[h (- W) 1.0]"
    (drct,) = [s for s in m.stmts if isinstance(s, A.Drct)]
    assert [t for t, _ in drct.targets] == ["attr_o"] and [s for s, _ in drct.sources] == ["attr"]


def test_hdl_include_and_multiple_modules():
    sf = _parse((PROGRAMS / "hier.spd").read_text())
    assert [i.path for i in sf.includes] == ["lib.spd"]
    hdl = [s for s in sf.modules[0].stmts if isinstance(s, A.Hdl)]
    s1, _s2, s3, as_, f1 = hdl
    assert (s1.label, s1.latency, s1.callee, [o.name for o in s1.outs]) == (
        "s1", "auto", "scale", ["x2"])
    assert [(p.name, _sexpr(p.value)) for p in s3.params] == [("G", "(* 2 2)")]
    assert (as_.latency, [o.name for o in as_.outs]) == ("7", ["su", "df"])
    assert [(o.name, o.type) for o in f1.outs] == [("raw", "u32")]
    assert [(p.name, p.string) for p in f1.params] == [("file", "filt.v"), ("WIDTH", None)]
    drct = sf.modules[0].stmts[-1]
    assert [t for t, _ in drct.targets] == ["o3", "o4"]
    lib = _parse((PROGRAMS / "lib.spd").read_text())
    assert [m.name for m in lib.modules] == ["scale", "addsub"]


def test_two_pairs_drct_and_multi_output_hdl_positions():
    sf = _parse("Name m;\nDRCT (a, b) = (c, d);\nHDL u1, 5, (y:u32) = f(x) [file=\"f.v\"];")
    drct, hdl = sf.modules[0].stmts
    assert [(n, (lc.line, lc.col)) for n, lc in drct.targets] == [("a", (2, 7)), ("b", (2, 10))]
    assert [(n, (lc.line, lc.col)) for n, lc in drct.sources] == [("c", (2, 16)), ("d", (2, 19))]
    assert (hdl.latency_loc.col, hdl.callee_loc.col) == (9, 22)


def test_long_operator_chain_does_not_recurse():
    n = 20000
    e = _parse("Name m; EQU e, x = " + " + ".join(["a"] * n) + ";").modules[0].stmts[0].value
    depth = 0
    while isinstance(e, A.Binary):
        e, depth = e.lhs, depth + 1
    assert depth == n - 1
