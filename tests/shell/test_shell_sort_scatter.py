"""The sort's scatter writer alone (cocotb on Verilator), at each bin width it is built with."""
from __future__ import annotations

import pytest
from shell_tb import SHELL_DIR, run_cocotb


@pytest.mark.xdist_group("shell_sort_scatter")
@pytest.mark.parametrize("max_bits", [8, 11])
def test_shell_sort_scatter(tmp_path, max_bits):
    tests, failed = run_cocotb(f"sort_scatter{max_bits}", "shell_sort_scatter", [SHELL_DIR / "shell_sort_scatter.v", SHELL_DIR / "shell_sort_lane.v", SHELL_DIR / "shell_fifo.v"],
                               "cocotb_shell_sort_scatter", parameters={"MAX_BITS": max_bits}, tmp_path=tmp_path)
    assert tests == 6 and failed == 0
