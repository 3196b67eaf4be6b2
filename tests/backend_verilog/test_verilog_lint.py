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


def _uses_before_declaration(text: str, module: str) -> list[str]:
    """Nets of ``module`` read on a line before the one that declares them."""
    body = text[text.index(f"module {module} ("):]
    body = body[:body.index("endmodule")]
    lines = body.splitlines()
    declared: dict[str, int] = {}
    for i, ln in enumerate(lines):
        m = re.match(r"\s*(?:input|output)?\s*(?:wire|reg)\s+(?:\[[^\]]*\]\s*)?(\w+)", ln)
        if m:
            declared.setdefault(m.group(1), i)
    bad = []
    for name, at in declared.items():
        first = next(i for i, ln in enumerate(lines) if re.search(rf"\b{name}\b", ln))
        if first < at:
            bad.append(f"{name}: line {first + 1} reads it, line {at + 1} declares it")
    return bad


@pytest.mark.parametrize("hard_fp", [False, True], ids=["soft", "hard_fp"])
@pytest.mark.parametrize("path", [*PROGRAMS, PROGRAMS[0].parents[3] / "cores/jacobi5/jacobi5.spd"],
                         ids=[p.stem for p in PROGRAMS] + ["jacobi5"])
def test_nets_are_declared_before_use(path, hard_fp):
    # `default_nettype none does not make tools accept a net read before its declaration
    # (Verilator, Yosys and Icarus do; stricter ones do not): every core declares first
    d = spgen.compile(path, hard_fp=hard_fp)
    assert _uses_before_declaration(d.verilog.text, d.name) == []
