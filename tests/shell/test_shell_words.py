"""The word packer (record widths), unpacker (RX spans; TX to beats and records) and span packer
(RX: records or beats to destination spans), cocotb."""
from __future__ import annotations

import pytest
from shell_tb import SHELL_DIR, run_cocotb


def _passes(tmp_path, monkeypatch, name: str, module: str, test_module: str, tests: int,
            **parameters: int) -> None:
    """Run ``test_module`` on ``module`` with ``parameters``, which the test also reads from
    its environment, and expect ``tests`` cocotb tests, all passing."""
    for key, value in parameters.items():
        monkeypatch.setenv(key, str(value))
    got, failed = run_cocotb(name, module, [SHELL_DIR / f"{module}.v"], test_module,
                             parameters=parameters, tmp_path=tmp_path)
    assert got == tests and failed == 0


@pytest.mark.xdist_group("shell_words")
@pytest.mark.parametrize(("in_words", "fill_step"), [(16, 1), (10, 2), (4, 4), (3, 1), (1, 1)])
def test_word_pack(tmp_path, monkeypatch, in_words, fill_step):
    _passes(tmp_path, monkeypatch, f"pack{in_words}_{fill_step}", "shell_word_pack",
            "cocotb_shell_pack", 1, IN_WORDS=in_words, FILL_STEP=fill_step)


@pytest.mark.xdist_group("shell_words")
@pytest.mark.parametrize(("out_words", "zero_pad"), [(16, 0), (10, 0), (10, 1), (3, 1), (1, 0)])
def test_word_unpack_cut(tmp_path, monkeypatch, out_words, zero_pad):
    _passes(tmp_path, monkeypatch, f"cut{out_words}_{zero_pad}", "shell_word_unpack",
            "cocotb_shell_cut", 2, OUT_WORDS=out_words, CUT_AT_LAST=1, ZERO_PAD=zero_pad)


@pytest.mark.xdist_group("shell_words")
def test_word_unpack(tmp_path, monkeypatch):
    _passes(tmp_path, monkeypatch, "unpack", "shell_word_unpack", "cocotb_shell_unpack", 2)


@pytest.mark.xdist_group("shell_words")
@pytest.mark.parametrize("in_words", [16, 10, 3, 1])
def test_span_pack(tmp_path, monkeypatch, in_words):
    _passes(tmp_path, monkeypatch, f"span{in_words}", "shell_span_pack", "cocotb_shell_span", 2,
            IN_WORDS=in_words)
