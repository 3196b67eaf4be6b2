"""Regenerate the CSR headers and docs from shell/csr_map.json (`--check`: fail if stale)."""
from __future__ import annotations

import sys

from spgen.shellgen import (
    SHELL_DIR,
    load_csr_map,
    render_c_header,
    render_markdown,
    render_verilog_header,
    write_generated,
)

OUTPUTS = {
    SHELL_DIR / "include" / "afushell_csr.h": render_c_header,
    SHELL_DIR / "afushell_csr.vh": render_verilog_header,
    SHELL_DIR.parent / "docs" / "shell_csr.md": render_markdown,
}


def main(argv: list[str]) -> int:
    m = load_csr_map()
    return write_generated({path: render(m) for path, render in OUTPUTS.items()}, argv,
                           "python shell/gen_csr.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
