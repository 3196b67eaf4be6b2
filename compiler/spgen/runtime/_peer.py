"""Peer-device memory (a GPU's) on the simulated card's PCIe, and card-initiated DMA."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ._errors import check

__all__ = ["CardDmaResult", "PeerBuffer"]


class _Live(Protocol):
    """An open card's extension module and handle (``_card._Core``)."""

    ext: Any
    handle: Any


class PeerBuffer:
    """Memory of the peer device behind its BAR: simulated device memory, or a CUDA
    allocation (a CuPy array) that the simulated card reads and writes for real.

    ``bus`` is the bus address, what P2F/F2P transfers take as the peer side
    (``buf.bus + offset``, or the buffer itself for offset 0). Unregistered when dropped.
    """

    def __init__(self, core: _Live, bus: int, nbytes: int, owner: Any = None) -> None:
        self._core = core
        self.bus = bus
        self.nbytes = nbytes
        self._owner = owner  # keeps a CuPy array alive while the card may touch it

    def write(self, data: Any, offset: int = 0) -> None:
        """Copies host bytes into the buffer (as cudaMemcpy host-to-device does)."""
        arr = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        check(self._core.ext.peer_write(self._core.handle, self.bus + int(offset), arr))

    def read(self, nbytes: int | None = None, offset: int = 0) -> np.ndarray:
        """The buffer's bytes (uint8) from offset on."""
        n = self.nbytes - int(offset) if nbytes is None else int(nbytes)
        return check(self._core.ext.peer_read(self._core.handle, self.bus + int(offset), n))

    def __del__(self) -> None:
        if self._core.handle:
            self._core.ext.peer_unregister(self._core.handle, self.bus)


@dataclass(frozen=True)
class CardDmaResult:
    """A card-initiated sequence: cycles as the card counted them (200 MHz: 5 ns each).

    ``last_cycles``: the last transfer from its descriptors entering the engines to its last
    byte written (the published designs' latency); ``seq_cycles``: GO to the end;
    ``wait_cycles``: waiting for host descriptors to drain; ``elapsed_ns``: the host's first
    register write to the end on the card.
    """

    transfers: int
    last_cycles: int
    seq_cycles: int
    wait_cycles: int
    elapsed_ns: int


def cuda_pointer(array: Any) -> tuple[int, int]:
    """(device pointer, bytes) of a contiguous CuPy array (or any __cuda_array_interface__)."""
    iface = getattr(array, "__cuda_array_interface__", None)
    if iface is None:
        raise TypeError(f"expected a CUDA array (CuPy), got {type(array).__name__}")
    flags = getattr(array, "flags", None)
    if flags is not None and not flags.c_contiguous:
        raise ValueError("the CUDA array must be C-contiguous")
    return int(iface["data"][0]), int(array.nbytes)


def register(core: _Live, nbytes: int | None = None, cuda_array: Any = None) -> PeerBuffer:
    """Peer memory of ``nbytes`` (simulated) or ``cuda_array``'s, registered with the card."""
    if cuda_array is not None:
        ptr, n = cuda_pointer(cuda_array)
    else:
        ptr, n = 0, int(nbytes or 0)
    bus = check(core.ext.peer_register(core.handle, ptr, n))
    return PeerBuffer(core, bus, n, cuda_array)
