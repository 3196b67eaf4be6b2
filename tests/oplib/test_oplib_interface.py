"""The operator library's contract: one lint-clean module per computing IR op, one latency table."""
from __future__ import annotations

import re
import subprocess

import pytest
from spgen import SpgenError
from spgen._tools import verilator_bin, verilator_env
from spgen.ir._ops import OPS
from spgen.oplib import FLOAT_OPS, LATENCY, WIDTH_OPS, rtl_files, rtl_source

NOT_COMPUTING = {"input", "reg", "const", "shift", "inst", "extern", "proj"}
UNARY = {name for name, info in OPS.items() if info.arity == 1} - NOT_COMPUTING


def test_one_module_per_computing_op():
    assert set(LATENCY) == set(OPS) - NOT_COMPUTING
    assert {p.stem for p in rtl_files()} == {f"spg_{op}" for op in LATENCY}
    assert all(isinstance(v, int) and v >= 0 for v in LATENCY.values())


def test_unknown_op_is_a_clear_error():
    with pytest.raises(SpgenError, match="no operator-library module"):
        rtl_source("shift")


def _ports(text: str) -> list[str]:
    m = re.search(r"^module\s.*?^\);", text, re.MULTILINE | re.DOTALL)
    assert m, "no module header"
    header = re.sub(r"//[^\n]*", "", m.group(0))
    return re.findall(r"\b(?:input|output)\s+wire\s*(?:\[[^\]]*\])?\s*(\w+)", header)


@pytest.mark.parametrize("op", sorted(LATENCY))
def test_ports_and_parameters(op):
    text = rtl_source(op).read_text()
    assert re.search(rf"^module spg_{op}\b", text, re.MULTILINE)
    operands = ["s", "a", "b"] if op == "select" else ["a"] if op in UNARY else ["a", "b"]
    assert _ports(text) == ["clk", "ce", *operands, "y"]
    params = set(re.findall(r"^\s*parameter\s+(\w+)", text, re.MULTILINE))
    assert params == ({"FTZ"} if op in FLOAT_OPS else set()) | ({"WIDTH"} if op in WIDTH_OPS else set())
    assert text.startswith("`default_nettype none")
    assert "Latency" in text.split("\nmodule")[0], "the header comment must justify the latency"


def _lint(op: str, params: dict[str, int]) -> subprocess.CompletedProcess:
    files = [str(rtl_source(op))] + ([str(rtl_source("fadd"))] if op == "fsub" else [])
    cmd = [str(verilator_bin()), "--lint-only", "-Wall", "--top-module", f"spg_{op}",
           *[f"-G{k}={v}" for k, v in params.items()], *files]
    return subprocess.run(cmd, check=False, capture_output=True, text=True, env=verilator_env())


def _settings(op: str) -> list[dict[str, int]]:
    if op in FLOAT_OPS:
        return [{"FTZ": 0}, {"FTZ": 1}]
    if op in WIDTH_OPS:
        return [{"WIDTH": 32}, {"WIDTH": 1}]
    return [{}]


def test_lint_clean_under_verilator_wall():
    dirty = []
    for op in sorted(LATENCY):
        for params in _settings(op):
            r = _lint(op, params)
            if r.returncode != 0 or "%Warning" in r.stderr or "%Error" in r.stderr:
                dirty.append(f"spg_{op} {params}:\n{r.stderr.strip()[:600]}")
    assert not dirty, "\n".join(dirty)
