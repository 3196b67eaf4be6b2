"""Malformed and half-typed text never makes the server's analysis raise, and `spgen lsp`
is a command of the CLI."""
import random
import subprocess
import sys
from pathlib import Path

from spgen.lsp._features import completion, definition, hover, outline, references
from spgen.lsp._server import _guard
from spgen.lsp._workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "cores" / "lbm" / "lbm_d2q9.spd", ROOT / "cores" / "exprmix" / "exprmix.spd"]
PIECES = [";", "(", ")", "{", "}", "::", ":", ",", "=", "?", "EQU", "HDL x, auto, (", "Name",
          "Main_In {", "DRCT (", "[W=", "\"", "#", "0x", "1e", "shift(", " ", "\n", "\u00e9",
          "\U0001F600", "\t", "Include \"", "-", "!", "~"]


def _mutants(text: str, n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        t = text
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(t) + 1)
            if rng.random() < 0.5:
                t = t[:i] + rng.choice(PIECES) + t[i:]
            else:
                t = t[:i] + t[i + rng.randint(1, 12):]
        yield t


def test_mutated_cores_never_raise(tmp_path):
    ws = Workspace()
    for src in SOURCES:
        path = tmp_path / src.name
        for dep in src.parent.glob("*.spd"):
            (tmp_path / dep.name).write_text(dep.read_text())
        doc = ws.open(str(path), src.read_text())
        rng = random.Random(7)
        for k, text in enumerate(_mutants(src.read_text(), 30, seed=len(src.name))):
            doc.update(text)
            doc.run_check("exact" if doc.view.parsed.errors else "check")
            doc.diagnostics()
            if doc.view.parsed.errors:
                doc.fast_diagnostics()
            lines = text.split("\n")
            for _ in range(6):
                line = rng.randrange(len(lines))
                col = rng.randrange(len(lines[line]) + 1)
                hover(ws, doc, line, col)
                definition(ws, doc, line, col)
                references(ws, doc, line, col, k % 2 == 0)
                completion(ws, doc, line, col)
            outline(doc)


def test_a_fault_in_the_server_becomes_a_diagnostic():
    def broken():
        raise KeyError("x")
    (d,) = _guard(broken, "f.spd", lambda ds: ds)()
    assert d.severity == "error" and "internal error (KeyError" in d.message


def test_spgen_lsp_is_a_cli_command():
    r = subprocess.run([sys.executable, "-m", "spgen", "--help"], capture_output=True,
                       text=True, check=True)
    assert "lsp" in r.stdout
    r = subprocess.run([sys.executable, "-m", "spgen", "lsp", "--help"], capture_output=True,
                       text=True, check=True)
    assert "stdin/stdout" in r.stdout
