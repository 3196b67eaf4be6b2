"""Regenerate runtime/include/afushell/lbm_layout.hpp from lbm_record.json (`--check`: fail if stale)."""
from __future__ import annotations

import sys
from pathlib import Path

from spgen.lbm._layout import render_header
from spgen.shellgen import write_generated

HEADER = Path(__file__).resolve().parents[2] / "runtime" / "include" / "afushell" / "lbm_layout.hpp"

if __name__ == "__main__":
    sys.exit(write_generated({HEADER: render_header()}, sys.argv[1:], "python cores/lbm/gen_layout.py"))
