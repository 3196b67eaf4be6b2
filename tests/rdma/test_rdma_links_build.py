"""`spgen build --links N` for every documented N (1..4): the AFU passes Verilator lint with N
link ports, and a card with a single link port moves data to its neighbour."""
from __future__ import annotations

import pytest
from rdma_cards import build_link_card
from spgen.cli import main
from spgen.runtime import rdma

pytestmark = pytest.mark.xdist_group("rdma_cluster")


@pytest.mark.parametrize("links", [1, 2, 3, 4])
def test_build_every_link_count_lints(links, tmp_path, capsys) -> None:
    """The router's input index is exactly as wide as its port vectors need for every port
    count (1 and 3 ports failed lint with an index one bit too wide)."""
    assert main(["build", "--loopback", "--links", str(links), "--no-sim", "-o", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "ok  verilator --lint-only -Wall" in out and f"RDMA_PORTS={links} " in out


def test_one_link_cards_put_and_get(tmp_path_factory) -> None:
    """Two cards of one link port each, cabled port to port: a put and a get move every byte."""
    card = build_link_card(tmp_path_factory, 1)
    cl = rdma.cluster({"topology": "fullmesh", "cards": 2, "card": str(card)})
    data = bytes(range(256)) * 8
    cl[0].write(0x1000, data)
    cl[0].put(1, 0x1000, 0x4000, len(data))
    assert cl[1].read(0x4000, len(data)) == data
    cl[1].write(0x8000, data[::-1])
    cl[0].get(1, 0x2000, 0x8000, len(data))
    assert cl[0].read(0x2000, len(data)) == data[::-1]
