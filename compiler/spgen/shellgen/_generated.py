"""Files generated from one description (the CSR map, the RDMA packet format) and kept in
the repository: written by their generator script, or checked by it (`--check`, run by the
tests) so that a stale copy fails instead of drifting."""
from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["write_generated"]


def write_generated(outputs: Mapping[Path, str], argv: Sequence[str], command: str) -> int:
    """Writes every `outputs` file; with "--check" in `argv` writes nothing and names each
    file whose text differs (`command` regenerates them). The exit status: 1 if stale."""
    if "--check" not in argv:
        for path, text in outputs.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return 0
    stale = [path for path, text in outputs.items() if not path.exists() or path.read_text() != text]
    for path in stale:
        print(f"stale: {path} (run {command})", file=sys.stderr)
    return 1 if stale else 0
