"""The word packer (record widths), unpacker (RX spans; TX to beats and records) and span packer
(RX: records or beats to destination spans), cocotb."""
from __future__ import annotations

import pytest
from shell_tb import SHELL_DIR, run_cocotb


@pytest.mark.xdist_group("shell_words")
@pytest.mark.parametrize(("in_words", "fill_step"), [(16, 1), (10, 2), (4, 4), (3, 1), (1, 1)])
def test_word_pack(tmp_path, monkeypatch, in_words, fill_step):
    monkeypatch.setenv("IN_WORDS", str(in_words))
    monkeypatch.setenv("FILL_STEP", str(fill_step))
    tests, failed = run_cocotb(f"pack{in_words}_{fill_step}", "shell_word_pack",
                               [SHELL_DIR / "shell_word_pack.v"], "cocotb_shell_pack",
                               parameters={"IN_WORDS": in_words, "FILL_STEP": fill_step}, tmp_path=tmp_path)
    assert tests == 1 and failed == 0


@pytest.mark.xdist_group("shell_words")
@pytest.mark.parametrize(("out_words", "zero_pad"), [(16, 0), (10, 0), (10, 1), (3, 1), (1, 0)])
def test_word_unpack_cut(tmp_path, monkeypatch, out_words, zero_pad):
    monkeypatch.setenv("OUT_WORDS", str(out_words))
    monkeypatch.setenv("ZERO_PAD", str(zero_pad))
    tests, failed = run_cocotb(f"cut{out_words}_{zero_pad}", "shell_word_unpack",
                               [SHELL_DIR / "shell_word_unpack.v"], "cocotb_shell_cut",
                               parameters={"OUT_WORDS": out_words, "CUT_AT_LAST": 1, "ZERO_PAD": zero_pad},
                               tmp_path=tmp_path)
    assert tests == 2 and failed == 0


@pytest.mark.xdist_group("shell_words")
def test_word_unpack(tmp_path):
    tests, failed = run_cocotb("unpack", "shell_word_unpack", [SHELL_DIR / "shell_word_unpack.v"],
                               "cocotb_shell_unpack", tmp_path=tmp_path)
    assert tests == 2 and failed == 0


@pytest.mark.xdist_group("shell_words")
@pytest.mark.parametrize("in_words", [16, 10, 3, 1])
def test_span_pack(tmp_path, monkeypatch, in_words):
    monkeypatch.setenv("IN_WORDS", str(in_words))
    tests, failed = run_cocotb(f"span{in_words}", "shell_span_pack", [SHELL_DIR / "shell_span_pack.v"],
                               "cocotb_shell_span", parameters={"IN_WORDS": in_words},
                               tmp_path=tmp_path)
    assert tests == 2 and failed == 0
