"""Width converters 512 <-> N x 32 (N = 1, 2, 3, 5, 10, 16) under random back-pressure (cocotb)."""
from __future__ import annotations

import pytest
from shell_tb import HERE, SHELL_DIR, run_cocotb


@pytest.mark.xdist_group("shell_conv")
def test_shell_converters(tmp_path):
    sources = [HERE / "tb_shell_conv.v", SHELL_DIR / "shell_width_down.v",
               SHELL_DIR / "shell_width_up.v", SHELL_DIR / "shell_word_pack.v"]
    tests, failed = run_cocotb("conv", "tb_shell_conv", sources, "cocotb_shell_conv", tmp_path=tmp_path)
    assert tests == 3 and failed == 0
