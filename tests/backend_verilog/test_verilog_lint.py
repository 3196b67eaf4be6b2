"""Every generated core is clean under `verilator --lint-only -Wall`."""
import re

import pytest
import spgen
from spgen._tools import yosys_read
from spgen.backend.verilog import generate, lint
from verilog_suite import PROGRAMS


def _warnings(text: str) -> list[str]:
    return re.findall(r"%(?:Warning|Error)[^\n]*", text)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_generated_file_is_lint_clean(path):
    d = spgen.compile(path)
    core = d.verilog
    assert _warnings(lint(core)) == []
    assert f"module {core.name} (" in core.text
    # helpers are private to the core: no unprefixed module names that could clash
    for m in re.findall(r"^\s*module\s+(\w+)", core.text, re.MULTILINE):
        assert m == core.name or m.startswith(core.name + "_"), m


def test_ftz_core_is_lint_clean():
    d = spgen.compile(PROGRAMS[0].parent / "f_muldiv.spd", ftz=True)
    core = generate(d.graph, ftz=True)
    assert ".FTZ(1)" in core.text
    assert _warnings(lint(core)) == []


def test_largest_core_is_lint_clean():
    d = spgen.compile(PROGRAMS[0].parents[3] / "cores" / "lbm" / "lbm_d2q9.spd")
    assert d.verilog.report["operators"] > 100
    assert _warnings(lint(d.verilog)) == []


def test_generated_cores_read_with_yosys(tmp_path):
    # a second reader beside Verilator: every core (with its private operator modules) is
    # plain Verilog-2005, as Quartus reads it
    paths = [*PROGRAMS, PROGRAMS[0].parents[3] / "cores" / "lbm" / "lbm_d2q9.spd"]
    files = []
    for path in paths:
        core = spgen.compile(path).verilog
        files.append(tmp_path / f"{core.name}.v")
        files[-1].write_text(core.text)
    assert len({f.name for f in files}) == len(paths)
    assert yosys_read(files) == ""
