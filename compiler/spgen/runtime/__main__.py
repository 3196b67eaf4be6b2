"""`python -m spgen.runtime card-path loopback | build | sanitize`: helpers for the C++ runtime and make."""
from __future__ import annotations

import os
import subprocess
import sys

from .._afu_build import link_card
from .._diagnostics import SpgenError
from ._build import build_runtime, loopback_card

# Tests that run host threads against the card: the ThreadSanitizer subset (with the cluster
# clock thread: cards of a cluster opened from host threads, and a cluster's dead link).
_THREADED = (
    "Runtime.EightThreads*:Runtime.WaitTimes*:Runtime.LargeTransfers*:Runtime.CurrentShell*:Runtime.PeerTransfers*"
    ":Cluster.CardDmaAndRdmaFromThreads:Cluster.DeadLinkTimesOutWithDump"
)


def sanitize() -> int:
    """ASan+UBSan build of the C++ tests, then TSan on the threaded ones (`make sanitize`)."""
    env = dict(os.environ, SPGEN_LOOPBACK_CARD=str(loopback_card()), SPGEN_LINK_CARD=str(link_card()))
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:halt_on_error=1"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    env["TSAN_OPTIONS"] = "halt_on_error=1:second_deadlock_stack=1"
    rc = 0
    for kind, flt in (("address", "*"), ("thread", _THREADED)):
        out = build_runtime(sanitize=kind)
        print(f"== {kind} sanitizer: {out / 'afushell_tests'} --gtest_filter={flt}", flush=True)
        proc = subprocess.run([str(out / "afushell_tests"), f"--gtest_filter={flt}"], env=env, check=False)
        print(f"== {kind} sanitizer: {'passed' if proc.returncode == 0 else 'FAILED'}", flush=True)
        rc = rc or proc.returncode
    return rc


def main(argv: list[str]) -> int:
    try:
        if argv == ["card-path", "loopback"]:
            print(loopback_card())
            return 0
        if argv == ["sanitize"]:
            return sanitize()
        if argv == ["build"]:
            print(build_runtime())
            return 0
    except SpgenError as e:
        print(f"spgen.runtime: error: {e}", file=sys.stderr)
        return 1
    print("usage: python -m spgen.runtime card-path loopback | build | sanitize", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
