"""Pooled output and ring memory: results stay intact while held, memory is reused."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import spgen
from reference import evaluate, mismatches
from spgen import _streams
from spgen.backend.llvm import emulate
from test_llvm_programs import _inputs

ROOT = Path(__file__).parent.parent.parent


def _jacobi(width: int):
    d = spgen.compile(ROOT / "cores/jacobi5/jacobi5.spd", params={"W": width})
    n = width * width
    rng = np.random.default_rng(3)
    attr = np.zeros((width, width), np.uint32)
    attr[0, :] = attr[-1, :] = attr[:, 0] = attr[:, -1] = 1
    ins = {"u": rng.random(n, dtype=np.float32).view(np.uint32), "attr": attr.ravel()}
    return d.graph, n, ins, _streams.parse_regs(d.graph, None)


def test_held_results_are_not_overwritten():
    g, n, ins, regs = _jacobi(64)
    a = emulate(g, n, ins, regs, steps=3)
    keep = {k: v.copy() for k, v in a.items()}
    other = dict(ins, u=np.ones(n, np.float32).view(np.uint32))
    for steps in (1, 2, 5):
        b = emulate(g, n, other, regs, steps=steps, group=2)
        assert not np.array_equal(b["v"], keep["v"])
    for k in a:
        assert np.array_equal(a[k], keep[k]), k
    # a view of one output keeps the whole block alive too
    v = emulate(g, n, ins, regs)["v"][10:20]
    want = v.copy()
    emulate(g, n, other, regs)
    assert np.array_equal(v, want)


def test_dropped_results_are_reused_and_aligned():
    g, n, ins, regs = _jacobi(96)
    first = emulate(g, n, ins, regs)
    addr = first["v"].ctypes.data
    ref = {k: v.copy() for k, v in first.items()}
    del first
    again = emulate(g, n, ins, regs)
    assert again["v"].ctypes.data == addr  # the same memory, no fresh pages
    for k, v in again.items():
        assert v.ctypes.data % 64 == 0
        assert v.flags.c_contiguous and v.shape == (n,)
        assert np.array_equal(v, ref[k]), k


PROGRAMS = sorted((Path(__file__).parent / "programs").glob("*.spd"))


@pytest.mark.parametrize("path", PROGRAMS + [ROOT / "cores/jacobi5/jacobi5.spd"],
                         ids=lambda p: p.stem)
def test_streaming_stores_same_bits(path, monkeypatch):
    """Results written with streaming stores (large outputs) equal the reference."""
    from spgen.backend.llvm import _run

    d = spgen.compile(path)
    g = d.graph
    regs = _streams.parse_regs(g, None)
    casc = _run.feedback(g) is not None
    for n in (300, 2048, 5000):
        ins = _inputs(g, n, n)
        want = evaluate(g, n, ins, regs, False)
        for stream, threads in ((0, 1), (0, 2), (1 << 62, 1)):
            monkeypatch.setattr(_run, "_STREAM_BYTES", stream)
            got = emulate(g, n, ins, regs, threads=threads)
            for o in g.outputs:
                bad = mismatches(got[o.port.name], want[o.port.name], str(o.port.type))
                assert bad.size == 0, f"{g.name}.{o.port.name} n={n}: {bad[:5]}"
        monkeypatch.setattr(_run, "_STREAM_BYTES", 0)
        if casc:
            streamed = emulate(g, n, ins, regs, steps=5, group=2)
            monkeypatch.setattr(_run, "_STREAM_BYTES", 1 << 62)
            plain = emulate(g, n, ins, regs, steps=5, fuse=False)
            for o in g.outputs:  # NaN payloads may differ (SPD.md: every NaN is equal)
                name, t = o.port.name, str(o.port.type)
                assert mismatches(streamed[name], plain[name], t).size == 0, name


def test_clear_buffers_keeps_held_results():
    from spgen.backend.llvm import clear_buffers

    g, n, ins, regs = _jacobi(64)
    a = emulate(g, n, ins, regs, steps=2)
    keep = a["v"].copy()
    clear_buffers()  # the pool forgets the block; the result still owns its memory
    b = emulate(g, n, ins, regs, steps=2)
    assert np.array_equal(a["v"], keep) and np.array_equal(b["v"], keep)
    assert a["v"].ctypes.data != b["v"].ctypes.data


def test_input_forms_give_the_same_bits():
    """Read-only, float32 and strided inputs: the same results as plain uint32 arrays
    (the call reads addresses through a fast path for writable arrays, another for the rest)."""
    g, n, ins, regs = _jacobi(64)
    want = emulate(g, n, ins, regs, steps=3)
    ro = {k: v.copy() for k, v in ins.items()}
    for v in ro.values():
        v.flags.writeable = False
    wide = np.zeros((n, 2), np.uint32)
    wide[:, 0] = ins["u"]
    forms = [ro,
             dict(ins, u=ins["u"].view(np.float32)),  # bit patterns in a float32 array
             dict(ins, u=wide[:, 0])]                # a strided view: copied to contiguous
    for form in forms:
        got = emulate(g, n, form, regs, steps=3)
        for k in want:
            assert np.array_equal(got[k], want[k]), k
    with pytest.raises(spgen.SpgenError, match="expected 4096 elements"):
        emulate(g, n, dict(ins, u=ins["u"][:-1]), regs)


def test_settings_reach_every_call(monkeypatch):
    """The streaming-store threshold and the stages that specialise are read per call
    (the call's other set-up is memoised): tests that force either path must get it."""
    from spgen.backend.llvm import _run

    g, n, ins, regs = _jacobi(64)
    seen = []
    real = _run._Sweep.run
    monkeypatch.setattr(_run._Sweep, "run",
                        lambda self, k, flags, regs_ptr: (seen.append(flags),
                                                          real(self, k, flags, regs_ptr)))
    for stream, spec in ((1 << 62, 99), (0, 99), (1 << 62, 1), (0, 1)):
        monkeypatch.setattr(_run, "_STREAM_BYTES", stream)
        monkeypatch.setattr(_run, "_SPEC_STAGES", spec)
        emulate(g, n, ins, regs, steps=2)
    assert seen == [0, 1, 2, 3]
