"""Invalid programs: each gives its diagnostic at the right line:column, never a traceback."""
from pathlib import Path

import pytest
from spd_frontend_cases import HEADER, INVALID, INVALID_MULTI
from spgen import CompileError
from spgen.frontend import check_file, load_program

PROGRAMS = Path(__file__).parent / "programs"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / "ext.v").write_text("module ext(input clk, ce); endmodule\n")
    p = tmp_path / f"{name}.spd"
    p.write_text(text + "\n")
    return p


def _text(case_id: str, body: str, multi: bool) -> str:
    if multi:
        return body
    return body[5:] if body.startswith("full:") else HEADER + body


def test_there_are_at_least_40_distinct_invalid_programs():
    ids = [c[0] for c in INVALID + INVALID_MULTI]
    assert len(set(ids)) == len(ids) >= 40
    assert len({c[1] for c in INVALID + INVALID_MULTI}) == len(ids)


@pytest.mark.parametrize("case", INVALID + INVALID_MULTI, ids=lambda c: c[0])
def test_invalid_program(tmp_path, case):
    cid, body, line, col, message = case
    path = _write(tmp_path, cid, _text(cid, body, case in INVALID_MULTI))
    with pytest.raises(CompileError) as info:
        load_program(path)
    diags = info.value.diagnostics
    hits = [d for d in diags.errors if (d.line, d.col) == (line, col) and message in d.message]
    assert hits, f"expected {line}:{col} {message!r}, got:\n{diags.render()}"
    assert hits[0].file == str(path)
    text = diags.render()
    assert f"{path}:{line}:{col}: error: " in text
    # The source line and a caret under the column follow the message.
    src_line = path.read_text().splitlines()[line - 1] if line else None
    if src_line is not None:
        block = text.split(f"{path}:{line}:{col}: error: ")[1].splitlines()
        assert block[1] == "  " + src_line.expandtabs(1)
        assert block[2] == "  " + " " * (col - 1) + "^"


def test_every_independent_error_is_reported(tmp_path):
    body = ("EQU e1, s = a + n;\n"        # 4: f32 + i32
            "EQU e2, t = q * 2.0;\n"      # 5: undefined q
            "EQU e3, u = sqrt(k);\n"      # 6: sqrt of u32
            "EQU e1, v = a;\n"            # 7: label reused
            "EQU e5, y = b % a;\n")       # 8: f32 remainder
    diags = check_file(_write(tmp_path, "many", HEADER + body))
    got = {(d.line, d.col) for d in diags.errors}
    assert {(4, 15), (5, 13), (6, 13), (7, 5), (8, 15)} <= got
    # Errors inside signals stay local: nothing cascades from the failed definitions.
    assert len(diags.errors) == 5


def test_include_cycle_and_missing_include(tmp_path):
    with pytest.raises(CompileError, match="include cycle: cycle_a.spd -> cycle_b.spd -> "
                                           "cycle_a.spd"):
        load_program(PROGRAMS / "cycle_a.spd")
    p = _write(tmp_path, "inc", 'Include "nowhere/lib.spd";\n' + HEADER + "EQU e, y = a;")
    d = check_file(p).errors
    assert (d[0].line, d[0].col) == (1, 9) and "cannot read" in d[0].message


def test_top_and_param_errors(tmp_path):
    p = _write(tmp_path, "ok", HEADER + "Param W = 4;\nEQU e, y = shift(a, W);")
    with pytest.raises(CompileError, match="no module named 'zz'"):
        load_program(p, top="zz")
    with pytest.raises(CompileError, match="module 'm' has no Param 'Q'"):
        load_program(p, params={"Q": "1"})
    with pytest.raises(CompileError, match="must be an integer or a real number"):
        load_program(p, params={"W": "abc"})
    prog, _ = load_program(p, params={"W": "-0x10"})
    assert prog.top_graph.shifts()[0].attrs["offset"] == -16


def test_not_utf8_and_empty_and_missing_file(tmp_path):
    p = tmp_path / "bin.spd"
    p.write_bytes(b"Name m;\nMain_In {Mi::a};\n# \xff\xfe\n")
    d = check_file(p).errors[0]
    assert (d.line, d.col, d.message) == (3, 3, "file is not valid UTF-8")
    e = tmp_path / "empty.spd"
    e.write_text("# nothing here\n")
    assert "defines no module" in check_file(e).errors[0].message
    assert "cannot read" in check_file(tmp_path / "absent.spd").errors[0].message


def test_unused_signal_is_a_warning_not_an_error(tmp_path):
    p = _write(tmp_path, "warn", HEADER + "Reg r = 1.0;\nEQU e, t = a * 2.0;\nEQU f, y = b;")
    prog, diags = load_program(p)
    assert not diags.has_errors
    assert [(d.severity, d.line, d.col, d.message) for d in diags.items] == [
        ("warning", 4, 5, "signal 'r' is never used"),
        ("warning", 5, 8, "signal 't' is never used")]
    assert prog.top == "m"


def test_errors_come_in_source_order_with_notes_attached(tmp_path):
    body = "EQU e, y = a;\nEQU f, y = b;\nEQU g, z = q;"
    diags = check_file(_write(tmp_path, "order", HEADER + body))
    assert [(d.severity, d.line) for d in diags.items] == [
        ("error", 5), ("note", 4), ("warning", 6), ("error", 6)]


def test_redefining_an_input_is_one_error_not_a_cycle(tmp_path):
    diags = check_file(_write(tmp_path, "redef", HEADER + "EQU e, a = a + 1.0;\nEQU f, y = a;"))
    assert [(d.severity, d.line, d.col) for d in diags.items] == [
        ("error", 4, 8), ("note", 2, 14)]
