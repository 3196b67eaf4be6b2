"""The error table of docs/rdma.md, walked on the network model and on RTL cards: the same
wrong call gives the same code on both, and block-stride get runs on both."""
from __future__ import annotations

from pathlib import Path

import pytest
from rdma_cards import build_link_card
from spgen.runtime import rdma

pytestmark = pytest.mark.xdist_group("rdma_cluster")
# a line of 4 cards, the last absent: 9 and -1 are not cards of the cluster at all
SPEC = {"topology": "mesh", "dims": [4], "absent": [3]}


@pytest.fixture(scope="module")
def clusters(tmp_path_factory) -> dict[str, rdma.Cluster]:
    card: Path = build_link_card(tmp_path_factory, 4)
    return {"model": rdma.cluster(SPEC), "rtl": rdma.cluster({**SPEC, "card": str(card)})}


def _cases(end: int) -> list[tuple[str, int, str, tuple]]:
    """(expected code, initiator, call, arguments after the initiator); `end`: the memory size."""
    return [
        ("BAD_CARD", 3, "put_async", (0, 0, 0, 64)),             # the initiator is absent
        ("NO_ROUTE", 0, "put_async", (9, 0, 0, 64)),             # no card 9
        ("NO_ROUTE", 0, "get_async", (9, 0, 0, 64)),
        ("NO_ROUTE", 0, "put_async", (-1, 0, 0, 64)),
        ("NO_ROUTE", 0, "put_async", (3, 0, 0, 64)),             # card 3 is absent
        ("NO_ROUTE", 0, "get_async", (3, 0, 0, 64)),
        ("NO_ROUTE", 0, "put_strided_async", (9, 0, 0, 4, 4, 8, 8)),
        ("ALIGN", 0, "put_async", (1, 0, 0, 6)),                 # size not a multiple of 4
        ("ALIGN", 0, "put_async", (1, 2, 0, 64)),                # local address
        ("ALIGN", 0, "get_async", (1, 0, 2, 64)),                # remote address
        ("ALIGN", 0, "get_async", (1, 0, 0, 0)),                 # empty
        ("ALIGN", 0, "put_strided_async", (1, 0, 0, 0, 4, 8, 8)),   # block 0
        ("ALIGN", 0, "put_strided_async", (1, 0, 0, 16, 4, 8, 32)),  # local stride < block
        ("ALIGN", 0, "get_strided_async", (1, 0, 0, 16, 0, 16, 16)),  # count 0
        ("ALIGN", 0, "get_strided_async", (1, 0, 0, 16, 4, 32, 12)),  # remote stride < block
        ("LOCAL_RANGE", 0, "put_async", (1, end - 64, 0, 128)),
        ("LOCAL_RANGE", 0, "get_async", (1, end - 64, 0, 128)),
        ("LOCAL_RANGE", 0, "get_strided_async", (1, end - 256, 0, 64, 4, 128, 64)),
        ("REMOTE_RANGE", 0, "put_async", (1, 0, end - 64, 128)),
        ("REMOTE_RANGE", 0, "get_async", (1, 0, end - 64, 128)),
        ("REMOTE_RANGE", 0, "put_strided_async", (1, 0, end - 256, 64, 4, 64, 128)),
        ("REMOTE_RANGE", 0, "get_strided_async", (1, 0, end - 256, 64, 4, 64, 128)),
    ]


def test_same_code_for_the_same_wrong_call(clusters) -> None:
    seen: dict[str, list[str]] = {}
    for kind, cl in clusters.items():
        got = []
        for _, card, call, args in _cases(cl.sim.mem_bytes):
            try:
                getattr(cl[card], call)(*args).wait()
                got.append("OK")
            except rdma.RDMAError as e:
                got.append(rdma.ERRORS.get(e.code, str(e.code)))
        seen[kind] = got
    expected = [c[0] for c in _cases(0)]
    assert seen["model"] == expected, list(zip(expected, seen["model"], _cases(0), strict=True))
    assert seen["rtl"] == expected, list(zip(expected, seen["rtl"], _cases(0), strict=True))


def test_block_stride_get_on_both(clusters) -> None:
    """8 blocks of 12 bytes, 40 apart on the peer, written 16 apart here: the same bytes on both."""
    src = bytes(range(256)) * 2
    for cl in clusters.values():
        cl[2].write(0x9000, src)
        cl[0].write(0x4000, b"\xee" * 256)
        cl[0].get_strided(2, 0x4000, 0x9000 + 8, 12, 8, 16, 40)
        got = cl[0].read(0x4000, 128)
        for i in range(8):
            assert got[16 * i:16 * i + 12] == src[8 + 40 * i:8 + 40 * i + 12]
            assert got[16 * i + 12:16 * i + 16] == b"\xee" * 4  # the gaps stay untouched
