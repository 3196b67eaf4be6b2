"""The machine a benchmark ran on, named the one way every benchmark names it."""
from __future__ import annotations

import platform
from pathlib import Path

__all__ = ["cpu_name"]


def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo (else what the platform module knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"
