"""spgen.runtime.rdma.RTLCluster: the Verilated RTL engine and router driven from Python move
the same bytes as the C++ model for the same operations, and report errors by code."""
from __future__ import annotations

import numpy as np
import pytest
from spgen import SpgenError
from spgen.runtime import rdma

pytestmark = pytest.mark.xdist_group("rdma_rtl")


@pytest.fixture(scope="module")
def rtl() -> rdma.RTLCluster:
    cl = rdma.RTLCluster((2, 2), flip=0.01, drop=0.01, seed=4)
    yield cl
    cl.close()


def test_rdma_rtl_python_same_bytes_as_model(rtl: rdma.RTLCluster) -> None:
    rng = np.random.default_rng(7)
    model = rdma.cluster({"topology": "torus", "dims": [2, 2], "params": {"mem_bytes": rdma.RTL_MEM_BYTES}})
    for c in range(4):
        data = rng.integers(0, 256, 0x40000, dtype=np.uint8).tobytes()
        rtl.write(c, 0, data)
        model[c].write(0, data)
    for k in range(24):
        c, d = int(rng.integers(4)), int(rng.integers(4))
        n = 4 * int(rng.integers(1, 1500))
        src, dst = 4 * int(rng.integers(0, 0x8000)), 0x100000 + 0x20000 * c + 4 * int(rng.integers(0, 0x4000))
        if k % 3 == 0:
            assert rtl.put(c, d, src, dst, n) > 0
            model[c].put(d, src, dst, n)
        elif k % 3 == 1:
            assert rtl.get(c, d, dst, src, n) > 0
            model[c].get(d, dst, src, n)
        else:
            blk, cnt = 4 * int(rng.integers(1, 40)), int(rng.integers(1, 30))
            assert rtl.put_strided(c, d, src, dst, blk, cnt, blk + 8, blk + 20) > 0
            model[c].put_strided(d, src, dst, blk, cnt, blk + 8, blk + 20)
    for c in range(4):  # whole memories, byte for byte
        assert rtl.read(c, 0, rdma.RTL_MEM_BYTES) == model[c].read(0, rdma.RTL_MEM_BYTES)
    s = rtl.stats()
    assert s["overflow"] == 0 and s["replays"] > 0 and s["drops"] > 0


def test_rdma_rtl_python_block_stride_get(rtl: rdma.RTLCluster) -> None:
    """A block-stride get gathers blocks remote_stride apart on the remote card into blocks
    local_stride apart here; nothing between the blocks is touched; past the end: REMOTE_RANGE."""
    rng = np.random.default_rng(11)
    src = rng.integers(0, 256, 40 * 96, dtype=np.uint8).tobytes()
    rtl.write(3, 0x200000, src)
    before = rtl.read(0, 0x300000, 40 * 72)
    rtl.events(3)
    assert rtl.get_strided(0, 3, 0x300000, 0x200000, 36, 40, 72, 96) > 0
    got, want = bytearray(before), bytearray(before)
    for b in range(40):
        want[72 * b:72 * b + 36] = src[96 * b:96 * b + 36]
    got[:] = rtl.read(0, 0x300000, 40 * 72)
    assert got == want
    assert [(k, p, a, n) for k, p, a, n, _ in rtl.events(3)] == [(4, 0, 0x200000, 36 * 40)]
    with pytest.raises(rdma.RDMAError) as e:
        rtl.get_strided(0, 1, 0x300000, rdma.RTL_MEM_BYTES - 1024, 64, 8, 64, 256)
    assert e.value.name == "REMOTE_RANGE"


def test_rdma_rtl_python_debug_counters(rtl: rdma.RTLCluster) -> None:
    """Once traffic stops, every packet sent on a link was received at its other end, the
    replays counted per port add up to the cluster's, and nothing is in flight."""
    rtl.put(0, 3, 0x1000, 0x380000, 8192)
    rtl.run(3000)
    d = [rtl.debug(c) for c in range(4)]
    links = [ln for x in d for ln in x["links"]]
    assert sum(ln["pkts_tx"] for ln in links) == sum(ln["pkts_rx"] for ln in links) > 8192 // 64
    assert sum(ln["errs_replays"] for ln in links) == rtl.stats()["replays"]
    assert all(ln["state_unacked"] == 0 for ln in links) and all(not x["slots"] for x in d)
    assert all(x["engine"]["ops_in_flight"] == 0 for x in d)
    assert "nothing in flight" in rtl.dump()


def test_rdma_rtl_python_stuck_transfer_names_the_link() -> None:
    """A put over cables that lose every packet does not end in a bare timeout: the error
    carries a dump naming the initiator's operation and the port holding unacknowledged packets."""
    cl = rdma.RTLCluster((2, 2), drop=0.999, seed=5)
    try:
        t = cl.put_async(0, 1, 0, 0x1000, 1024)
        with pytest.raises(rdma.RDMAError) as e:
            t.wait(max_cycles=20000)
        text = str(e.value)
        assert "card 0: op" in text and "packets unacknowledged" in text
        d = cl.debug(0)
        stuck = [p for p, ln in enumerate(d["links"]) if ln["state_unacked"]]
        assert stuck and f"port {stuck[0]}:" in text and d["slots"][0]["age"] >= 19000
    finally:
        cl.close()


def test_rdma_rtl_python_events(rtl: rdma.RTLCluster) -> None:
    rtl.events(2)
    rtl.put(1, 2, 0x100, 0x3000, 64)
    rtl.get(0, 2, 0x200, 0x3000, 32)
    ev = rtl.events(2)
    assert [(k, p, a, n) for k, p, a, n, _ in ev] == [(1, 1, 0x3000, 64), (4, 0, 0x3000, 32)]


@pytest.mark.parametrize("args, code", [
    ((0, 9, 0, 0, 64), "NO_ROUTE"),                          # no card 9 in a 2 x 2 torus
    ((0, 1, 0, rdma.RTL_MEM_BYTES - 16, 64), "REMOTE_RANGE"),  # past the end of card 1
    ((0, 1, rdma.RTL_MEM_BYTES - 4, 0, 64), "LOCAL_RANGE"),
    ((0, 1, 2, 0, 64), "ALIGN"),
])
def test_rdma_rtl_python_errors(rtl: rdma.RTLCluster, args: tuple, code: str) -> None:
    with pytest.raises(rdma.RDMAError) as e:
        rtl.put(*args)
    assert e.value.name == code
    assert rtl.put(0, 1, 0, 0x2000, 16) > 0  # the engine goes on


def test_rdma_rtl_python_bad_input() -> None:
    with pytest.raises(SpgenError, match="dims"):
        rdma.RTLCluster((0,))
    with pytest.raises(SpgenError, match="power of 2"):
        rdma.build_rtl_cluster(window=6)


def test_rdma_rtl_python_async_in_flight() -> None:
    """Many operations started at once from every card complete, each with its own bytes."""
    cl = rdma.RTLCluster((2, 2), seed=9)
    rng = np.random.default_rng(3)
    src = [rng.integers(0, 256, 0x20000, dtype=np.uint8).tobytes() for _ in range(4)]
    for c in range(4):
        cl.write(c, 0, src[c])
    ts, want = [], []
    for k in range(40):
        c, d = k % 4, (k * 7 + 1) % 4
        n, lo = 4 * int(rng.integers(1, 2000)), 4 * int(rng.integers(0, 0x6000))
        dst = 0x100000 + 0x10000 * k
        if k % 2:
            ts.append(cl.put_async(c, d, lo, dst, n))
            want.append((d, dst, src[c][lo:lo + n]))
        else:
            ts.append(cl.get_async(c, d, dst, lo, n))
            want.append((c, dst, src[d][lo:lo + n]))
    assert not all(t.done() for t in ts)
    for t in ts:
        assert t.wait() > 0 and t.status()[0] == 1
    for card, addr, data in want:
        assert cl.read(card, addr, len(data)) == data
    bad = cl.put_async(0, 1, 0, rdma.RTL_MEM_BYTES, 64)
    with pytest.raises(rdma.RDMAError, match="REMOTE_RANGE"):
        bad.wait()
    cl.close()


def test_rdma_rtl_c_api(tmp_path) -> None:
    """A C program against afushell/rdma_rtl.h and the built library: a put and a failing get."""
    import subprocess
    from pathlib import Path
    lib = rdma.build_rtl_cluster()
    inc = Path(__file__).resolve().parents[2] / "runtime" / "rdma" / "include"
    src = tmp_path / "t.c"
    src.write_text(r"""
#include <stdio.h>
#include <string.h>
#include "afushell/rdma_rtl.h"
#define STATUS_OK 0            /* RDMA_STATUS.CODE */
#define STATUS_REMOTE_RANGE 2
int main(void) {
    void *h = rtl_cluster_create(4, 1, 1 << 20, 12, 0.0, 0.0, 1);
    uint8_t a[1000], b[1000];
    uint64_t cyc = 0;
    int code, i;
    if (!h || rtl_cluster_cards(h) != 4) return 2;
    for (i = 0; i < 1000; ++i) a[i] = (uint8_t)(i * 7);
    rtl_cluster_write(h, 0, 0x100, a, 1000);
    if (rtl_cluster_op(h, 0, 0, 2, 0x100, 0x8000, 1000, 0, 0, 0, 0, 1000000, &cyc) != STATUS_OK) return 3;
    rtl_cluster_read(h, 2, 0x8000, b, 1000);
    if (memcmp(a, b, 1000) != 0 || cyc == 0) return 4;
    int64_t t = rtl_cluster_issue(h, 1, 1, 3, 0, (1 << 22) - 8, 64, 0, 0, 0, 0);
    if (rtl_cluster_wait(h, t, 1000000, &code, &cyc) != 2 || code != STATUS_REMOTE_RANGE) return 5;
    printf("ok %llu\n", (unsigned long long)rtl_cluster_now(h));
    rtl_cluster_destroy(h);
    return 0;
}
""")
    exe = tmp_path / "t"
    r = subprocess.run(["cc", "-Wall", "-Werror", "-I", str(inc), str(src), str(lib), f"-Wl,-rpath,{lib.parent}",
                        "-o", str(exe)], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("ok"), (r.returncode, r.stdout, r.stderr)
