"""Fuzzing `spgen check` with mutated valid programs: only diagnostics, never a traceback or hang.

The normal suite runs a few hundred inputs; `make test-full` (marker `slow`) runs 20,000.
"""
import contextlib
import io
import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).parent / "programs"
SEEDS = {p.name: p.read_text() for p in [
    ROOT / "cores/jacobi5/jacobi5.spd", ROOT / "cores/exprmix/exprmix.spd",
    PROGRAMS / "hier.spd", PROGRAMS / "brch.spd", PROGRAMS / "lib.spd"]}

# Fragments a mutation may insert: the language's own tokens, near misses, and junk.
FRAGMENTS = ["Name", "Main_In", "Main_Out", "Brch_In", "Brch_Out", "Param", "Reg", "EQU",
             "HDL", "DRCT", "Include", "auto", ";", ",", "::", ":", "=", "(", ")", "{", "}",
             "[", "]", "?", "+", "-", "*", "/", "%", "<<", ">>", "<", "<=", "==", "!=", "&",
             "^", "|", "&&", "||", "!", "~", "shift(", "sqrt(", "sel(", "f32(", "i32(",
             "u32(", "bits(", "fbits(", "min(", "max(", "abs(", "0", "1", "-1", "0x7FFFFFFF",
             "0xFFFFFFFFF", "1.5", ".5", "1e-3", "1e39", "2.0e+4", "99999999999999999999",
             "a", "x", "u", "W", "f32", "i32", "u32", "bool", '"', '"lib.spd"', '"x.v"',
             "file=", "#", "//", "\n", " ", "\t", "\x00", "é", "$", "@", "\\", "((((", "))))"]


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SEEDS)))
    text = SEEDS[name]
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 40)))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "duplicate", "swap",
                                     "truncate", "char"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(FRAGMENTS)) + text[i:]
        elif kind == "replace":
            text = text[:i] + draw(st.sampled_from(FRAGMENTS)) + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] * draw(st.integers(1, 3)) + text[j:]
        elif kind == "swap":
            lines = text.split("\n")
            a = draw(st.integers(0, len(lines) - 1))
            b = draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif kind == "truncate":
            text = text[:i]
        else:
            text = text[:i] + draw(st.characters(codec="utf-8")) + text[i:]
    return name, text


def _check(tmp: Path, name: str, text: str) -> None:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    err = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(["check", str(path)])
    elapsed = time.perf_counter() - t0
    out = err.getvalue()
    assert rc in (0, 1), out
    assert "Traceback" not in out
    assert (rc == 1) == (": error: " in out), out
    for line in out.splitlines():
        if ": error: " in line or ": warning: " in line or ": note: " in line:
            assert line.startswith((str(tmp), "-P")), line
    assert elapsed < 30, f"{elapsed:.1f} s for one input"


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    shutil.copy(PROGRAMS / "lib.spd", d / "lib.spd")  # hier.spd includes it
    shutil.copy(PROGRAMS / "filt.v", d / "filt.v")
    return d


_FAST = settings(max_examples=300, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture])
# SPGEN_FUZZ_EXAMPLES splits the dedicated run over processes (each with its own
# --hypothesis-seed); alone, one process runs all 20,000.
_SLOW = settings(_FAST, max_examples=int(os.environ.get("SPGEN_FUZZ_EXAMPLES", "20000")))


@_FAST
@given(case=mutated())
def test_fuzz_check_mutated_programs(fuzz_dir, case):
    _check(fuzz_dir, "m_" + case[0], case[1])


@pytest.mark.slow
@_SLOW
@given(case=mutated())
def test_fuzz_check_mutated_programs_20k(fuzz_dir, case):
    _check(fuzz_dir, "m_" + case[0], case[1])


@pytest.mark.parametrize("text", [
    "",                                              # empty file
    "Name m;",                                       # no streams
    "\ufeffName m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = a;",  # BOM
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = " + "(" * 100_000 + "a;",
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = " + "-" * 100_000 + "a;",
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = " + "a?a:" * 50_000 + "a;",
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = " + "a+" * 30_000 + "a;",
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = a" + ")" * 100_000 + ";",
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nParam P = 1" + " << 60" * 1000 + ";\n"
    "EQU e, y = a;",
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = a * 1e999999999;",
    'Include "\x00lib.spd";\nName m;',              # found by the 20k run: NUL in a path
    'Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nHDL h, 1, (y) = v(a) [file="\x00.v"];',
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = a * " + "9" * 5000 + ".0;",
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = a * " + "9" * 5000 + ";",
    "Name m;\n" + "EQU e, y = a;\n" * 5_000,          # 5k duplicate definitions
    "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\n" + "".join(
        f"EQU e{i}, s{i} = s{i + 1} + a;\n" for i in range(3000)) + "EQU z, y = s0;",
])
def test_extreme_inputs_give_diagnostics(fuzz_dir, text):
    _check(fuzz_dir, "extreme.spd", text)
