"""afu_shell (cocotb): the DMA copy and the link ports, without cores and with a pass-through core."""
from __future__ import annotations

import pytest
from shell_tb import run_cocotb, shell_sources


@pytest.mark.xdist_group("afu_shell")
@pytest.mark.parametrize(("n_cores", "record_words", "depth", "burst", "reads"),
                         [(0, 1, 16, 16, 256), (1, 3, 4, 4, 16)])
def test_afu_shell(tmp_path, monkeypatch, n_cores, record_words, depth, burst, reads):
    params = {"N_CORES": n_cores, "RECORD_WORDS": record_words, "DESC_FIFO_DEPTH": depth,
              "MAX_BURST": burst, "MAX_READS": reads}
    monkeypatch.setenv("N_CORES", str(n_cores))
    monkeypatch.setenv("RECORD_WORDS", str(record_words))
    assert run_cocotb("afu_shell" + "_".join(map(str, params.values())), "afu_shell", shell_sources(),
                      "cocotb_afu_shell", parameters=params, tmp_path=tmp_path) == (1, 0)
