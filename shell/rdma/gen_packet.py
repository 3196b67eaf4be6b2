"""Regenerate the RDMA packet-format headers from shell/rdma/rdma_packet.json.

`python shell/rdma/gen_packet.py` writes the Verilog include (shell/rdma_packet.vh, beside the CSR map's afushell_csr.vh) and
the C++ header (runtime/rdma/include/afushell/rdma_packet.h); `--check` only reports
stale outputs (exit 1), as shell/gen_csr.py does for the CSR map.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SOURCE = HERE / "rdma_packet.json"
BANNER = "generated from shell/rdma/rdma_packet.json by shell/rdma/gen_packet.py; do not edit."


def load() -> dict:
    spec = json.loads(SOURCE.read_text())
    end = 0
    for f in spec["header"]:  # fields tile the 32-bit word in order
        if f["lsb"] != end:
            raise SystemExit(f"{SOURCE}: header field {f['name']} starts at bit {f['lsb']}, expected {end}")
        end += f["width"]
    if end != 32:
        raise SystemExit(f"{SOURCE}: header fields cover {end} bits, expected 32")
    words_w = next(f["width"] for f in spec["header"] if f["name"] == "WORDS")
    m, bulk = spec["max_payload_words"], spec["bulk"]
    u = bulk["unit_words"]
    if m % u or u & (u - 1) or bulk["max_words"] != bulk_words(spec, (1 << words_w) - 1):
        raise SystemExit(f"{SOURCE}: bulk codes {m + 1}..{(1 << words_w) - 1} of {u}-word units do not reach "
                         f"max_words {bulk['max_words']}")
    return spec


def bulk_words(spec: dict, code: int) -> int:
    """Payload words of WORDS code `code`: itself up to max_payload_words, then bulk units."""
    m, u = spec["max_payload_words"], spec["bulk"]["unit_words"]
    return code if code <= m else (code - m + m // u) * u


def render_verilog(spec: dict) -> str:
    out = [f"// RDMA packet format {BANNER}",
           "// Included inside module bodies: header field positions, packet types, CTRL payload.",
           "/* verilator lint_off UNUSEDPARAM */"]
    out.append(f"localparam integer RDMA_MAX_WORDS = {spec['max_payload_words']};")
    for f in spec["header"]:
        out.append(f"localparam integer RDMA_HDR_{f['name']}_LSB = {f['lsb']};  // {f['description']}")
        out.append(f"localparam integer RDMA_HDR_{f['name']}_W = {f['width']};")
    for t in spec["types"]:
        out.append(f"localparam [3:0] RDMA_T_{t['name']} = 4'd{t['value']};  // {t['description']}")
    for f in spec["stream"]["fields"]:
        out.append(f"localparam integer RDMA_STREAM_{f['name']}_LSB = {f['lsb']};  // {f['description']}")
        out.append(f"localparam integer RDMA_STREAM_{f['name']}_W = {f['width']};")
    for c in spec["ctrl"]:
        out.append(f"localparam [4:0] RDMA_CTRL_{c['name']}_WORD = 5'd{c['word']};  // {c['description']}")
        out.append(f"localparam integer RDMA_CTRL_{c['name']}_LSB = {c['lsb']};")
        out.append(f"localparam integer RDMA_CTRL_{c['name']}_W = {c['width']};")
    m, u, mx = spec["max_payload_words"], spec["bulk"]["unit_words"], spec["bulk"]["max_words"]
    ww = next(f["width"] for f in spec["header"] if f["name"] == "WORDS")
    nw, off, sh = mx.bit_length(), m - m // u, u.bit_length() - 1
    out.append(f"localparam integer RDMA_BULK_UNIT = {u};  // {spec['bulk']['description']}")
    out.append(f"localparam integer RDMA_MAX_BULK_WORDS = {mx};")
    out.append(f"localparam integer RDMA_NWORDS_W = {nw};  // bits of a payload word count")
    out.append("/* verilator lint_on UNUSEDPARAM */")
    out.append("// payload words of a WORDS code, and the code of n words (n <= max_payload_words or whole bulk units)")
    out.append(f"function automatic [{nw - 1}:0] rdma_words(input [{ww - 1}:0] code);")
    out.append(f"    rdma_words = code <= {ww}'d{m} ? {{{nw - ww}'d0, code}} : ({{{nw - ww}'d0, code}} - {nw}'d{off}) << {sh};")
    out.append("endfunction")
    out.append(f"function automatic [{ww - 1}:0] rdma_words_code(input [{nw - 1}:0] n);")
    out.append(f"    rdma_words_code = n <= {nw}'d{m} ? n[{ww - 1}:0] : n[{nw - 1}:{sh}] + {ww}'d{off};")
    out.append("endfunction")
    args = ", ".join(f"input [{f['width'] - 1}:0] h_{f['name'].lower()}" for f in spec["header"])
    body = "{" + ", ".join(f"h_{f['name'].lower()}" for f in reversed(spec["header"])) + "}"  # fields tile the word
    out.append("// a header word from its fields (the link sender fills in SEQ)")
    out.append(f"function automatic [31:0] rdma_hdr({args});")
    out.append(f"    rdma_hdr = {body};")
    out.append("endfunction")
    return "\n".join(out) + "\n"


def render_cpp(spec: dict) -> str:
    out = [f"// RDMA packet format {BANNER}", "#pragma once", "#include <cstdint>", "",
           "namespace rdma_packet {", "",
           f"constexpr int kMaxWords = {spec['max_payload_words']};  // payload words of a full packet", ""]
    out.append("struct Field { int lsb, width; };")
    for f in spec["header"]:
        out.append(f"constexpr Field kHdr{f['name'].title()}{{{f['lsb']}, {f['width']}}};  // {f['description']}")
    out.append("")
    out.append("enum Type : uint8_t {")
    for t in spec["types"]:
        out.append(f"  T_{t['name']} = {t['value']},  // {t['description']}")
    out.append("};")
    out.append("")
    out.append(f"// {spec['stream']['description']}")
    for f in spec["stream"]["fields"]:
        out.append(f"constexpr Field kStream{f['name'].title()}{{{f['lsb']}, {f['width']}}};  // {f['description']}")
    out.append("")
    out.append("struct CtrlField { int word, lsb, width; };")
    for c in spec["ctrl"]:
        name = "".join(p.title() for p in c["name"].split("_"))
        out.append(f"constexpr CtrlField kCtrl{name}{{{c['word']}, {c['lsb']}, {c['width']}}};  // {c['description']}")
    out += ["",
            "constexpr uint32_t extract(uint32_t word, Field f) { return (word >> f.lsb) & ((1u << f.width) - 1u); }",
            "constexpr uint32_t insert(uint32_t v, Field f) { return (v & ((1u << f.width) - 1u)) << f.lsb; }",
            "",
            f"// bulk packets: {spec['bulk']['description']}",
            f"constexpr int kBulkUnit = {spec['bulk']['unit_words']};",
            f"constexpr int kMaxBulkWords = {spec['bulk']['max_words']};",
            "// payload words of a WORDS code, and the code of n words (n <= kMaxWords or whole bulk units)",
            f"constexpr uint32_t payload_words(uint32_t code) {{ return code <= {spec['max_payload_words']}u ? code : "
            f"(code - {spec['max_payload_words'] - spec['max_payload_words'] // spec['bulk']['unit_words']}u) * "
            f"{spec['bulk']['unit_words']}u; }}",
            f"constexpr uint32_t words_code(uint32_t n) {{ return n <= {spec['max_payload_words']}u ? n : "
            f"n / {spec['bulk']['unit_words']}u + "
            f"{spec['max_payload_words'] - spec['max_payload_words'] // spec['bulk']['unit_words']}u; }}",
            "",
            "}  // namespace rdma_packet"]
    return "\n".join(out) + "\n"


OUTPUTS = {
    ROOT / "shell" / "rdma_packet.vh": render_verilog,
    ROOT / "runtime" / "rdma" / "include" / "afushell" / "rdma_packet.h": render_cpp,
}


def main(argv: list[str]) -> int:
    spec = load()
    stale = []
    for path, render in OUTPUTS.items():
        text = render(spec)
        if "--check" in argv:
            if not path.exists() or path.read_text() != text:
                stale.append(path)
        else:
            path.write_text(text)
    for p in stale:
        print(f"stale: {p.relative_to(ROOT)} (run python shell/rdma/gen_packet.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
