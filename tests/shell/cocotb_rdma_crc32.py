"""cocotb test of the RDMA links' CRC-32 step (rdma_crc32) against zlib's CRC-32."""
from __future__ import annotations

import os
import random
import zlib

import cocotb
from cocotb.triggers import Timer

M32 = (1 << 32) - 1


@cocotb.test()
async def crc32_random(dut):
    """Random running CRCs, beats and word counts (0 and LANES among them): crc_out is the
    register after the first nwords words, little-endian bytes, as zlib's without its final
    inversion."""
    lanes = int(os.environ["LANES"])
    rng = random.Random(lanes)
    for n in range(3000):
        crc = rng.choice([M32, 0, rng.getrandbits(32)])
        words = [rng.getrandbits(32) for _ in range(lanes)]
        k = rng.choice([0, lanes, rng.randrange(lanes + 1)])
        dut.crc_in.value, dut.nwords.value = crc, k
        dut.data.value = sum(w << (32 * j) for j, w in enumerate(words))
        await Timer(1, unit="ns")
        data = b"".join(w.to_bytes(4, "little") for w in words[:k])
        want = ~zlib.crc32(data, ~crc & M32) & M32
        assert int(dut.crc_out.value) == want, f"case {n}: crc {crc:#x}, {k} words"
