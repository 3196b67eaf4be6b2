"""The card's clock: CLOCK_MHZ of shell/csr_map.json, the one place it is written."""
from __future__ import annotations

import json

from ._paths import shell_dir

__all__ = ["CLOCK_MHZ"]


def _clock_mhz() -> float:
    # a plain read (not spgen.shellgen's checked map) so that light modules may import it
    constants = json.loads((shell_dir() / "csr_map.json").read_text())["constants"]
    return float(next(c["value"] for c in constants if c["name"] == "CLOCK_MHZ"))


CLOCK_MHZ = _clock_mhz()  # shell, cores and RDMA block: 200 MHz, 5 ns a cycle
