"""The statement-by-statement parser gives the compiler's syntax tree, before and after edits,
and the front end's hooks for editor text work as the language server uses them."""
import dataclasses
import sys
from pathlib import Path

import pytest
from spgen._diagnostics import Diagnostics
from spgen.frontend import check_file
from spgen.frontend._parse import parse_text
from spgen.lsp._check import check, stages
from spgen.lsp._incremental import IncrementalParser
from spgen.lsp._workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from frontend_bench import generate  # a clean program of n statements

SOURCES = sorted(ROOT.glob("cores/**/*.spd")) + sorted(ROOT.glob("tests/**/*.spd"))


def dump(x):
    """A comparable form of a syntax tree, positions included."""
    if dataclasses.is_dataclass(x):
        return (type(x).__name__,) + tuple(dump(getattr(x, f.name))
                                           for f in dataclasses.fields(x))
    if isinstance(x, (list, tuple)):
        return tuple(dump(y) for y in x)
    return x


def whole(text: str, path: str = "f.spd"):
    diags = Diagnostics()
    return parse_text(text, path, diags), [(d.line, d.col, d.message) for d in diags.items]


def test_there_are_sources():
    assert len(SOURCES) > 20


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_tree_or_same_errors_as_the_compiler(path):
    text = path.read_text(encoding="utf-8")
    ref, errs = whole(text.removeprefix("\ufeff"), str(path))
    got = IncrementalParser(str(path)).parse(text)
    if ref is None:
        assert [(d.line, d.col, d.message) for d in got.errors] == errs
    else:
        assert not got.errors and dump(got.source) == dump(ref)


def test_edits_reuse_statements_and_keep_positions_right():
    text = generate(300)
    p = IncrementalParser("g.spd")
    assert p.parse(text).reparsed > 290
    edits = [
        lambda t: "\n\n" + t,                               # lines inserted on top
        lambda t: t.replace("e100,", "e100b,"),             # one statement changed
        lambda t: t.replace("EQU e7,", "EQU e7 ,\n"),        # a statement split over lines
        lambda t: t + "EQU ez, sz = s1 + s2;\n",            # one appended
        lambda t: t[2:],                                    # the top lines removed again
    ]
    for edit in edits:
        text = edit(text)
        got = p.parse(text)
        assert got.reparsed == 1
        ref, errs = whole(text, "g.spd")
        assert not errs and dump(got.source) == dump(ref)


def test_same_statement_twice_gets_two_trees():
    text = "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = a;\nEQU e, y = a;\n"
    got = IncrementalParser("d.spd").parse(text)
    a, b = got.source.modules[0].stmts
    assert a is not b and (a.loc.line, b.loc.line) == (4, 5)


def test_half_typed_file_keeps_the_statements_that_parse():
    text = ("Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e1, s = a +;\n"
            "EQU e2, y = s * 2.0;\nEQU e3, t = min(a,")
    got = IncrementalParser("h.spd").parse(text)
    assert [(d.line, d.col) for d in got.errors] == [(4, 16), (6, 19)]
    assert [st.label for st in got.source.modules[0].stmts] == ["e2"]
    # the first error is the compiler's own (a whole-file parse recovers differently later)
    assert whole(text)[1][0] == (4, 16, got.errors[0].message)


def test_loader_hooks_serve_editor_text_and_report_lowered_modules(tmp_path):
    """Loader.read/parse/lowered: unsaved text is checked, its tree reused, types kept."""
    path = tmp_path / "m.spd"
    path.write_text("this file on disk is not what the editor shows\n")
    text = "Name m;\nMain_In {Mi::a, n:i32};\nMain_Out {Mo::y};\nEQU e, s = n + 1;\n" \
           "EQU f, y = a * f32(s);\n"
    sf = IncrementalParser(str(path)).parse(text).source
    res = check(str(path), {str(path.resolve()): text}, {str(path.resolve()): sf})
    assert res.diagnostics == [] and res.program is not None
    low = res.lowered[id(sf.modules[0])]  # the tree handed in is the one checked
    assert str(low.signals["s"].value.type) == "i32"
    assert str(low.signals["y"].value.type) == "f32"
    ticks, latency = stages(res)
    assert latency > 0 and ticks  # the schedule of the compiled core, by source position
    # the same check, parsed by the compiler itself, and an error in the text
    bad = text.replace("n + 1", "n + a")
    res = check(str(path), {str(path.resolve()): bad}, {})
    assert [d.message for d in res.diagnostics] == [
        "operands of '+' have different types: i32 and f32 (convert with f32(), i32() or u32())"]
    assert res.program is None and stages(res) is None
    # the file on disk is untouched and still wrong for the command-line compiler
    assert check_file(path).has_errors


def test_workspace_reads_includes_from_disk_and_follows_edits(tmp_path):
    lib = tmp_path / "lib.spd"
    lib.write_text("Name lib;\nMain_In {Mi::p};\nMain_Out {Mo::r};\nEQU e, r = p;\n")
    ws = Workspace()
    doc = ws.open(str(tmp_path / "top.spd"), 'Include "lib.spd";\nName t;\n')
    assert set(doc.view.modules) == {"lib", "t"}
    lib.write_text("Name lib2;\nMain_In {Mi::p};\nMain_Out {Mo::r};\nEQU e, r = p;\n")
    doc.update('Include "lib.spd";\nName t;\n')
    assert set(doc.view.modules) == {"lib2", "t"}
    # an include cycle does not loop
    lib.write_text('Include "top.spd";\nName lib;\n')
    (tmp_path / "top.spd").write_text('Include "lib.spd";\nName t;\n')
    doc.update('Include "lib.spd";\nName t;\n')
    assert set(doc.view.modules) == {"lib", "t"}


def test_edits_within_lines_agree_with_a_fresh_parse():
    """Typing inside lines takes the short path (chunks before and after the change kept);
    random such edits, quotes, comments, ';' and module headers included, give the tree
    and errors a fresh parse of the same text gives."""
    import random

    rng = random.Random(3)  # this seed once met a quote closed right after a ';'
    pieces = [";", "\"", "#", "//", "Name q;", "x", " ", "(", ")", "EQU e, y = a;", "1.5",
              "Include \"a.spd\";", "DRCT (", ",", "Param", "\t"]
    for text in (generate(60), (ROOT / "cores" / "lbm" / "lbm_d2q9.spd").read_text(),
                 "Name a;\nEQU e, y = a;\nName b;\nEQU e, y = a;\nEQU e, y = a;\n"):
        inc = IncrementalParser("r.spd")
        inc.parse(text)
        short = 0
        for _ in range(150):
            lines = text.split("\n")
            k = rng.randrange(len(lines))
            i = rng.randrange(len(lines[k]) + 1)
            if rng.random() < 0.6:
                lines[k] = lines[k][:i] + rng.choice(pieces) + lines[k][i:]
            else:
                lines[k] = lines[k][:i] + lines[k][i + rng.randint(1, 6):]
            text = "\n".join(lines)
            got = inc.parse(text)
            short += got.reparsed < len(got.chunks) // 2
            fresh = IncrementalParser("r.spd")
            ref = fresh.parse(text)
            assert inc._offsets == fresh._offsets  # the same statements
            assert [c.line for c in got.chunks] == [c.line for c in ref.chunks]
            assert dump(got.source) == dump(ref.source)
            # the same errors at the same places (ANTLR's wording of a syntax error, its
            # "expecting" set or whether it calls a token missing or extraneous, depends
            # on what the process parsed before)
            assert [(d.line, d.col, d.message if not d.message.startswith("syntax") else "")
                    for d in got.errors] == \
                [(d.line, d.col, d.message if not d.message.startswith("syntax") else "")
                 for d in ref.errors]
        assert short > 100
