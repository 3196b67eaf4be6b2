"""The RDMA packet format has one source (shell/rdma/rdma_packet.json): the Verilog include and
the C++ header generated from it are current, the header fields tile the 32-bit word, and the
RTL and the C++ model build their header words the same way."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "shell" / "rdma" / "gen_packet.py"


def _gen_module():
    spec = importlib.util.spec_from_file_location("gen_packet", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generated_packet_headers_current() -> None:
    r = subprocess.run([sys.executable, str(GEN), "--check"], check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_no_hand_coded_packet_types_in_rtl() -> None:
    """Packet types come from the include: no module defines its own T_* numbers."""
    for v in sorted((ROOT / "shell" / "rdma").rglob("*.v")):
        text = v.read_text()
        assert "localparam [3:0] T_" not in text, v


def test_generator_refuses_fields_that_do_not_tile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gen = _gen_module()
    spec = json.loads(gen.SOURCE.read_text())
    spec["header"][1]["lsb"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(spec))
    monkeypatch.setattr(gen, "SOURCE", bad)
    with pytest.raises(SystemExit, match="SRC starts at bit 7, expected 6"):
        gen.load()


def test_cpp_header_word_matches_the_rtl_layout(tmp_path: Path) -> None:
    """The C++ header's insert() composes the word the RTL's rdma_hdr() concatenates (fields LSB first)."""
    out = _run_cpp(tmp_path, 'std::printf("%u\\n", insert(5, kHdrDst) | insert(9, kHdrSrc) | insert(T_GETREQ, kHdrType)'
                   ' | insert(1, kHdrVc) | insert(7, kHdrWords) | insert(1000, kHdrSeq));')
    want = 5 | 9 << 6 | 4 << 12 | 1 << 16 | 7 << 17 | 1000 << 22
    assert int(out) == want


def _run_cpp(tmp_path: Path, body: str) -> str:
    """The output of a C++ program whose main() is `body`, with the generated packet header."""
    src = tmp_path / "t.cpp"
    src.write_text('#include "afushell/rdma_packet.h"\n#include <cstdio>\nusing namespace rdma_packet;\n'
                   f'int main() {{ {body} }}\n')
    exe = tmp_path / "t"
    r = subprocess.run(["c++", "-std=c++17", "-Wall", "-Werror", f"-I{ROOT / 'runtime' / 'rdma' / 'include'}",
                        str(src), "-o", str(exe)], check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout


def test_bulk_word_codes_cover_whole_lines_up_to_1_kib(tmp_path: Path) -> None:
    """WORDS codes 0..16 are word counts; 17..31 bulk packets of 32..256 words (whole 64-byte
    lines up to 1 KiB), the same in the generator and the generated C++ header (round trip)."""
    gen = _gen_module()
    spec = gen.load()
    assert [gen.bulk_words(spec, c) for c in (0, 16, 17, 18, 31)] == [0, 16, 32, 48, 256]
    out = _run_cpp(tmp_path, 'for (uint32_t c = 0; c < 32; ++c) std::printf("%u %u\\n", payload_words(c),'
                   ' words_code(payload_words(c)));')
    rows = [tuple(map(int, line.split())) for line in out.splitlines()]
    assert rows == [(gen.bulk_words(spec, c), c) for c in range(32)]


def test_generator_refuses_bulk_codes_that_miss_the_maximum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gen = _gen_module()
    spec = json.loads(gen.SOURCE.read_text())
    spec["bulk"]["max_words"] = 512
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(spec))
    monkeypatch.setattr(gen, "SOURCE", bad)
    with pytest.raises(SystemExit, match="do not reach max_words 512"):
        gen.load()
