"""The CSR map loads, has the OPAE header where tools look, and its generated files are current."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from spgen import SpgenError
from spgen.shellgen import SHELL_DIR, load_csr_map

ROOT = SHELL_DIR.parent


def test_opae_header_at_start():
    m = load_csr_map()
    assert m.reg("DFH").address == 0 and m.reg("AFU_ID_L").address == 8
    assert m.reg("AFU_ID_H").address == 0x10
    assert int(m.reg("DFH").reset, 16) >> 60 == 1  # AFU type


def test_dma_blocks_share_layout():
    m = load_csr_map()
    for name in ("DESC_SRC", "DESC_DST", "DESC_LEN", "DESC_STRIDE", "DESC_NEXT", "DESC_CTRL", "STATUS"):
        assert m.reg("RX_" + name).address - m.reg("TX_" + name).address == 0x100


def test_generated_files_current():
    r = subprocess.run([sys.executable, str(SHELL_DIR / "gen_csr.py"), "--check"], check=False,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_header_compiles(tmp_path: Path):
    src = tmp_path / "t.c"
    src.write_text('#include "afushell_csr.h"\nint main(void){return AFUSHELL_TX_DESC_CTRL == 0x128 ? 0 : 1;}\n')
    r = subprocess.run(["cc", "-Wall", "-Werror", "-I", str(SHELL_DIR / "include"), str(src),
                        "-o", str(tmp_path / "t")], check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert subprocess.run([str(tmp_path / "t")], check=False).returncode == 0


def test_overlap_rejected(tmp_path: Path):
    text = (SHELL_DIR / "csr_map.json").read_text().replace('"name": "AFU_ID_H", "offset": "0x10"',
                                                            '"name": "AFU_ID_H", "offset": "0x08"')
    bad = tmp_path / "m.json"
    bad.write_text(text)
    with pytest.raises(SpgenError, match="overlaps"):
        load_csr_map(bad)
