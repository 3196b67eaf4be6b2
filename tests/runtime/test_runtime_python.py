"""spgen.runtime: every call through the Python bindings on the loop-back card."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from spgen import SpgenError, runtime
from spgen.runtime import AfuError

pytestmark = pytest.mark.xdist_group("runtime")
B = 1 << 32


def _rand(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def test_all_kinds_random_sizes_and_offsets(card):
    rng = np.random.default_rng(3)
    n_max = 256 << 10
    src, dst = card.alloc(n_max + 8192), card.alloc(n_max + 8192)
    for it in range(16):
        kind = ["H2F", "F2H", "F2F", "H2H"][it % 4]
        n = int(rng.integers(1, n_max // 4)) * 4
        so, do = int(rng.integers(0, 1024)) * 4, int(rng.integers(16, 1024)) * 4
        fa, fb = int(rng.integers(0, 1 << 20)) * 4, B + int(rng.integers(0, 1 << 20)) * 4
        src[so:so + n] = _rand(n, it)
        dst[:] = 0xA5
        s = src[so:so + n]
        if kind == "H2F":
            card.dma(fa, s, n, "H2F")
            card.dma(dst[do:], fa, n, "F2H")
        elif kind == "F2H":
            card.dma(fb, s, n, "H2F")
            card.dma(dst[do:], fb, n, "F2H")
        elif kind == "F2F":
            card.dma(fa, s, n, "H2F")
            card.dma(fb, fa, n, "F2F")
            card.dma(dst[do:], fb, n, "F2H")
        else:
            card.dma(dst[do:], s, n, "H2H")
        assert np.array_equal(dst[do:do + n], s), (kind, n)
        assert (dst[:do] == 0xA5).all() and (dst[do + n:] == 0xA5).all(), (kind, n)
        assert card.elapsed_ns > 0


def test_eight_threads_submit_async_at_once(card):
    n = 32 << 10
    errors: list[str] = []
    bufs = [(card.alloc(n), card.alloc(n)) for _ in range(8)]

    def worker(t: int) -> None:
        src, dst = bufs[t]
        try:
            for rep in range(3):
                src[:] = _rand(n, 100 * t + rep)
                fa, fb = t * (1 << 20), B + t * (1 << 20)
                card.dma_async(fa, src, n, "H2F").wait()
                reqs = [card.dma_async(fb, fa, n, "F2F")]
                assert reqs[0].wait()
                r = card.dma_async(dst, fb, n, "F2H")
                while not r.wait(timeout_ns=5_000):
                    pass
                assert r.elapsed_ns > 0
                if not np.array_equal(src, dst):
                    errors.append(f"thread {t} rep {rep}: data differs")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {t}: {e}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert not errors, errors


def test_wait_timeout_then_completion(card):
    n = 4 << 20
    a, b = card.alloc(n), card.alloc(n)
    a[:] = _rand(n, 1)
    req = card.dma_async(b, a, n, "H2H")
    assert req.wait(timeout_ns=1000) is False
    assert not req.done
    assert req.wait() is True
    assert req.done and req.elapsed_ns > n / 8  # below 8 GB/s
    assert np.array_equal(a, b)


def test_bad_arguments_give_distinct_errors_and_touch_nothing(card):
    a, b = card.alloc(4096), card.alloc(4096)
    a[:] = 0x11
    b[:] = 0x22
    card.dma(0x100, a, 4096, "H2F")
    foreign = np.full(4096, 0x33, dtype=np.uint8)
    cases = [
        (lambda: card.dma(b, a, 0, "H2H"), "ZERO_COUNT"),
        (lambda: card.dma(b, a, 6, "H2H"), "BAD_COUNT"),
        (lambda: card.dma(0xFFFF_FFF0, a, 64, "H2F"), "OUT_OF_RANGE"),
        (lambda: card.dma(b, 2 * B - 32, 64, "F2H"), "OUT_OF_RANGE"),
        (lambda: card.dma(b, foreign, 64, "H2H"), "NOT_PREPARED"),
        (lambda: card.dma(b[2:], a, 64, "H2H"), "ALIGNMENT"),
        (lambda: card.dma(b, a, 64, "X2Y"), "BAD_TYPE"),
        (lambda: card.dma(None, a, 64, "H2H"), "NULL_POINTER"),
        (lambda: card.read_reg("NO_SUCH_REG"), "UNKNOWN_REG"),
    ]
    codes = set()
    for call, name in cases:
        with pytest.raises(AfuError) as ei:
            call()
        assert ei.value.name == name, (name, str(ei.value))
        assert str(ei.value)
        codes.add(ei.value.code)
    assert len(codes) == len({n for _, n in cases})
    assert (b == 0x22).all() and (foreign == 0x33).all()
    card.dma(b, 0x100, 4096, "F2H")
    assert (b == 0x11).all()
    with pytest.raises(SpgenError):
        card.dma(b, 0x100, 64, "H2F")  # a host buffer where H2F wants an FPGA address
    with pytest.raises(AfuError) as ei:
        runtime.open("/no/such/build/dir")
    assert ei.value.name == "BAD_URI"


def test_closed_card_refuses_calls(loopback_lib):
    card = runtime.open("loopback")
    buf = card.alloc(64)
    card.close()
    with pytest.raises(AfuError) as ei:
        card.dma(buf, buf, 64, "H2H")
    assert ei.value.name == "CLOSED"
    buf[:] = 7  # buffers outlive the card object
    assert (buf == 7).all()


def test_registers_and_loopback_run(card):
    card.write_reg("SCRATCH", 0xDEADBEEF_0BADF00D)
    assert card.read_reg("SCRATCH") == 0xDEADBEEF_0BADF00D
    assert card.read_reg(0x30) == 0xDEADBEEF_0BADF00D
    assert card.read_reg("DFH") == 0x1000010000000000
    assert card.info["n_cores"] == 0 and card.info["simulated"]
    n = 5000
    a, b = card.alloc(4 * n), card.alloc(4 * n)
    a[:] = _rand(4 * n, 5)
    card.dma(0x2000, a, 4 * n, "H2F")
    res = card.run(0x2000, B + 0x4000, n)
    card.dma(b, B + 0x4000, 4 * n, "F2H")
    assert np.array_equal(a, b)
    assert res.total_cycles >= res.moved_cycles > 0
    assert 0 <= res.stall_rate < 1 and res.elapsed_ns > 0
    assert card.counters().total_cycles == res.total_cycles


def test_model_parameters_change_timing(loopback_lib):
    n = 64 << 10
    times = []
    for lat in (800, 4000):
        with runtime.open("loopback", params={"pcie_read_latency_ns": lat}) as c:
            a = c.alloc(n)
            times.append(c.dma(0, a, n, "H2F"))
    assert times[1] > times[0] + 3000
    with pytest.raises(AfuError) as ei:
        runtime.open("loopback", params={"no_such_knob": 1})
    assert ei.value.name == "BAD_URI" and "no_such_knob" in str(ei.value)


def test_failed_runtime_build_is_one_clear_error_without_a_traceback(monkeypatch):
    # a card whose runtime did not build must leave nothing that fails later in __del__
    import gc
    import sys

    from spgen.runtime import _card

    def broken_build():
        raise SpgenError("the runtime build failed: see the compiler output above")

    ignored = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)
    monkeypatch.setattr(_card, "load_extension", broken_build)
    with pytest.raises(SpgenError, match="runtime build failed"):
        runtime.open("afu:00000000-0000-0000-0000-000000000000")
    gc.collect()
    assert [str(u.exc_value) for u in ignored] == []


def test_rebuild_over_a_running_card_replaces_its_library(tmp_path, loopback_lib):
    """`spgen build -o DIR` again while a simulation runs DIR's card: the build puts a new file
    in place of the old library instead of writing into it (a library truncated under a process
    that has it mapped kills that process with SIGBUS), and the running card goes on working."""
    from spgen.cli import main

    out = tmp_path / "lb"
    assert main(["build", "--loopback", "-o", str(out)]) == 0
    lib = out / "sim" / "libafucard.so"
    before = lib.stat().st_ino
    with runtime.open(out) as c:
        assert main(["build", "--loopback", "-o", str(out)]) == 0
        assert lib.stat().st_ino != before
        src, dst = c.alloc(4096), c.alloc(4096)
        src[:] = _rand(4096, 7)
        c.dma(4096, src, 4096, "H2F")
        c.dma(dst, 4096, 4096, "F2H")
        assert np.array_equal(dst, src)
    assert not list(out.glob("sim/*.tmp"))
