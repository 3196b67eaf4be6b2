"""Pipelined reductions across cards (shell/rdma/rdma_reduce.v, REDUCE_* CSRs): u32 sums wrap,
f32 sums are bit for bit numpy's float32 additions in chain order, on RTL cards and on the
model; allreduce leaves that result on every card of the chain; a reduction crossing puts,
gets and a pipeline of cascades on the same cards and links, and an allreduce, under link
faults, end with every result exact; bad requests end in clear error codes."""
from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import spgen
from rdma_cards import build_link_card
from spgen.cli import main
from spgen.runtime import rdma
from spgen.runtime._build import build_runtime

pytestmark = pytest.mark.xdist_group("rdma_cluster")
HERE = Path(__file__).resolve().parent
REC10 = HERE.parent / "shell" / "data" / "rec10.spd"  # 10-word records, looks back and ahead, a Reg
SRC, DST = 0x1004, 0x9_0000 + 12  # not line aligned
WORDS = 3001                       # a prime: no multiple of a packet or a line


@pytest.fixture(scope="module")
def link_card(tmp_path_factory) -> Path:
    return build_link_card(tmp_path_factory, 2)


@pytest.fixture(scope="module")
def rec10_card(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rec10_links")
    assert main(["build", str(REC10), "--cascade", "2", "--links", "2", "-o", str(out)]) == 0
    return out


def _ring(card: Path | None, cards: int, **extra) -> rdma.Cluster:
    spec = {"topology": "ring", "dims": [cards], **extra}
    if card is not None:
        spec["card"] = str(card)
    return rdma.cluster(spec)


def _vectors(dtype: str, cards: int, n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if dtype == "u32":
        return [rng.integers(0, 1 << 32, n, dtype=np.uint32) for _ in range(cards)]
    out = []
    for _ in range(cards):
        v = (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)).astype(np.float32)
        # rounding cases: subnormals, signed zeros, cancellation, overflow to +inf (no NaN:
        # numpy's and the adder's NaN patterns differ)
        v[:8] = np.array([1e-45, -3e-39, 0.0, -0.0, 3e38, 1.0, -1.0, 2.0 ** -24], dtype=np.float32)
        out.append(v)
    return out


def _written(card: Path | None, cards: int, dtype: str, seed: int, **extra) -> tuple[rdma.Cluster, list[np.ndarray]]:
    """A ring of `cards` (_ring), each with its vector of WORDS words written at SRC."""
    cl = _ring(card, cards, **extra)
    vecs = _vectors(dtype, cards, WORDS, seed)
    for i, v in enumerate(vecs):
        cl[i].write(SRC, v)
    return cl, vecs


def _read(cl: rdma.Cluster, card: int, addr: int, n: int = WORDS, dtype: type = np.uint32) -> np.ndarray:
    """n words at addr on a card of the cluster."""
    return np.frombuffer(cl[card].read(addr, 4 * n), dtype=dtype)


def _chain_sum(vecs: list[np.ndarray], chain: list[int]) -> np.ndarray:
    acc = vecs[chain[0]].copy()
    with np.errstate(over="ignore"):
        for c in chain[1:]:
            acc = acc + vecs[c]  # float32 + float32 stays float32, u32 wraps
    return acc


@pytest.mark.parametrize("cards, chain", [(2, [0, 1]), (2, [1, 0]), (4, [0, 1, 2, 3]), (4, [3, 1, 0, 2])])
@pytest.mark.parametrize("dtype", ["u32", "f32"])
def test_rtl_reduction_equals_numpy_in_chain_order(link_card, cards, chain, dtype) -> None:
    cl, vecs = _written(link_card, cards, dtype, seed=cards * 10 + chain[0])
    t = cl.reduce_async(chain, SRC, 4 * WORDS, dst=DST, dtype=dtype)
    cycles = t.wait()
    got = np.frombuffer(cl[chain[-1]].read(DST, 4 * WORDS), dtype=vecs[0].dtype)
    assert np.array_equal(got.view(np.uint32), _chain_sum(vecs, chain).view(np.uint32))
    # every card passed every word on; the vectors themselves are untouched
    assert [c["words"] for c in t.cards] == [WORDS] * cards
    assert all(cl[i].read(SRC, 4 * WORDS) == vecs[i].tobytes() for i in range(cards))
    # a line a cycle at best; the host's CSR round trips (1 us each) take most of the time
    # of so short a vector (the rate: test_rtl_allreduce_result_flows_back_during_the_sums)
    assert WORDS // 16 < cycles < 2 * WORDS
    # in place, and a second reduction on the same cards (fresh credits, next reduction number)
    cl.reduce(chain, SRC, 4 * WORDS, dtype=dtype)
    got = np.frombuffer(cl[chain[-1]].read(SRC, 4 * WORDS), dtype=vecs[0].dtype)
    assert np.array_equal(got.view(np.uint32), _chain_sum(vecs, chain).view(np.uint32))


@pytest.mark.parametrize("dtype", ["u32", "f32"])
def test_model_reduction_same_api_same_bits(dtype) -> None:
    """The network model takes the same call and gives the same bits (in place)."""
    cl, vecs = _written(None, 4, dtype, seed=7, line_rate_gbps=100)
    chain = [3, 1, 0, 2]
    assert cl.reduce(chain, SRC, 4 * WORDS, dtype=dtype) > 0
    got = _read(cl, 2, SRC, dtype=vecs[0].dtype)
    assert np.array_equal(got.view(np.uint32), _chain_sum(vecs, chain).view(np.uint32))
    # into another address (the vectors untouched), and the refusals of a result past the end
    cl[2].write(SRC, vecs[2])  # (the sum in place replaced it)
    cl.reduce(chain, SRC, 4 * WORDS, dst=DST, dtype=dtype)
    got = _read(cl, 2, DST)
    assert np.array_equal(got, _chain_sum(vecs, chain).view(np.uint32))
    assert all(cl[c].read(SRC, 4 * WORDS) == vecs[c].tobytes() for c in range(4))
    for dst, name in ((DST + 2, "ALIGN"), ((2 << 32) - 8, "LOCAL_RANGE")):
        with pytest.raises(rdma.RDMAError) as e:
            cl.reduce(chain, SRC, 4 * WORDS, dst=dst)
        assert e.value.name == name


@pytest.mark.parametrize("cards, chain", [(2, [1, 0]), (3, [2, 0, 1]), (4, [3, 1, 0, 2])])
@pytest.mark.parametrize("dtype", ["u32", "f32"])
def test_rtl_allreduce_every_card_ends_with_the_chain_order_sum(link_card, cards, chain, dtype) -> None:
    cl, vecs = _written(link_card, cards, dtype, seed=cards * 100 + chain[0])
    t = cl.allreduce_async(chain, SRC, 4 * WORDS, dst=DST, dtype=dtype)
    cycles = t.wait()
    want = _chain_sum(vecs, chain).view(np.uint32)
    for c in range(cards):
        got = _read(cl, c, DST)
        assert np.array_equal(got, want), c
        assert cl[c].read(SRC, 4 * WORDS) == vecs[c].tobytes()
    # every card passed on or wrote the sums and then the result
    assert [c["words"] for c in t.cards] == [2 * WORDS] * cards
    assert WORDS // 16 < cycles < 2 * WORDS
    # in place, right after: the next reduction number, fresh credits
    cl.allreduce(chain, SRC, 4 * WORDS, dtype=dtype)
    for c in range(cards):
        assert np.array_equal(_read(cl, c, SRC), want), c


@pytest.mark.parametrize("dtype", ["u32", "f32"])
def test_model_allreduce_same_api_same_bits(dtype) -> None:
    cl, vecs = _written(None, 4, dtype, seed=17, line_rate_gbps=100)
    chain = [3, 1, 0, 2]
    assert cl.allreduce(chain, SRC, 4 * WORDS, dtype=dtype) > 0
    want = _chain_sum(vecs, chain).view(np.uint32)
    for c in range(4):
        assert np.array_equal(_read(cl, c, SRC), want), c
    for i, v in enumerate(vecs):  # into another address: every card's vector untouched
        cl[i].write(SRC, v)
    cl.allreduce(chain, SRC, 4 * WORDS, dst=DST, dtype=dtype)
    for c in range(4):
        assert np.array_equal(_read(cl, c, DST), want), c
        assert cl[c].read(SRC, 4 * WORDS) == vecs[c].tobytes()


@pytest.mark.parametrize("backend", ["rtl", "model"])
def test_allreduce_short_vectors(link_card, backend) -> None:
    """One word, a stream packet's worth and one more, a credit window and one more: every card
    gets the sum, one allreduce after the other on the same cards."""
    cl = _ring(link_card if backend == "rtl" else None, 4)
    for n in (1, 15, 16, 257):
        vecs = _vectors("u32", 4, n, seed=n)
        for i, v in enumerate(vecs):
            cl[i].write(SRC, v)
        cl.allreduce([1, 3, 2, 0], SRC, 4 * n, dst=DST)
        want = _chain_sum(vecs, [1, 3, 2, 0])
        for c in range(4):
            assert np.array_equal(_read(cl, c, DST, n), want), (n, c)


def test_rtl_short_reduction_costs_the_host_no_round_trip(link_card) -> None:
    """The host starts a chain with posted writes alone and sees its end in the cards' completion
    records in its own memory (400 ns after the last lands), no MMIO read: a 64-byte sum and
    allreduce on 2 and 4 cards, one after the other on the same cards (new reduction numbers,
    the record lines cleared and written again), end in under 2.1 us (an allreduce, its result
    back over the chain, 2.9 us), with every result exact; seen by a poll of every card's
    status (a 1 us round trip) the 2-card sum took 426 cycles, 2.13 us."""
    for cards in (2, 4):
        cl = _ring(link_card, cards)
        chain = list(range(cards))[::-1]
        for rep in range(3):
            vecs = _vectors("u32", cards, 16, seed=10 * cards + rep)
            for c, v in enumerate(vecs):
                cl[c].write(SRC, v)
            t_sum = cl.reduce(chain, SRC, 64, dst=DST)
            t_all = cl.allreduce(chain, SRC, 64, dst=DST + 64)
            want = _chain_sum(vecs, chain)
            assert np.array_equal(_read(cl, chain[-1], DST, 16), want), (cards, rep)
            for c in chain:
                assert np.array_equal(_read(cl, c, DST + 64, 16), want), (cards, rep, c)
            assert t_sum < 420 and t_all < 580, (cards, rep, t_sum, t_all)


def test_rtl_line_lanes_every_alignment_and_size(link_card) -> None:
    """The unit reads SRC's lines and writes DST's: vectors starting and ending anywhere in a
    line, SRC and DST in different places of their lines (and in different memories), sizes
    below, at and past a line: f32 allreduces and u32 sums bit for bit numpy's, and the words
    around the result untouched."""
    cl = _ring(link_card, 3)
    chain = [2, 0, 1]
    base_s, base_d = 0x20000, (1 << 32) + 0x40000  # memory A, memory B
    guard = np.full(40, 0xDEADBEEF, dtype=np.uint32)
    for soff, doff, n in ((0, 0, 16), (4, 60, 1), (60, 4, 17), (12, 12, 31), (52, 0, 33), (0, 28, 200),
                          (36, 56, 1025)):
        # (_vectors' f32 rounding cases take 8 words)
        for dtype, every in (("f32" if n >= 8 else "u32", True), ("u32", False)):
            vecs = _vectors(dtype, 3, n, seed=soff * 7 + doff + n)
            src, dst = base_s + soff, base_d + doff
            for c, v in enumerate(vecs):
                cl[c].write(src, v)
                cl[c].write(dst - 4 * len(guard), guard)
                cl[c].write(dst + 4 * n, guard)
            (cl.allreduce if every else cl.reduce)(chain, src, 4 * n, dst=dst, dtype=dtype)
            want = _chain_sum(vecs, chain).view(np.uint32)
            for c in chain if every else chain[-1:]:
                assert np.array_equal(_read(cl, c, dst, n), want), (soff, doff, n, dtype, c)
                assert np.array_equal(_read(cl, c, dst - 4 * len(guard), len(guard)), guard), (soff, doff, n, c)
                assert np.array_equal(_read(cl, c, dst + 4 * n, len(guard)), guard), (soff, doff, n, c)


def test_rtl_allreduce_result_flows_back_during_the_sums(link_card) -> None:
    """The result streams back over the links' other direction while the sums still flow: an
    allreduce of 256 KiB along 4 cards takes little more than the sum alone (two passes one
    after the other took twice), and both run far above a word per cycle."""
    cl = _ring(link_card, 4)
    n = 1 << 16
    vecs = _vectors("u32", 4, n, seed=3)
    for c, v in enumerate(vecs):
        cl[c].write(SRC, v)
    dst = (1 << 32) + 0x1000  # the result in memory B: the cards read A and write B at once
    chain = [0, 1, 2, 3]
    t_sum = cl.reduce(chain, SRC, 4 * n, dst=dst)
    t_all = cl.allreduce(chain, SRC, 4 * n, dst=dst)
    want = _chain_sum(vecs, chain)
    for c in range(4):
        assert np.array_equal(_read(cl, c, dst, n), want), c
    assert t_sum < n / 4 and t_all < 1.3 * t_sum, (t_sum, t_all)


@pytest.mark.parametrize("backend", ["rtl", "model"])
def test_allreduce_under_flips_drops_and_a_link_down(link_card, backend) -> None:
    """An 4-card allreduce over cables that flip and drop 0.5 % of their packets, one of them
    down for 8 us in the middle: the result on every card is exact, the faults happened."""
    cl = _ring(link_card if backend == "rtl" else None, 4, seed=5, faults={"per": 0.005, "drop": 0.005},
               link_faults=[{"link": 2, "down": [[15000, 23000]]}])
    n = 8191
    vecs = _vectors("f32", 4, n, seed=9)
    for i, v in enumerate(vecs):
        cl[i].write(SRC, v)
    chain = [1, 2, 3, 0]
    cl.allreduce(chain, SRC, 4 * n, dtype="f32")
    want = _chain_sum(vecs, chain).view(np.uint32)
    for c in range(4):
        assert np.array_equal(_read(cl, c, SRC, n), want), c
    s = cl.stats()
    names = ("dropped", "corrupted") if backend == "rtl" else ("packets_dropped", "packets_corrupted")
    assert all(s[k] > 0 for k in names)  # the faults happened and were repaired


def test_reduction_crossing_puts_gets_and_a_pipeline_under_faults(rec10_card) -> None:
    """A reduction along 0 -> 1 -> 2 -> 3 while, on the same cards and links, a pipeline of
    cascades streams 0 -> 1 -> 2 -> 3 and puts and gets run into and out of the reduction's
    cards (the traffic that wedged a reduction sent as a second stream of the engine), with
    flips, drops and a link down: every result exact, nothing wedged."""
    cl = _ring(rec10_card, 4, seed=3, faults={"per": 0.005, "drop": 0.005},
               link_faults=[{"link": 1, "down": [[20000, 26000]]}])
    n = 20011
    vecs = _vectors("f32", 4, n, seed=5)
    for i, v in enumerate(vecs):
        cl[i].write(SRC, v)
    rng = np.random.default_rng(8)
    blobs = {c: rng.integers(0, 256, 48 * 1024 + 4, dtype=np.uint8).tobytes() for c in range(4)}
    for c, b in blobs.items():
        cl[c].write(0x20_0000, b)
    red = cl.reduce_async([0, 1, 2, 3], SRC, 4 * n, dst=DST, dtype="f32")
    transfers = [cl[0].put_async(2, 0x20_0000, 0x30_0000, len(blobs[0])),   # across card 1, into the chain
                 cl[3].put_async(1, 0x20_0000, 0x30_0000, len(blobs[3])),   # against the chain
                 cl[1].get_async(2, 0x40_0000, 0x20_0000, len(blobs[2])),   # out of a card that adds
                 cl[2].put_async(3, 0x20_0000, 0x50_0000, len(blobs[2]))]   # into the last card
    for c in range(4):
        cl[c].write_reg("k", 0.75)
    d = spgen.compile(REC10)
    x = np.zeros(600, dtype=d.input_dtype())
    for name in x.dtype.names:
        x[name] = rng.standard_normal(600).astype(np.float32) if x.dtype[name].kind == "f" else \
            rng.integers(0, 1 << 20, 600)
    pipe_start = cl.now
    y, _ = cl.pipeline([0, 1, 2, 3], x, passes=1, max_chunk=37, max_gap=300, seed=4)
    ref = d.emulate(x, regs={"k": 0.75}, steps=8)
    def bits(a):  # the records' words in field order (the pipeline keeps the input's field names)
        return np.stack([np.asarray(a[k]).view(np.uint32) for k in a.dtype.names])

    assert np.array_equal(bits(y), bits(ref))
    for t in transfers:
        t.wait()
    red.wait()
    assert red._r.done > pipe_start  # the reduction was still under way while the pipeline ran
    got = _read(cl, 3, DST, n, dtype=np.float32)
    assert np.array_equal(got.view(np.uint32), _chain_sum(vecs, [0, 1, 2, 3]).view(np.uint32))
    assert cl[2].read(0x30_0000, len(blobs[0])) == blobs[0]
    assert cl[1].read(0x30_0000, len(blobs[3])) == blobs[3]
    assert cl[1].read(0x40_0000, len(blobs[2])) == blobs[2]
    assert cl[3].read(0x50_0000, len(blobs[2])) == blobs[2]
    s = cl.stats()
    assert s["dropped"] > 0 and s["corrupted"] > 0  # the faults happened and were repaired


def test_reduction_refusals_and_timeout(link_card) -> None:
    cl = _ring(link_card, 3, link_faults=[{"link": 0, "down": [[0, 1e9]]}])
    cases = [([0], SRC, 64, "BAD_CARD"), ([0, 0], SRC, 64, "BAD_CARD"), ([0, 5], SRC, 64, "BAD_CARD"),
             ([0, 1], SRC, 62, "ALIGN"), ([0, 1], SRC + 2, 64, "ALIGN"), ([0, 1], SRC, 0, "ALIGN"),
             ([0, 1], (2 << 32) - 60, 64, "LOCAL_RANGE")]
    for chain, src, n, name in cases:
        with pytest.raises(rdma.RDMAError) as e:
            cl.reduce(chain, src, n)
        assert e.value.name == name, (chain, src, n, str(e.value))
    with pytest.raises(spgen.SpgenError, match="dtype"):
        cl.reduce([0, 1], SRC, 64, dtype="f64")
    # the unit's own checks, through its CSRs (as a driver that skipped the host checks)
    for src, n, code in ((SRC + 2, 64, 5), (SRC, 66, 5), (SRC, 0, 5), ((2 << 32) - 8, 64, 4)):
        cl[0].write_csr("REDUCE_CFG", 1 << 24 | 1 << 25)  # FIRST and LAST
        cl[0].write_csr("REDUCE_SRC", src)
        cl[0].write_csr("REDUCE_DST", DST)
        cl[0].write_csr("REDUCE_LEN", n)
        cl[0].write_csr("REDUCE_CTRL", 1)
        st = cl[0].read_csr("REDUCE_STATUS")
        assert (st >> 1 & 1, st >> 8 & 0xFF, st & 1) == (1, code, 0)
    # link 0 (cards 0 - 1) is down for good: the reduction 0 -> 1 times out with the state of
    # both cards and the stuck link, is aborted, and card 1 sums again afterwards
    v = [np.arange(1000, dtype=np.uint32) * (c + 1) for c in range(3)]
    for c in range(3):
        cl[c].write(SRC, v[c])
    with pytest.raises(rdma.RDMAError) as e:
        cl.reduce([0, 1], SRC, 4000, dst=DST)
    assert e.value.name == "TIMEOUT"
    msg = str(e.value)
    assert "reduction over cards 0 1: not done" in msg and "card 1: reduction busy, 0 of 1000 sums" in msg
    assert "stuck: the sums from card 0 to card 1 cross link 0 (to card 1 port 1), down now" in msg
    cl.reduce([2, 1], SRC, 4000, dst=DST)
    assert np.array_equal(np.frombuffer(cl[1].read(DST, 4000), np.uint32), v[2] + v[1])
    # an allreduce: the same refusals; stuck on the dead link both ways, the sums' from the
    # first card (1) to the second (0) and the result's on its way back, each named as such
    for chain, src, n, name in cases:
        with pytest.raises(rdma.RDMAError) as e:
            cl.allreduce(chain, src, n)
        assert e.value.name == name, (chain, src, n, str(e.value))
    with pytest.raises(rdma.RDMAError) as e:
        cl.allreduce([1, 0, 2], SRC, 4000, dst=DST)
    assert e.value.name == "TIMEOUT"
    msg = str(e.value)
    assert "allreduction over cards 1 0 2: not done" in msg and "of 2000 words (sums and result) passed on" in msg
    assert "stuck: the sums from card 1 to card 0 cross link 0" in msg
    assert "stuck: the result from card 0 to card 1 cross link 0" in msg
    assert "stuck: the result from card 2 to card 0" not in msg
    cl.allreduce([2, 1], SRC, 4000, dst=DST)
    for c in (1, 2):
        assert np.array_equal(np.frombuffer(cl[c].read(DST, 4000), np.uint32), v[2] + v[1])


def test_c_api_reduce_on_rtl_cards_and_model(link_card, tmp_path) -> None:
    """afuShellRDMAReduce / ReduceAsync + Wait from the runtime library, on RTL cards and on
    the model, from one cluster file each."""
    lib = ctypes.CDLL(str(build_runtime() / "libafushell.so"))
    lib.afuShellLastError.restype = ctypes.c_char_p
    u64 = ctypes.c_uint64
    n = 777
    vecs = _vectors("f32", 3, n, seed=11)
    want = _chain_sum(vecs, [2, 0, 1]).view(np.uint32)
    for spec in ({"topology": "ring", "dims": [3], "card": str(link_card)}, {"topology": "ring", "dims": [3]}):
        path = tmp_path / "cluster.json"
        path.write_text(json.dumps(spec))
        h = ctypes.c_void_p()
        assert lib.afuShellRDMAClusterOpenFile(str(path).encode(), ctypes.byref(h)) == 0
        for c, v in enumerate(vecs):
            assert lib.afuShellRDMAWriteMem(h, c, u64(SRC), v.ctypes.data_as(ctypes.c_void_p), u64(4 * n)) == 0
        chain = (ctypes.c_int * 3)(2, 0, 1)
        handle = u64()
        assert lib.afuShellRDMAReduceAsync(h, chain, 3, u64(SRC), u64(SRC), u64(4 * n), 1, ctypes.byref(handle)) == 0
        assert lib.afuShellRDMAWait(h, handle, u64(0)) == 0
        out = np.zeros(n, dtype=np.uint32)
        assert lib.afuShellRDMAReadMem(h, 1, u64(SRC), out.ctypes.data_as(ctypes.c_void_p), u64(4 * n)) == 0
        assert np.array_equal(out, want)
        # allreduce: the same sums on every card (a vector of ones added on top on every card)
        ones = np.ones(n, dtype=np.float32)
        for c in range(3):
            assert lib.afuShellRDMAWriteMem(h, c, u64(SRC), ones.ctypes.data_as(ctypes.c_void_p), u64(4 * n)) == 0
        assert lib.afuShellRDMAAllreduceAsync(h, chain, 3, u64(SRC), u64(SRC), u64(4 * n), 1,
                                              ctypes.byref(handle)) == 0
        assert lib.afuShellRDMAWait(h, handle, u64(0)) == 0
        for c in range(3):
            assert lib.afuShellRDMAReadMem(h, c, u64(SRC), out.ctypes.data_as(ctypes.c_void_p), u64(4 * n)) == 0
            assert np.array_equal(out.view(np.float32), np.full(n, 3.0, np.float32))
        assert lib.afuShellRDMAAllreduce(h, chain, 3, u64(SRC), u64(SRC), u64(4 * n), 0) == 0
        # afu_result codes: AFU_ERR_RDMA_ALIGN, AFU_ERR_RDMA_BAD_CARD, AFU_ERR_BAD_ARG
        assert lib.afuShellRDMAAllreduce(h, chain, 2, u64(SRC), u64(SRC), u64(4 * n - 2), 1) == 0x205
        assert lib.afuShellRDMAReduce(h, chain, 3, u64(SRC), u64(SRC), u64(4 * n - 2), 0) == 0x205
        assert lib.afuShellRDMAReduce(h, chain, 1, u64(SRC), u64(SRC), u64(4 * n), 0) == 0x206
        assert lib.afuShellRDMAReduce(h, chain, 3, u64(SRC), u64(SRC), u64(4 * n), 7) == 0x111
        assert b"dtype" in lib.afuShellLastError()
        lib.afuShellRDMAClusterClose(h)


def test_mpi_ranks_reduce_and_allreduce_identical(link_card, tmp_path) -> None:
    """`rdma-mpi-rtl ... REDUCE_WORDS` on a ring of 8 RTL cards with faults: a u32 reduction and an f32
    allreduce along all 8 cards, each rank the host of its own cards: every result word equals
    the chain-order sum (checked on the ranks), and 1, 2 and 4 ranks print the same cycles."""
    exe = rdma.build_mpi_rtl_tool()
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"topology": "ring", "dims": [8], "card": str(link_card), "seed": 3,
                                "faults": {"per": 1e-3, "drop": 1e-3},
                                "link_faults": [{"link": 5, "down": [[6000, 12000]]}]}))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    outs = {}
    for ranks in (1, 2, 4):
        r = subprocess.run(["mpirun", "-np", str(ranks), "--oversubscribe", str(exe), str(path), "1", "5", "2003"],
                           capture_output=True, text=True, timeout=600, env=env, check=False)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        outs[ranks] = r.stdout
    assert outs[1] == outs[2] == outs[4]
    lines = outs[1].splitlines()
    rows = [ln for ln in lines if ln.startswith(("reduce u32", "allreduce f32"))]
    assert len(rows) == 2 and all(": code 0 " in ln for ln in rows), rows
    assert rows[0].endswith(f"words {8 * 2003}") and rows[1].endswith(f"words {2 * 8 * 2003}")
    assert "reduction results: 0 wrong words" in lines
    assert lines[-1].endswith(", 0 failed")
    assert sum(int(ln.split()[5]) for ln in lines if ln.startswith("channel ")) > 0  # faults happened


def test_docs_reductions_examples_run_as_written(link_card, tmp_path) -> None:
    """docs/rdma.md "Reductions": the reduction example, then the allreduce example, as written
    (the cluster file's card, build/link2, is this module's card)."""
    import re

    text = (HERE.parents[1] / "docs" / "rdma.md").read_text()
    start = text.index("## Reductions")
    section = text[start:text.index("**How it works.**", start)]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 2 and "allreduce_async" in blocks[1]
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "link2").symlink_to(link_card)
    py = subprocess.run([sys.executable, "-c", blocks[0] + blocks[1]], cwd=tmp_path, capture_output=True, text=True,
                        timeout=600, check=False)
    assert py.returncode == 0, py.stderr[-3000:]  # the examples assert their results
    assert "'in_stalls'" in py.stdout  # print(t.cards)
