"""The operator library's contract: one lint-clean module per computing IR op, one latency table.

Shared cores (spg_<name>_core.v, several op modules instantiate each) are no IR ops."""
from __future__ import annotations

import re
import subprocess

import pytest
from spgen import SpgenError
from spgen._tools import verilator_bin, verilator_env
from spgen.ir._ops import OPS
from spgen.oplib import LATENCY, rtl_dependencies, rtl_files, rtl_source

NOT_COMPUTING = {"input", "reg", "const", "shift", "inst", "extern", "proj"}
UNARY = {name for name, info in OPS.items() if info.arity == 1} - NOT_COMPUTING


def test_one_module_per_computing_op():
    assert set(LATENCY) == set(OPS) - NOT_COMPUTING
    stems = {p.stem for p in rtl_files()}
    cores = {s for s in stems if s.endswith("_core")}
    assert stems - cores == {f"spg_{op}" for op in LATENCY}
    assert all(isinstance(v, int) and v >= 0 for v in LATENCY.values())
    for p in rtl_files():  # one module per file, named after it
        assert re.findall(r"^module\s+(\w+)", p.read_text(), re.MULTILINE) == [p.stem]


def test_every_shared_core_is_used_by_at_least_two_ops():
    cores = {p.stem for p in rtl_files() if p.stem.endswith("_core")}
    assert cores, "the library has shared cores"
    users = {c: [op for op in LATENCY if c in {p.stem for p in rtl_dependencies(op)}]
             for c in cores}
    assert all(len(u) >= 2 for u in users.values()), users


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
    assert params == ({"FTZ"} if OPS[op].float else set()) | ({"WIDTH"} if OPS[op].width else set())
    assert text.startswith("`default_nettype none")
    assert "Latency" in text.split("\nmodule")[0], "the header comment must justify the latency"


def _lint(op: str, params: dict[str, int]) -> subprocess.CompletedProcess:
    files = [str(p) for p in rtl_dependencies(op)]  # with the shared cores it instantiates
    cmd = [str(verilator_bin()), "--lint-only", "-Wall", "--top-module", f"spg_{op}",
           *[f"-G{k}={v}" for k, v in params.items()], *files]
    return subprocess.run(cmd, check=False, capture_output=True, text=True, env=verilator_env())


def _settings(op: str) -> list[dict[str, int]]:
    if OPS[op].float:
        return [{"FTZ": 0}, {"FTZ": 1}]
    if OPS[op].width:
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


def test_generated_modules_are_written_whole_from_the_table(tmp_path, monkeypatch):
    # the thin modules (oplib/_modules.py) are files in the cache; a folder that a killed
    # process left without its completion mark is written again
    from spgen.oplib._modules import GENERATED, HAND_WRITTEN, generated_dir

    monkeypatch.setenv("SPGEN_CACHE", str(tmp_path))
    d = generated_dir()
    assert d.is_relative_to(tmp_path)
    hand = {path for path in HAND_WRITTEN if "/" not in path}  # the DSP models are _dsp's
    assert {p.stem for p in d.glob("spg_*.v")} == {f"spg_{op}" for op in GENERATED} | hand
    assert all((d / f"spg_{op}.v").read_text() == text for op, text in GENERATED.items())
    assert rtl_source("feq") == d / "spg_feq.v" and rtl_source("fadd") == d / "spg_fadd.v"
    (d / "spg_add.v").write_text("half a file")
    (d / ".complete").unlink()
    assert generated_dir() == d and (d / "spg_add.v").read_text() == GENERATED["add"]


def test_hand_written_sources_leave_the_head_to_the_table():
    # rtl/ holds header comment and body; the module line, ports and parameter checks are
    # written once by _modules, and the whole module is what the library hands out
    from spgen.oplib import RTL_DIR
    from spgen.oplib._modules import HAND_WRITTEN

    for path, text in HAND_WRITTEN.items():
        source = (RTL_DIR / f"{path}.v").read_text()
        assert not re.search(r"^module\b", source, re.MULTILINE), path
        assert re.findall(r"^module\s+(\w+)", text, re.MULTILINE) == [path.split("/")[-1]]
        assert text.startswith("`default_nettype none") and text.endswith("endmodule\n")
