"""The C++ test binary (GoogleTest) and the dma_roundtrip example on the loop-back card."""
from __future__ import annotations

import re
import subprocess

import pytest

pytestmark = pytest.mark.xdist_group("runtime")


def test_cpp_test_binary_passes(runtime_build, card_env):
    exe = runtime_build / "afushell_tests"
    assert exe.is_file(), "GoogleTest (libgtest-dev) is needed for the C++ tests"
    proc = subprocess.run([str(exe)], env=card_env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert re.search(r"\[  PASSED  \] \d+ tests", proc.stdout)
    assert "FAILED" not in proc.stdout


def test_dma_roundtrip_example(runtime_build, card_env):
    proc = subprocess.run([str(runtime_build / "dma_roundtrip"), "sim:loopback", str(1 << 20)],
                          env=card_env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = re.findall(r"^(H2F|F2F|F2H)\s+(\d+)\s+([\d.]+)\s+([\d.]+)$", proc.stdout, re.MULTILINE)
    assert [r[0] for r in rows] == ["H2F", "F2F", "F2H"]
    for _, nbytes, us, gbps in rows:
        assert int(nbytes) == 1 << 20
        assert abs(float(gbps) - int(nbytes) / (float(us) * 1e3)) < 0.01
        assert 0.5 < float(gbps) < 12.8
    assert "round trip intact" in proc.stdout


def test_info_tool_reads_the_afu_header(runtime_build, card_env):
    proc = subprocess.run([str(runtime_build / "afushell-info"), "sim:loopback"], env=card_env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "AFU_ID_L     0xac3cf1e8beaefcca" in proc.stdout
    assert "cores 0" in proc.stdout
