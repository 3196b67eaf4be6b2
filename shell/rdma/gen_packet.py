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
    return spec


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
    for c in spec["ctrl"]:
        out.append(f"localparam [4:0] RDMA_CTRL_{c['name']}_WORD = 5'd{c['word']};  // {c['description']}")
        out.append(f"localparam integer RDMA_CTRL_{c['name']}_LSB = {c['lsb']};")
        out.append(f"localparam integer RDMA_CTRL_{c['name']}_W = {c['width']};")
    out.append("/* verilator lint_on UNUSEDPARAM */")
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
    out.append("struct CtrlField { int word, lsb, width; };")
    for c in spec["ctrl"]:
        name = "".join(p.title() for p in c["name"].split("_"))
        out.append(f"constexpr CtrlField kCtrl{name}{{{c['word']}, {c['lsb']}, {c['width']}}};  // {c['description']}")
    out += ["",
            "constexpr uint32_t extract(uint32_t word, Field f) { return (word >> f.lsb) & ((1u << f.width) - 1u); }",
            "constexpr uint32_t insert(uint32_t v, Field f) { return (v & ((1u << f.width) - 1u)) << f.lsb; }",
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
