"""afu_top in loop-back (cocotb): CSR read/write, SGDMA transfers, 2-D strides, chains, errors."""
from __future__ import annotations

import pytest
from shell_tb import run_cocotb, shell_sources

DEFAULTS = "8192'h44444444333333332222222211111111"


@pytest.mark.xdist_group("shell_dma")
def test_shell_dma_loopback(tmp_path):
    tests, failed = run_cocotb("dma", "afu_top", shell_sources(), "cocotb_shell_dma",
                               parameters={"N_CORES": 0, "N_REGS": 4, "REG_DEFAULTS": DEFAULTS},
                               tmp_path=tmp_path)
    assert tests == 7 and failed == 0
