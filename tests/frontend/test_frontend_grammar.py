"""The committed parser is what the ANTLR tool generates from SPD.g4; the fast lexer equals it."""
import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

from antlr4 import CommonTokenStream, InputStream
from hypothesis import given, settings
from hypothesis import strategies as st
from spgen.frontend._generated.SPDLexer import SPDLexer
from spgen.frontend._lexer import tokenize

FRONTEND = Path(__file__).resolve().parents[2] / "compiler/spgen/frontend"
GENERATED = FRONTEND / "_generated"


def _antlr_tool() -> str:
    # antlr4-tools (setup.py [test]) and Java (scripts/ensure-system-packages.sh) come
    # with the project's own setup
    exe = Path(sys.executable).parent / "antlr4"
    return str(exe) if exe.exists() else shutil.which("antlr4") or "antlr4"


def test_committed_parser_matches_grammar(tmp_path):
    grammar = tmp_path / "SPD.g4"
    shutil.copy(FRONTEND / "grammar/SPD.g4", grammar)
    # The same command as `make grammar`.
    r = subprocess.run([_antlr_tool(), "-v", "4.13.2", "-Dlanguage=Python3", "-visitor",
                        "-no-listener", "-o", str(tmp_path / "out"), "SPD.g4"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
                       env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert r.returncode == 0, r.stdout + r.stderr
    fresh = sorted(p.name for p in (tmp_path / "out").iterdir())
    committed = sorted(p.name for p in GENERATED.iterdir()
                       if p.is_file() and p.name != "__init__.py")
    assert fresh == committed
    _match, mismatch, errors = filecmp.cmpfiles(tmp_path / "out", GENERATED, fresh, shallow=False)
    assert not mismatch and not errors, f"out of date: {mismatch + errors}; run `make grammar`"


def _antlr_tokens(text: str):
    lexer = SPDLexer(InputStream(text))
    lexer.removeErrorListeners()
    stream = CommonTokenStream(lexer)
    stream.fill()
    return [(t.type, t.text, t.line, t.column, t.start, t.stop) for t in stream.tokens]


def _fast_tokens(text: str):
    return [(t.type, t.text, t.line, t.column, t.start, t.stop) for t in tokenize(text)]


def test_fast_lexer_equals_antlr_lexer_on_the_cores():
    root = Path(__file__).resolve().parents[2]
    for p in [*root.glob("cores/*/*.spd"), *(Path(__file__).parent / "programs").glob("*.spd")]:
        text = p.read_text()
        assert _fast_tokens(text) == _antlr_tokens(text), p


_ALPHABET = st.sampled_from(list("aZ_09xXeE.+-*/%<>=!&|^~?:;,(){}[]\"#/ \t\r\n\f$é\x00")
                            + ["Name", "EQU", "0x", "1e", "//", "::", "<<", ">>", "&&", "||"])


@settings(max_examples=400, deadline=None, database=None)
@given(st.lists(_ALPHABET, max_size=60).map("".join))
def test_fast_lexer_equals_antlr_lexer_on_random_text(text):
    assert _fast_tokens(text) == _antlr_tokens(text)
