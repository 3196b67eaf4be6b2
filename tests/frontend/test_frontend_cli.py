"""`spgen check`: exit status, diagnostics on stderr, -P, --top, --help."""
import subprocess
import sys
from pathlib import Path

import pytest
from spgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).parent / "programs"


def test_clean_program_exits_0_silently(capsys):
    assert main(["check", str(ROOT / "cores/jacobi5/jacobi5.spd")]) == 0
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


@pytest.mark.parametrize("core", ["jacobi5/jacobi5.spd", "exprmix/exprmix.spd"])
def test_front_end_cores_are_clean(core, capsys):
    assert main(["check", str(ROOT / "cores" / core)]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("body, status, diagnostic, caret", [
    # a warning alone exits 0; an error exits 1
    ("EQU e, t = a;\nEQU f, y = a;\n", 0, "4:8: warning: signal 't' is never used", 9),
    ("EQU e, y = a + zz;\n", 1, "4:16: error: undefined signal 'zz'", 17),
])
def test_diagnostics_with_location_source_and_caret(tmp_path, capsys, body, status, diagnostic,
                                                    caret):
    p = tmp_path / "m.spd"
    p.write_text("Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\n" + body)
    assert main(["check", str(p)]) == status
    err = capsys.readouterr().err
    assert err.splitlines() == [f"{p}:{diagnostic}", "  " + body.splitlines()[0],
                                " " * caret + "^"]


def test_param_override_and_top(capsys):
    path = str(ROOT / "cores/jacobi5/jacobi5.spd")
    assert main(["check", path, "-P", "W=128", "-P", "W=0x40"]) == 0
    assert main(["check", path, "-P", "Q=1"]) == 1
    assert "module 'jacobi5' has no Param 'Q'" in capsys.readouterr().err
    assert main(["check", path, "-P", "W"]) == 1
    assert "-P expects NAME=VALUE" in capsys.readouterr().err
    lib = str(PROGRAMS / "lib.spd")
    assert main(["check", lib, "--top", "scale", "-P", "G=3"]) == 0
    assert main(["check", lib, "--top", "nosuch"]) == 1
    assert "no module named 'nosuch' (modules: addsub, scale)" in capsys.readouterr().err


def test_missing_file_is_an_error_not_a_traceback(tmp_path, capsys):
    assert main(["check", str(tmp_path / "none.spd")]) == 1
    err = capsys.readouterr().err
    assert "cannot read" in err and "Traceback" not in err


def test_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "-P NAME=VALUE" in out and "--top NAME" in out and "PROG.spd" in out


def test_console_script_runs_out_of_process(tmp_path):
    p = tmp_path / "e.spd"
    p.write_text("Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\nEQU e, y = a +;\n")
    r = subprocess.run([sys.executable, "-m", "spgen", "check", str(p)], capture_output=True,
                       text=True, timeout=120, check=False)
    assert r.returncode == 1 and r.stdout == ""
    assert f"{p}:4:15: error: syntax error" in r.stderr and "Traceback" not in r.stderr
