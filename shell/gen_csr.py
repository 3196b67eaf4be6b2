"""Regenerate the CSR headers and docs from shell/csr_map.json (`--check`: fail if stale)."""
from __future__ import annotations

import sys

from spgen.shellgen import (
    SHELL_DIR,
    load_csr_map,
    render_c_header,
    render_markdown,
    render_verilog_header,
)

OUTPUTS = {
    SHELL_DIR / "include" / "afushell_csr.h": render_c_header,
    SHELL_DIR / "afushell_csr.vh": render_verilog_header,
    SHELL_DIR.parent / "docs" / "shell_csr.md": render_markdown,
}


def main(argv: list[str]) -> int:
    m = load_csr_map()
    stale = []
    for path, render in OUTPUTS.items():
        text = render(m)
        if "--check" in argv:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    for s in stale:
        print(f"stale: {s} (run python shell/gen_csr.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
