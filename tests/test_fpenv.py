"""A process whose FPU flushes subnormals (a -ffast-math library was loaded) still folds exactly."""
import numpy as np
import spgen
from spgen._fpenv import _mxcsr_access, flushes_subnormals, ieee_fp

PROG = """
Name tiny;
Main_In  {Mi::x};
Main_Out {Mo::y};
EQU e1, y = x + fbits(0x00000001) * 3.0;   # 3 * smallest subnormal, folded at compile time
"""


def _set_flush(on: bool) -> None:
    get, set_ = _mxcsr_access()
    bits = (1 << 6) | (1 << 15)
    set_(get() | bits if on else get() & ~bits)


def test_folding_keeps_subnormals_when_the_process_flushes(tmp_path):
    src = tmp_path / "tiny.spd"
    src.write_text(PROG)
    _set_flush(True)
    try:
        assert flushes_subnormals()
        g = spgen.compile(src).graph
        assert flushes_subnormals(), "the caller's FPU mode must be restored"
    finally:
        _set_flush(False)
    consts = [n.attrs["bits"] for n in g.nodes if n.op == "const"]
    assert 0x00000003 in consts, g.to_text()


def test_ieee_fp_restores_mode():
    _set_flush(True)
    try:
        with ieee_fp():
            assert not flushes_subnormals()
            assert np.float32(1e-45) * np.float32(2) != 0
        assert flushes_subnormals()
    finally:
        _set_flush(False)
    assert not flushes_subnormals()
