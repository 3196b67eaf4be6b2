"""The simulated card against a real GPU: its P2F/F2P transfers read and write the GPU's own
memory (CuPy allocations in the peer's BAR, through the CUDA driver), and GPU kernels see the
bytes. Needs CuPy and an NVIDIA GPU; elsewhere every test is skipped and says why.

Run: make .venv/.installed && .venv/bin/python -m pytest -q -rs tests/runtime/test_p2p_gpu.py
"""
from __future__ import annotations

import numpy as np
import pytest
from spgen import runtime
from spgen.backend.cuda import cuda_unavailable

pytestmark = [pytest.mark.xdist_group("runtime"),
              pytest.mark.skipif(cuda_unavailable() is not None, reason=f"needs an NVIDIA GPU: {cuda_unavailable()}")]

B = 1 << 32
SIZES = [4, 60, 256, 4100, 65536, 1 << 20]


def _pattern_gpu(cp, n_words, salt):
    i = cp.arange(n_words, dtype=cp.uint64)
    return ((i * 2654435761 + salt) & 0xFFFFFFFF).astype(cp.uint32)


def _pattern_host(n_words, salt):
    i = np.arange(n_words, dtype=np.uint64)
    return ((i * 2654435761 + salt) & 0xFFFFFFFF).astype(np.uint32)


@pytest.fixture
def cp():
    import cupy
    return cupy


@pytest.mark.parametrize("how", ["host", "card"])
def test_card_writes_land_in_gpu_memory_and_a_kernel_reads_them(cp, how):
    guard = 64
    with runtime.open("loopback") as card:
        for n in SIZES:
            words = n // 4
            want = _pattern_host(words, 12345 + n)
            h = card.alloc(n)
            h.view(np.uint32)[:] = want
            card.dma(B + 0x1000, h, n, "H2F")
            gpu = cp.full(words + 2 * guard, 0xDEADBEEF, dtype=cp.uint32)   # written by a GPU kernel
            cp.cuda.Device().synchronize()
            peer = card.peer_register(gpu)
            dst = peer.bus + 4 * guard
            if how == "card":
                card.card_dma(dst, B + 0x1000, n, "F2P")
            else:
                card.dma(dst, B + 0x1000, n, "F2P")
            # GPU kernels compare with the pattern they compute themselves, and check the guards.
            bad = int(cp.count_nonzero(gpu[guard:guard + words] != _pattern_gpu(cp, words, 12345 + n)))
            guards = int(cp.count_nonzero(gpu[:guard] != 0xDEADBEEF) + cp.count_nonzero(gpu[guard + words:] != 0xDEADBEEF))
            assert (bad, guards) == (0, 0), (how, n)
            del peer


@pytest.mark.parametrize("how", ["host", "card", "staged"])
def test_card_reads_what_a_gpu_kernel_wrote(cp, how):
    with runtime.open("loopback") as card:
        for n in SIZES:
            words = n // 4
            gpu = _pattern_gpu(cp, words + 16, 777 + n)           # computed on the GPU
            cp.cuda.Device().synchronize()
            peer = card.peer_register(gpu)
            src = peer.bus + 64                                    # from word 16 on
            if how == "card":
                card.card_dma(B + 0x2000, src, n, "P2F")
            elif how == "staged":
                card.peer_staged(B + 0x2000, src, n, "P2F")
            else:
                card.dma(B + 0x2000, src, n, "P2F")
            h = card.alloc(n)
            card.dma(h, B + 0x2000, n, "F2H")
            assert np.array_equal(h.view(np.uint32), _pattern_host(words + 16, 777 + n)[16:]), (how, n)
            del peer


def test_round_trip_gpu_card_gpu(cp):
    # GPU -> card (card-initiated) -> the other GPU buffer (card-initiated), then a kernel sums it.
    n = 4 << 20
    with runtime.open("loopback") as card:
        a = _pattern_gpu(cp, n // 4, 99)
        b = cp.zeros(n // 4, dtype=cp.uint32)
        cp.cuda.Device().synchronize()
        pa, pb = card.peer_register(a), card.peer_register(b)
        card.card_dma(B, pa, n, "P2F")
        card.card_dma(pb, B, n, "F2P")
        assert bool(cp.all(a == b))
        assert int(b.astype(cp.uint64).sum()) == int(_pattern_host(n // 4, 99).astype(np.uint64).sum())


def test_a_cuda_range_past_its_allocation_is_refused(cp):
    with runtime.open("loopback") as card:
        a = cp.zeros(1024, dtype=cp.uint32)
        core = card._live()
        code, msg, _ = core.ext.peer_register(core.handle, a.data.ptr, 1 << 30)  # fits the 64 GiB BAR
        assert code == core.ext.CODES["INVALID_PARAM"] and "past the end" in msg, msg
