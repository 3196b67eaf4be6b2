"""Run by test_runtime_p2p.py in a process of its own: the peer device's CUDA path against
fake_libcuda (loaded first, so the simulation's dlopen("libcuda.so.1") finds it)."""
import ctypes
import sys

import numpy as np
import spgen.runtime as rt

fake = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
fake.fake_alloc.restype = ctypes.c_void_p


class DeviceArray:
    """What CuPy arrays expose: __cuda_array_interface__ and nbytes."""

    def __init__(self, nbytes):
        self.ptr = fake.fake_alloc(nbytes)
        self.nbytes = nbytes
        self.__cuda_array_interface__ = {"data": (self.ptr, False), "shape": (nbytes,),
                                         "typestr": "|u1", "version": 3}

    def bytes(self):
        return np.frombuffer(ctypes.string_at(self.ptr, self.nbytes), np.uint8)


n = 65536
rng = np.random.default_rng(3)
data = rng.integers(0, 256, n, dtype=np.uint8)
with rt.open("loopback") as card:
    src, dst = DeviceArray(n), DeviceArray(n + 128)
    ctypes.memmove(src.ptr, data.ctypes.data, n)
    ps, pd = card.peer_register(src), card.peer_register(dst)
    ctypes.memset(dst.ptr, 0x5A, n + 128)
    card.dma(1 << 32, ps, n, "P2F")                                   # reads the "GPU"
    card.card_dma(pd.bus + 64 + 4, 1 << 32, n - 8, "F2P")             # writes it, partial beats
    got = dst.bytes()
    assert np.array_equal(got[68:68 + n - 8], data[:n - 8])
    assert (got[:68] == 0x5A).all() and (got[68 + n - 8:] == 0x5A).all()
    assert np.array_equal(pd.read(16, 68), data[:16])                 # host access, as cudaMemcpy
    card.peer_staged(0x1000, ps, 4096, "P2F")
    h = card.alloc(4096)
    card.dma(h, 0x1000, 4096, "F2H")
    assert np.array_equal(h, data[:4096])
    core = card._live()
    code, msg, _ = core.ext.peer_register(core.handle, src.ptr, n + 4)
    assert code == core.ext.CODES["INVALID_PARAM"] and "past the end" in msg, msg
    code, msg, _ = core.ext.peer_register(core.handle, 0x1234, 64)
    assert code == core.ext.CODES["INVALID_PARAM"] and "not CUDA device memory" in msg, msg
    assert card.sim_stats()["bus_errors"] == 0
assert fake.fake_depth() == 0 and fake.fake_copies() > 100, (fake.fake_depth(), fake.fake_copies())
print("fake CUDA path ok", fake.fake_copies(), "copies")
