"""What the RDMA cluster tests share: the loop-back cards with link ports they run on."""
from __future__ import annotations

from pathlib import Path

import pytest
from spgen.cli import main


def build_link_card(tmp_path_factory: pytest.TempPathFactory, links: int) -> Path:
    """A loop-back card with `links` link ports, built into a folder of this session;
    operations time out after 100,000 cycles (0.5 ms)."""
    out = tmp_path_factory.mktemp("cards") / f"link{links}"
    assert main(["build", "--loopback", "--links", str(links), "--op-timeout", "100000", "-o", str(out)]) == 0
    return out
