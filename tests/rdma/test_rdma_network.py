"""RDMA between simulated cards: data integrity under faults, errors, deadlock freedom, topologies."""
from __future__ import annotations

import ctypes
import json
import random

import numpy as np
import pytest
from spgen import SpgenError
from spgen.runtime import rdma

pytestmark = pytest.mark.xdist_group("rdma")
PUT = 1  # event kind of a completed put at its target


def _pattern(rng: random.Random, n: int) -> bytes:
    return rng.randbytes(n)


def _all_pairs(cl: rdma.Cluster, rng: random.Random, max_words: int, use_get: bool = True) -> list:
    """Starts one transfer between every ordered pair at once; returns what must arrive where."""
    n = len(cl)
    region = max_words * 4
    expect, xfers = [], []
    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            size = 4 * rng.randint(1, max_words)
            src_off = (s * n + d) * region
            dst_off = (1 << 24) + (s * n + d) * region
            data = _pattern(rng, size)
            if use_get and (s + d) % 2:  # d pulls from s
                cl[s].write(src_off, data)
                xfers.append(cl[d].get_async(s, dst_off, src_off, size))
                expect.append((d, dst_off, data, None))
            else:
                cl[s].write(src_off, data)
                xfers.append(cl[s].put_async(d, src_off, dst_off, size))
                expect.append((d, dst_off, data, s))
    return [expect, xfers]


def _check(cl: rdma.Cluster, expect: list, xfers: list) -> None:
    for t in xfers:
        t.wait()
    cl.run(2000)  # let the last acknowledgements settle
    for card, off, data, _ in expect:
        assert cl[card].read(off, len(data)) == data
    # every put completed exactly once at its target: nothing lost, nothing duplicated
    for card in range(len(cl)):
        got = sorted((e[1], e[2], e[3]) for e in cl[card].events() if e[0] == PUT)
        want = sorted((s, off, len(data)) for c, off, data, s in expect if c == card and s is not None)
        assert got == want
    assert cl.sim.quiet()


def test_rdma_random_sizes_put_get_torus8() -> None:
    rng = random.Random(1)
    cl = rdma.cluster({"topology": "torus", "dims": [2, 4], "line_rate_gbps": 100})
    for _ in range(40):
        s, d = rng.sample(range(8), 2)
        size = 4 * rng.randint(1, 3000)
        a, b = 4 * rng.randint(0, 1 << 20), 4 * rng.randint(0, 1 << 20)
        data = _pattern(rng, size)
        cl[s].write(a, data)
        if rng.random() < 0.5:
            cl[s].put(d, a, b, size)
            assert cl[d].read(b, size) == data
        else:
            cl[d].get(s, b, a, size)
            assert cl[d].read(b, size) == data


@pytest.mark.parametrize("faults", [
    {},
    {"per": 1e-4, "down": [[2000, 6000]]},
    {"per": 1e-2, "drop": 1e-3, "ber": 1e-6},
], ids=["clean", "per1e-4+down", "per1e-2"])
def test_rdma_all_pairs_torus8_faults(faults: dict) -> None:
    cl = rdma.cluster({"topology": "torus", "dims": [2, 4], "line_rate_gbps": 40, "faults": faults,
                       "seed": 7})
    expect, xfers = _all_pairs(cl, random.Random(2), 1500)
    _check(cl, expect, xfers)
    st = cl.stats()
    if faults:
        assert st["packets_dropped"] + st["packets_corrupted"] > 0
        assert st["replays"] > 0
    else:
        assert st["replays"] == 0


def test_rdma_deadlock_free_alltoall_torus4x4() -> None:
    cl = rdma.cluster({"topology": "torus", "dims": [4, 4], "line_rate_gbps": 100,
                       "params": {"vc_buffer": 8}})
    expect, xfers = _all_pairs(cl, random.Random(3), 512, use_get=False)
    _check(cl, expect, xfers)
    assert cl.stats()["buffer_checks"] > 0


@pytest.mark.parametrize("vcs", [True, False])
def test_rdma_torus_without_virtual_channels_deadlocks(vcs: bool) -> None:
    """An all-to-all on an 8 x 2 torus completes with dateline VCs and wedges without them: the
    deadlock tests have teeth. On a ring of 8 routes go up to 3 hops one way round, which
    closes a cycle of channel dependencies; on the rings of 4 of the test above every route
    of 2 hops leaves from a card of one parity (halfway routes split), which does not."""
    cl = rdma.cluster({"topology": "torus", "dims": [8, 2], "line_rate_gbps": 100, "virtual_channels": vcs,
                       "params": {"vc_buffer": 4, "op_timeout": 400000}})
    expect, xfers = _all_pairs(cl, random.Random(3), 1024, use_get=False)
    if vcs:
        _check(cl, expect, xfers)
        return
    with pytest.raises(rdma.RDMAError, match="TIMEOUT"):
        for t in xfers:
            t.wait()


@pytest.mark.parametrize("spec", [
    {"topology": "ring", "cards": 6},
    {"topology": "mesh", "dims": [3, 3]},
    {"topology": "fullmesh", "cards": 5},
    {"topology": "custom", "cards": 3, "ports": 2, "links": [{"a": [0, 0], "b": [1, 1]}, {"a": [1, 0], "b": [2, 1]}]},
], ids=["ring", "mesh", "fullmesh", "custom"])
def test_rdma_topologies(spec: dict) -> None:
    cl = rdma.cluster(dict(spec, params={"vc_buffer": 4}))
    expect, xfers = _all_pairs(cl, random.Random(4), 300)
    _check(cl, expect, xfers)


def test_rdma_errors_absent_and_out_of_range() -> None:
    # a line of 5 whose last card is absent: no route between the others crosses it
    cl = rdma.cluster({"topology": "mesh", "dims": [5], "absent": [4],
                       "params": {"mem_bytes": 1 << 20, "op_timeout": 20000}})
    with pytest.raises(rdma.RDMAError, match="NO_ROUTE") as e:
        cl[0].put(4, 0, 0, 64)
    assert e.value.code == 1
    with pytest.raises(rdma.RDMAError, match="REMOTE_RANGE"):
        cl[0].put(3, 0, (1 << 20) - 60, 64)
    with pytest.raises(rdma.RDMAError, match="REMOTE_RANGE"):
        cl[0].get(3, 0, (1 << 20) - 4, 8)
    with pytest.raises(rdma.RDMAError, match="LOCAL_RANGE"):
        cl[0].put(3, (1 << 20) - 4, 0, 8)
    with pytest.raises(rdma.RDMAError, match="ALIGN"):
        cl[0].put(3, 0, 0, 6)
    with pytest.raises(rdma.RDMAError, match="NO_ROUTE"):  # no card 9: as on RTL cards
        cl[0].put(9, 0, 0, 8)
    # the network still works afterwards
    cl[1].write(0, b"abcd" * 16)
    cl[1].put(2, 0, 128, 64)
    assert cl[2].read(128, 64) == b"abcd" * 16


def test_rdma_timeout_on_dead_link() -> None:
    # card 1 is only reachable over link 0 (ring 0-1-2: 0 -> 1 via port 0), which never comes up
    cl = rdma.cluster({"topology": "mesh", "dims": [3], "link_faults": [{"link": 0, "down": [[0, 1e12]]}],
                       "params": {"op_timeout": 5000}})
    t = cl[0].put_async(1, 0, 0, 256)
    with pytest.raises(rdma.RDMAError, match="TIMEOUT"):
        t.wait()
    cl[1].write(0, b"\x01\x02\x03\x04")
    cl[1].put(2, 0, 0, 4)  # other links unaffected
    assert cl[2].read(0, 4) == b"\x01\x02\x03\x04"


def test_rdma_reduce_chain_sum() -> None:
    cl = rdma.cluster({"topology": "ring", "cards": 4, "line_rate_gbps": 100})
    rng = np.random.default_rng(5)
    n = 3000
    vecs = [rng.integers(0, 2**32, n, dtype=np.uint32) for _ in range(4)]
    for i, v in enumerate(vecs):
        cl[i].write(4096, v)
    h = cl.sim.reduce([0, 1, 2, 3], 4096, 4 * n)
    rdma.Transfer(cl, h).wait()
    got = np.frombuffer(cl[3].read(4096, 4 * n), dtype=np.uint32)
    assert np.array_equal(got, vecs[0] + vecs[1] + vecs[2] + vecs[3])


def test_rdma_c_api_through_ctypes() -> None:
    """The C API of the runtime library over the model: afu_result codes (AFU_ERR_TIMEOUT
    0x107 while in flight, AFU_ERR_RDMA_REMOTE_RANGE 0x202, AFU_ERR_BAD_ARG 0x111) and the
    calling thread's message in afuShellLastError, as for every call of afushell.h."""
    from spgen.runtime._build import build_runtime

    lib = ctypes.CDLL(str(build_runtime() / "libafushell.so"))
    lib.afuShellLastError.restype = ctypes.c_char_p
    u64 = ctypes.c_uint64
    desc = rdma.resolve({"topology": "ring", "cards": 3}).encode()
    h = ctypes.c_void_p()
    assert lib.afuShellRDMAClusterOpen(desc, ctypes.byref(h)) == 0
    buf = (ctypes.c_uint8 * 256)(*range(256))
    assert lib.afuShellRDMAWriteMem(h, 0, u64(0), buf, u64(256)) == 0
    assert lib.afuShellRDMAPut(h, 0, 2, u64(0), u64(1024), u64(256)) == 0
    handle = u64()
    assert lib.afuShellRDMAGetAsync(h, 1, 2, u64(0), u64(1024), u64(256), ctypes.byref(handle)) == 0
    assert lib.afuShellRDMATest(h, handle) == 0x107
    assert lib.afuShellRDMAWait(h, handle, u64(0)) == 0
    out = (ctypes.c_uint8 * 256)()
    assert lib.afuShellRDMAReadMem(h, 1, u64(0), out, u64(256)) == 0
    assert bytes(out) == bytes(range(256))
    assert lib.afuShellRDMAPut(h, 0, 2, u64(0), u64(1 << 40), u64(256)) == 0x202
    assert b"past the end" in lib.afuShellLastError()
    assert lib.afuShellRDMAClusterCardOpen(h, 0, ctypes.byref(ctypes.c_void_p())) == 6  # FPGA_NOT_SUPPORTED
    assert b"RTL cards only" in lib.afuShellLastError()
    bad = ctypes.c_void_p()
    assert lib.afuShellRDMAClusterOpen(b"cards 2\n", ctypes.byref(bad)) == 0x111
    assert b"ports" in lib.afuShellLastError()
    lib.afuShellRDMAClusterClose(h)


def test_rdma_crc32_matches_zlib() -> None:
    import zlib
    data = bytes(range(200))
    assert rdma.load_rdma_extension().crc32(data) == zlib.crc32(data)


@pytest.mark.parametrize("spec, msg", [
    ({"topology": "hypercube"}, "topology"),
    ({"topology": "torus", "dims": [0, 2]}, "dims"),
    ({"topology": "ring", "cards": 4, "params": {"bogus": 1}}, "unknown param"),
    ({"topology": "fullmesh", "cards": 65}, "64"),
    ({"topology": "ring", "cards": 4, "faults": {"per": 2}}, "0.5"),
    ({"topology": "custom", "cards": 2, "ports": 1, "links": [{"a": [0, 0], "b": [3, 0]}]}, "outside"),
], ids=["topology", "dims", "param", "cards", "rate", "link"])
def test_rdma_cluster_file_errors(spec: dict, msg: str) -> None:
    with pytest.raises(SpgenError, match=msg):
        rdma.cluster(spec)


def test_rdma_cluster_file_from_disk(tmp_path) -> None:
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"topology": "ring", "cards": 2}))
    assert len(rdma.cluster(p)) == 2
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(SpgenError, match="not JSON"):
        rdma.cluster(tmp_path / "bad.json")


def test_rdma_block_stride_put_halo() -> None:
    """A column and a row block of a 64 x 64 uint32 grid into a differently strided grid."""
    cl = rdma.cluster({"topology": "torus", "dims": [2, 4], "line_rate_gbps": 100, "params": {"mem_bytes": 1 << 20}})
    rng = np.random.default_rng(6)
    grid = rng.integers(0, 2**32, (64, 64), dtype=np.uint32)
    cl[0].write(0, grid)
    fill = np.full((64, 80), 0xDEADBEEF, dtype=np.uint32)
    cl[5].write(65536, fill)
    cl[0].put_strided(5, 4 * 7, 65536 + 4 * 3, 4, 64, 256, 320)          # column 7 -> column 3
    cl[0].put_strided(5, 256 * 10, 65536 + 320 * 20 + 40, 128, 5, 256, 320)  # rows 10..14, 32 words
    got = np.frombuffer(cl[5].read(65536, 64 * 320), dtype=np.uint32).reshape(64, 80).copy()
    want = fill.copy()
    want[:, 3] = grid[:, 7]
    want[20:25, 10:42] = grid[10:15, :32]
    assert np.array_equal(got, want)  # the gaps between blocks are untouched
    with pytest.raises(rdma.RDMAError, match="REMOTE_RANGE"):
        cl[0].put_strided(5, 0, (1 << 20) - 1024, 4, 64, 256, 256)
    with pytest.raises(rdma.RDMAError, match="ALIGN"):
        cl[0].put_strided(5, 0, 0, 8, 4, 4, 16)


@pytest.mark.parametrize("spec, msg", [
    ({"topology": "torus", "dims": [2, 4], "absent": [6]}, "crosses absent card 6"),
    ({"topology": "ring", "cards": 4, "faults": {"pre": 0.3}}, "unknown key 'pre'"),
    ({"topology": "ring", "cards": 4, "link_faults": [{"link": 1, "dwn": [[0, 1]]}]}, "unknown key 'dwn'"),
    ({"topology": "ring", "cards": 4, "latency": 100}, "unknown key 'latency'"),
    ({"topology": "custom", "cards": 3, "ports": 2, "links": [{"a": [0, 0], "b": [1, 1]}, {"a": [1, 1], "b": [2, 0]}]},
     r"links\[1\]\.a: port 1 of card 1 already carries a link"),
], ids=["absent-on-route", "fault-key", "link-fault-key", "top-key", "port-reused"])
def test_rdma_cluster_file_refuses_what_would_mislead(spec: dict, msg: str) -> None:
    """Routes through absent cards, unknown keys anywhere and reused ports are refused when
    the file is read, naming the key, instead of a run that times out or ignores them."""
    with pytest.raises(SpgenError, match=msg):
        rdma.cluster(spec)


def test_rdma_cluster_card_index_error() -> None:
    cl = rdma.cluster({"topology": "ring", "cards": 3})
    with pytest.raises(SpgenError, match="no card 9 in this cluster of 3"):
        cl[9]
