"""spgen.lbm's grid code is afushell/lbm.hpp bound into Python; the record layout and the
lattice come from cores/lbm/lbm_record.json, generated into lbm_layout.hpp."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from spgen import SpgenError, lbm
from spgen.lbm._grid import native, perturbed_cavity

ROOT = Path(__file__).resolve().parents[2]


def test_layout_header_is_generated_from_the_json():
    r = subprocess.run([sys.executable, str(ROOT / "cores" / "lbm" / "gen_layout.py"), "--check"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


def test_binding_and_python_agree_on_the_record():
    from spgen.runtime._build import load_extension

    ext = load_extension()
    assert ext.lbm_record_bytes == lbm.RECORD_DTYPE.itemsize == 40
    assert ext.lbm_record_descr == str(lbm.RECORD_DTYPE.descr)
    assert lbm.RECORD_DTYPE.names[-1] == "attr" and lbm.RECORD_DTYPE.names[0] == "f0"
    assert np.isclose(lbm.WEIGHTS.sum(), 1.0) and np.all(lbm.E[lbm.OPP] == -lbm.E)


def test_grids_have_their_boundaries():
    box = lbm.closed_box(6, 5)
    assert box.dtype == np.uint32 and box.shape == (5, 6)
    assert np.all(box[1:-1, 1:-1] == lbm.FLUID) and box.sum() == 2 * 6 + 2 * 3
    cav = lbm.cavity(7, 5)
    assert np.all(cav[-1, 1:-1] == lbm.MOVING_WALL) and cav[-1, 0] == cav[-1, -1] == lbm.WALL
    ch = lbm.channel(40, 16, radius=3, center=(10, 8))
    assert np.all(ch[1:-1, 0] == lbm.MOVING_WALL) and np.all(ch[0] == lbm.WALL)
    assert ch[8, 10] == ch[8, 13] == lbm.WALL and ch[8, 14] == lbm.FLUID and ch[5, 10] == lbm.WALL
    assert (ch == lbm.WALL).sum() > (lbm.channel(40, 16, radius=2, center=(10, 8)) == lbm.WALL).sum()


def test_records_round_trip_bit_for_bit():
    f, attr = perturbed_cavity(13, 9, seed=3)
    attr[4, 4] = lbm.WALL | 0x700                  # high attr bits travel untouched
    rec = lbm.to_records(f, attr)
    assert rec.dtype == lbm.RECORD_DTYPE and rec.shape == (13 * 9,)
    assert rec["f5"][2 * 13 + 7] == f[5, 2, 7] and rec["attr"][4 * 13 + 4] == 0x701
    f2, attr2 = lbm.from_records(rec, 13)
    assert f2.tobytes() == f.tobytes() and np.array_equal(attr2, attr)
    # a stream with other field order and types (as a core's renamed outputs come back)
    other = np.zeros(len(rec), [("attr", "<i8")] + [(f"f{i}", "<f8") for i in range(9)])
    for n in lbm.RECORD_DTYPE.names:
        other[n] = rec[n]
    f3, attr3 = lbm.from_records(other, 13)
    assert f3.tobytes() == f.tobytes() and np.array_equal(attr3, attr)
    init = lbm.initial_f(attr, rho=1.25)
    assert init.dtype == np.float32 and np.all(init[3] == np.float32(1.25 / 9))


def test_macroscopic_of_float32_and_float64_alike():
    f, attr = perturbed_cavity(10, 8, seed=1)
    r32 = lbm.macroscopic(f, attr)
    r64 = lbm.macroscopic(f.astype(np.float64), attr)
    for a, b in zip(r32, r64):
        assert np.array_equal(a, b, equal_nan=True)
    rho, _, _ = lbm.macroscopic(f)
    assert not np.isnan(rho).any() and np.isnan(r32[0][0, 0])
    assert rho[3, 4] == pytest.approx(float(np.sum(f[:, 3, 4], dtype=np.float64)), rel=1e-15)


@pytest.mark.parametrize("call,match", [
    (lambda: lbm.cavity(2, 5), "too small"),
    (lambda: lbm.check_grid(np.zeros((4, 4), np.uint32)), "outermost layer"),
    (lambda: lbm.check_grid(np.ones((4,), np.uint32)), "2-D"),
    (lambda: lbm.check_grid(-np.ones((4, 4), int)), "unsigned 32-bit"),
    (lambda: lbm.to_records(np.zeros((9, 4, 5), np.float32), lbm.closed_box(5, 5)), r"shape \(9, 5, 5\)"),
    (lambda: lbm.from_records(np.zeros(10, np.float32), 5), "f0..f8 and attr"),
    (lambda: lbm.from_records(np.zeros(10, lbm.RECORD_DTYPE), 3), "not a grid of width 3"),
    (lambda: lbm.from_records(np.zeros(10, lbm.RECORD_DTYPE), 0), "not a grid of width 0"),
    (lambda: lbm.macroscopic(np.zeros((8, 3, 3))), "shape"),
    (lambda: lbm.slab_layout(7, 4, 2), "cannot be cut into 4 slabs of at least 2 rows"),
])
def test_bad_input_is_a_clear_error(call, match):
    with pytest.raises(SpgenError, match=match):
        call()


def test_bad_input_is_a_clear_error_with_the_rdma_model_loaded():
    """The RDMA model's module translates its own std::logic_error into ModelError, and only
    its own: loaded first in a process, it must not turn the grid code's errors into it."""
    from spgen.runtime.rdma import load_rdma_extension

    load_rdma_extension()
    with pytest.raises(SpgenError, match="cannot be cut into 8 slabs"):
        lbm.slab_layout(12, 8, 2)


def test_slab_layout_is_the_cpp_one():
    slabs = lbm.slab_layout(27, 4, 2)
    assert [(s.lo, s.hi, s.first, s.last) for s in slabs] == \
        [tuple(r) for r in native("lbm_slab_layout", 27, 4, 2)]
    assert [s.hi - s.lo for s in slabs] == [7, 7, 7, 6] and slabs[0].first == 0 and slabs[-1].last == 27
    assert all(s.rows == s.last - s.first for s in slabs)
