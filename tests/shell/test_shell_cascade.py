"""afu_top with a generated wrapper around 2 compiled cores (10-word records), against the emulator."""
from __future__ import annotations

import numpy as np
import pytest
import spgen
from shell_tb import HERE, run_cocotb
from spgen.shellgen import core_interface, write_project


@pytest.mark.xdist_group("shell_cascade")
def test_shell_cascade_rec10(tmp_path):
    d = spgen.compile(HERE / "data" / "rec10.spd")
    core = core_interface(d.verilog.report)
    assert (core.in_words, core.out_words, core.regs[0][0]) == (10, 10, "k")
    proj = write_project(tmp_path / "build", core, d.verilog.text, 2)
    rng = np.random.default_rng(4)
    n = 500
    x = np.zeros(n, dtype=d.input_dtype())
    for f in x.dtype.names:
        x[f] = rng.standard_normal(n).astype(np.float32) if x.dtype[f] == np.float32 \
            else rng.integers(0, 2**32, n, dtype=np.uint32)
    y = d.emulate(x, regs={"k": 0.75}, steps=2)
    assert x.dtype.itemsize == 40 and y.dtype.itemsize == 40
    (tmp_path / "cascade_in.bin").write_bytes(x.tobytes())
    (tmp_path / "cascade_out.bin").write_bytes(y.tobytes())
    tests, failed = run_cocotb("cascade", "afu_top", [proj.root / f for f in proj.rtl],
                               "cocotb_shell_cascade", parameters=proj.params, tmp_path=tmp_path)
    assert tests == 3 and failed == 0
