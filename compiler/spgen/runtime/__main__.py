"""`python -m spgen.runtime card-path loopback|BUILD_DIR` / `build`: used by the C++ runtime."""
from __future__ import annotations

import sys

from .._diagnostics import SpgenError
from ._build import build_runtime, loopback_card


def main(argv: list[str]) -> int:
    try:
        if argv == ["card-path", "loopback"]:
            print(loopback_card())
            return 0
        if argv == ["build"]:
            print(build_runtime())
            return 0
    except SpgenError as e:
        print(f"spgen.runtime: error: {e}", file=sys.stderr)
        return 1
    print("usage: python -m spgen.runtime card-path loopback | build", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
