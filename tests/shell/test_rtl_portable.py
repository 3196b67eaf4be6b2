"""Every RTL file under shell/ (all folders) reads cleanly with two tools: Verilator
`--lint-only -Wall` and Yosys `read_verilog` (plain Verilog-2005). Quartus is the target,
so no file may lean on one tool's extensions."""
from __future__ import annotations

import re
import subprocess

import pytest
from spgen._tools import verilator_bin, verilator_env, yosys_read
from spgen.oplib import rtl_source
from spgen.shellgen import SHELL_DIR

FILES = sorted(SHELL_DIR.rglob("*.v"))
DIRS = sorted({f.parent for f in FILES})


def _module(f) -> str:
    return re.search(r"^module\s+(\w+)", f.read_text(), re.MULTILINE).group(1)


def test_every_folder_is_covered():
    # the lint below must see the RDMA engine and its AFU as well as the shell proper
    assert {d.relative_to(SHELL_DIR).as_posix() for d in DIRS} >= {".", "passthrough", "rdma",
                                                                   "rdma/afu"}


@pytest.mark.parametrize("f", FILES, ids=[f.relative_to(SHELL_DIR).as_posix() for f in FILES])
def test_verilator_wall_clean(f):
    # each file as the top, the other folders as libraries for the modules it instantiates
    # (the RDMA reduction instantiates the op library's adder)
    libs = [a for d in (*DIRS, rtl_source("fadd").parent) for a in ("-y", str(d))]
    cmd = [str(verilator_bin()), "--lint-only", "-Wall", f"-I{SHELL_DIR}", *libs,
           "--top-module", _module(f), str(f)]
    r = subprocess.run(cmd, env=verilator_env(), check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_yosys_reads_every_file():
    assert yosys_read(FILES, [SHELL_DIR]) == ""


def test_yosys_read_reports_a_systemverilog_cast(tmp_path):
    # the check itself can fail: a cast in a .v file is what it exists to catch
    f = tmp_path / "cast.v"
    f.write_text("module cast(input wire [7:0] a, output wire [3:0] b);\n"
                 "    assign b = 4'(a);\nendmodule\n")
    assert "cast.v:2" in yosys_read([f])
