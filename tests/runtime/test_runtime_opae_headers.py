"""The simulation's OPAE headers match Intel's (OPAE 2.x, include/opae/): same files, same
fpga_result enumeration with nothing added; the runtime's own codes live in afu_result,
and its hardware path compiles against those headers in every runtime build."""
from __future__ import annotations

import re
import subprocess

import pytest
from spgen import runtime

ROOT = runtime.shell_sources()[0].parents[1]
OPAE = ROOT / "runtime" / "sim" / "include" / "opae"
# Intel's opae-sdk, opae-libs/include/opae/types_enum.h: the values of fpga_result in order
INTEL_FPGA_RESULT = ["FPGA_OK", "FPGA_INVALID_PARAM", "FPGA_BUSY", "FPGA_EXCEPTION", "FPGA_NOT_FOUND",
                     "FPGA_NO_MEMORY", "FPGA_NOT_SUPPORTED", "FPGA_NO_DRIVER", "FPGA_NO_DAEMON",
                     "FPGA_NO_ACCESS", "FPGA_RECONF_ERROR"]
# the files of Intel's layout that declare what the runtime uses, each with Intel's guard
INTEL_FILES = {"types_enum.h": "__FPGA_TYPES_ENUM_H__", "types.h": "__FPGA_TYPES_H__",
               "access.h": "__FPGA_ACCESS_H__", "buffer.h": "__FPGA_BUFFER_H__",
               "enum.h": "__FPGA_ENUM_H__", "event.h": "__FPGA_EVENT_H__", "mmio.h": "__FPGA_MMIO_H__",
               "properties.h": "__FPGA_PROPERTIES_H__", "utils.h": "__FPGA_UTILS_H__",
               "manage.h": "__FPGA_MANAGE_H__",
               "fpga.h": "__FPGA_FPGA_H__"}


def _enumerators(text: str, name: str) -> list[str]:
    body = re.search(r"typedef enum \{([^}]*)\} " + name + ";", text).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.DOTALL)
    return [e.split("=")[0].strip() for e in body.split(",") if e.strip()]


def test_fpga_result_is_intels():
    assert _enumerators((OPAE / "types_enum.h").read_text(), "fpga_result") == INTEL_FPGA_RESULT


@pytest.mark.parametrize("name", sorted(INTEL_FILES))
def test_header_files_follow_intels_layout(name):
    text = (OPAE / name).read_text()
    assert f"#ifndef {INTEL_FILES[name]}" in text
    if name == "fpga.h":
        for f in set(INTEL_FILES) - {"fpga.h", "types_enum.h"}:
            assert f"#include <opae/{f}>" in text, f


def test_runtime_never_casts_its_codes_into_fpga_result():
    files = [*(ROOT / "runtime").rglob("*.cpp"), *(ROOT / "runtime").rglob("*.hpp"),
             *(ROOT / "runtime" / "include").rglob("*.h")]
    for f in files:
        assert not re.search(r"fpga_result\s*\(\s*AFU_ERR", f.read_text()), f
    api = (ROOT / "runtime" / "include" / "afushell" / "afushell.h").read_text()
    assert "typedef int32_t afu_result;" in api
    assert not re.search(r"^fpga_result afuShell", api, re.MULTILINE)


def test_hardware_path_compiles_against_intels_headers(runtime_build):
    # the runtime's CMake build compiles src/ without AFUSHELL_SIM against them, -Werror
    objs = list((runtime_build / "CMakeFiles" / "afushell-hw-check.dir").rglob("*.o"))
    assert {o.name for o in objs} >= {"shell.cpp.o", "capi.cpp.o"}


def test_c_api_header_is_plain_c(tmp_path):
    src = tmp_path / "use.c"
    src.write_text("#include <afushell/afushell.h>\n"
                   "int main(void) { afu_result r = afuShellErrStr(AFU_ERR_REG_VALUE) ? 0 : 1;"
                   " return r; }\n")
    r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                        f"-I{ROOT / 'runtime' / 'include'}", f"-I{OPAE.parent}", str(src)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
