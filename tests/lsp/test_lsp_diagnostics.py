"""Diagnostics from `spgen lsp`: every front-end error case, at the compiler's line:col, with
a range to the end of the offending token or expression."""
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsp_client import SERVER, close_doc, open_doc, range_text, start
from lsprotocol import types as T
from pytest_lsp import LanguageClient
from spgen.frontend import check_file

sys.path.insert(0, str(Path(__file__).parents[1] / "frontend"))
from spd_frontend_cases import HEADER, INVALID, INVALID_MULTI

pytestmark = pytest.mark.asyncio(loop_scope="module")

# What the range of the case's own diagnostic covers, where a token starts there.
EXPECTED_TEXT = {
    "undefined-signal": "q",
    "unknown-function": "foo(a)",
    "arg-count": "min(a)",
    "mix-f32-i32": "+ n",
    "lex-bad-char": "$",
    "output-type": "y",
    "cond-branches-differ": "? a : n",
    "param-div-zero": "/ (2 - 2)",
    "shift-offset-real": "1.5",
    "callee-error": "& 1",
    "sqrt-int": "sqrt(n)",
    "defined-twice": "y",
    "label-twice": "e",
    "hdl-unknown-module": "nosuch",
    "drct-count": "DRCT",
    "nesting-too-deep": "(",
    "module-twice": "sub",
    "inst-arg-type": "n",
}
# Syntax errors for a missing token point between tokens: an empty range.
EMPTY = {"syntax-missing-semicolon"}


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient):
    # every check on the keystroke itself: one publication per change
    await start(lsp_client, checkBudgetMs=100000, debounceMs=0)
    yield
    await lsp_client.shutdown_session()


def _text(body: str, multi: bool) -> str:
    if multi:
        return body + "\n"
    return (body[5:] if body.startswith("full:") else HEADER + body) + "\n"


CASES = [(c, False) for c in INVALID] + [(c, True) for c in INVALID_MULTI]


@pytest.mark.parametrize("case,multi", CASES, ids=lambda c: c[0] if isinstance(c, tuple) else "")
async def test_every_error_case(client: LanguageClient, tmp_path, case, multi):
    cid, body, line, col, message = case
    (tmp_path / "ext.v").write_text("module ext(input clk, ce); endmodule\n")
    path = tmp_path / f"{cid}.spd"
    text = _text(body, multi)
    path.write_text(text)
    got = await open_doc(client, path, text)
    close_doc(client, path)
    # exactly the compiler's findings, in its order, at its positions
    want = [d for d in check_file(path).items if d.severity != "note"]
    assert [(d.range.start.line + 1, d.range.start.character + 1, d.message) for d in got] == \
        [(d.line, d.col, d.message) for d in want]
    assert [d.severity for d in got] == [
        T.DiagnosticSeverity.Error if d.severity == "error" else T.DiagnosticSeverity.Warning
        for d in want]
    hit = [d for d in got if (d.range.start.line + 1, d.range.start.character + 1) == (line, col)
           and message in d.message]
    assert hit, got
    covered = range_text(text, hit[0].range)
    if cid in EXPECTED_TEXT:
        assert covered == EXPECTED_TEXT[cid]
    elif cid in EMPTY:
        assert covered == ""
    src = text.split("\n")[line - 1]
    if col - 1 < len(src) and not src[col - 1].isspace() and cid not in EMPTY:
        assert covered and src[col - 1:].startswith(covered.split("\n")[0][:1])


async def test_notes_are_related_information(client: LanguageClient, tmp_path):
    path = tmp_path / "twice.spd"
    text = HEADER + "EQU e, y = a;\nEQU f, y = b;\n"
    got = await open_doc(client, path, text)
    err = next(d for d in got if "'y' is already defined" in d.message)
    rel = err.related_information
    assert rel and "previous definition" in rel[0].message
    assert rel[0].location.range.start == T.Position(3, 7)
    assert rel[0].location.uri == path.as_uri()


async def test_unused_signal_is_a_warning_marked_unnecessary(client: LanguageClient, tmp_path):
    path = tmp_path / "unused.spd"
    got = await open_doc(client, path, HEADER + "EQU e, s = a;\nEQU f, y = b;\n")
    (w,) = got
    assert w.severity == T.DiagnosticSeverity.Warning and "never used" in w.message
    assert list(w.tags) == [T.DiagnosticTag.Unnecessary]
    assert (w.range.start.line, w.range.start.character, w.range.end.character) == (3, 7, 8)


async def test_error_in_an_included_file_shows_on_the_include(client: LanguageClient, tmp_path):
    (tmp_path / "lib.spd").write_text("Name lib;\nMain_In {Mi::p};\nMain_Out {Mo::r};\n"
                                      "EQU e, r = p & 1;\n")
    path = tmp_path / "top.spd"
    text = 'Include "lib.spd";\n' + HEADER + "HDL h, auto, (y) = lib(a);\n"
    got = await open_doc(client, path, text)
    (d,) = [d for d in got if d.severity == T.DiagnosticSeverity.Error]
    assert d.message.startswith("lib.spd:4:14: ") and "'&' is not defined on f32" in d.message
    assert range_text(text, d.range) == '"lib.spd"'
    loc = d.related_information[0].location
    assert loc.uri == (tmp_path / "lib.spd").as_uri()
    assert (loc.range.start.line, loc.range.start.character, loc.range.end.character) == \
        (3, 13, 16)


async def test_non_ascii_columns_are_utf16(client: LanguageClient, tmp_path):
    # a string with a character outside the BMP (two UTF-16 units) before the error
    path = tmp_path / "emoji.spd"
    (tmp_path / "ext.v").write_text("module ext(input clk, ce); endmodule\n")
    line = 'HDL h, 3, (y) = ext(a) [file="\U0001F600.v"]; EQU f, z = q;'
    text = HEADER + line + "\n"
    got = await open_doc(client, path, text)
    d = next(d for d in got if "undefined signal 'q'" in d.message)
    cp = line.index("q")
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == \
        (3, cp + 1, cp + 2)
    path2 = tmp_path / "accent.spd"
    text2 = HEADER + "EQU \u00e9, y = q;\n"  # 'é' is not an identifier: a lexer error
    got2 = await open_doc(client, path2, text2)
    assert got2[0].message == "unexpected character '\u00e9'"
    assert (got2[0].range.start.character, got2[0].range.end.character) == (4, 5)
