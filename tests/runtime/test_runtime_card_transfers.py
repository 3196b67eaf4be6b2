"""Through the simulated card with no core: exact bytes for every type and size, guards, errors."""
from __future__ import annotations

import numpy as np
import pytest
from spgen.runtime import AfuError

pytestmark = pytest.mark.xdist_group("runtime")
B = 1 << 32
GUARD = 256


def _check_all_types(card, sizes, seed):
    top = max(sizes)
    src, dst, chk = card.alloc(top + 2 * GUARD), card.alloc(top + 2 * GUARD), card.alloc(top + 2 * GUARD)
    rng = np.random.default_rng(seed)
    fa, fb = 0x10000 + 4 * int(rng.integers(0, 64)), B + 0x20000 + 4 * int(rng.integers(0, 64))
    for n in sizes:
        data = rng.integers(0, 256, n, dtype=np.uint8)
        src[GUARD:GUARD + n] = data
        s = src[GUARD:GUARD + n]
        # FPGA destinations get known guard bytes around them first.
        chk[:] = 0xC3
        card.dma(fa - GUARD, chk, n + 2 * GUARD, "H2F")
        card.dma(fb - GUARD, chk, n + 2 * GUARD, "H2F")
        card.dma(fa, s, n, "H2F")
        card.dma(fb, fa, n, "F2F")
        for addr in (fa, fb):  # H2F into A, F2F into B
            chk[:] = 0
            card.dma(chk, addr - GUARD, n + 2 * GUARD, "F2H")
            assert np.array_equal(chk[GUARD:GUARD + n], data), (hex(addr), n)
            assert (chk[:GUARD] == 0xC3).all() and (chk[GUARD + n:n + 2 * GUARD] == 0xC3).all(), (hex(addr), n)
        for kind, from_ in (("F2H", fb), ("H2H", s)):
            dst[:] = 0x5A
            card.dma(dst[GUARD:], from_, n, kind)
            assert np.array_equal(dst[GUARD:GUARD + n], data), (kind, n)
            assert (dst[:GUARD] == 0x5A).all() and (dst[GUARD + n:] == 0x5A).all(), (kind, n)
    assert card.sim_stats()["bus_errors"] == 0


def test_every_power_of_two_to_1mib(card):
    _check_all_types(card, [4 << i for i in range(19)], seed=1)


def test_random_sizes(card):
    rng = np.random.default_rng(2)
    _check_all_types(card, sorted(int(x) * 4 for x in rng.integers(1, 1 << 16, 12)), seed=2)


@pytest.mark.slow
def test_every_power_of_two_to_64mib(card):
    _check_all_types(card, [4 << i for i in range(25)], seed=3)


@pytest.mark.slow
def test_random_sizes_to_64mib(card):
    rng = np.random.default_rng(4)
    _check_all_types(card, sorted(int(x) * 4 for x in rng.integers(1, 1 << 24, 6)), seed=4)


def test_shell_reports_errors_instead_of_hanging(card):
    """With the runtime's checks off the shell validates descriptors itself."""
    a, b = card.alloc(4096), card.alloc(4096)
    a[:] = 1
    card.dma(0x0, a, 4096, "H2F")
    card.set_checks(False)
    bad = [
        (lambda: card.dma(2 * B + 0x100, a, 1024, "H2F"), "ERR_ADDR_RANGE"),
        (lambda: card.dma(B - 512, 0x0, 1024, "F2F"), "ERR_ADDR_RANGE"),
        (lambda: card.dma(b, a, 6, "H2H"), "ERR_BAD_LENGTH"),
        (lambda: card.dma(0x200, 0x0, 0, "F2F"), "ERR_BAD_LENGTH"),
    ]
    for call, err in bad:
        with pytest.raises(AfuError) as ei:
            call()
        assert ei.value.name == "DEVICE" and err in str(ei.value), str(ei.value)
    card.set_checks(True)
    b[:] = 0
    card.dma(b, 0x0, 4096, "F2H")
    assert (b == 1).all()
