"""`verilator --lint-only -Wall` is clean for every shell file, across parameter sets."""
from __future__ import annotations

import subprocess

import pytest
from spgen._tools import verilator_bin, verilator_env
from spgen.shellgen import SHELL_DIR

FILES = sorted(SHELL_DIR.glob("*.v")) + [SHELL_DIR / "passthrough" / "afu_cores.v"]


def lint(top: str, *params: str) -> str:
    cmd = [str(verilator_bin()), "--lint-only", "-Wall", f"-I{SHELL_DIR}", "--top-module", top,
           *params, *map(str, FILES)]
    r = subprocess.run(cmd, env=verilator_env(), check=False, capture_output=True, text=True)
    return "" if r.returncode == 0 else r.stdout + r.stderr


@pytest.mark.parametrize("params", [
    (), ("-GN_CORES=1", "-GRECORD_WORDS=10", "-GN_REGS=3"),
    ("-GN_CORES=4", "-GRECORD_WORDS=3", "-GOUT_RECORD_WORDS=3", "-GMAX_BURST=64", "-GMAX_READS=128"),
    ("-GN_CORES=1", "-GRECORD_WORDS=16", "-GN_REGS=256", "-GMAX_BURST=2", "-GMAX_READS=4"),
])
def test_afu_top_lint_clean(params):
    assert lint("afu_top", *params) == ""


@pytest.mark.parametrize("top", [f.stem for f in sorted(SHELL_DIR.glob("shell_*.v"))])
def test_module_lint_clean(top):
    assert lint(top) == ""


def test_every_file_one_module_house_style():
    for f in FILES:
        text = f.read_text()
        assert text.count("\nmodule ") == 1, f
        assert "`default_nettype none" in text, f
        assert f.stem == text.split("\nmodule ")[1].split()[0] or f.parent.name == "passthrough", f
