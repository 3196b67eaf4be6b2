"""The DMA engines' word packer (any span, several record widths) and unpacker (cocotb)."""
from __future__ import annotations

import pytest
from shell_tb import SHELL_DIR, run_cocotb


@pytest.mark.xdist_group("shell_words")
@pytest.mark.parametrize(("in_words", "fill_step"), [(16, 1), (10, 2), (4, 4), (3, 1)])
def test_word_pack(tmp_path, monkeypatch, in_words, fill_step):
    monkeypatch.setenv("IN_WORDS", str(in_words))
    monkeypatch.setenv("FILL_STEP", str(fill_step))
    tests, failed = run_cocotb(f"pack{in_words}_{fill_step}", "shell_word_pack",
                               [SHELL_DIR / "shell_word_pack.v"], "cocotb_shell_pack",
                               parameters={"IN_WORDS": in_words, "FILL_STEP": fill_step}, tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_words")
def test_word_unpack(tmp_path):
    tests, failed = run_cocotb("unpack", "shell_word_unpack", [SHELL_DIR / "shell_word_unpack.v"],
                               "cocotb_shell_unpack", tmp_path=tmp_path)
    assert tests == 2 and failed == 0
