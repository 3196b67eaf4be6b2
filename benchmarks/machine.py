"""The machine a benchmark ran on, named the one way every benchmark names it."""
from __future__ import annotations

import json
import os
import platform
import sys
from datetime import date
from pathlib import Path

__all__ = ["cpu_name", "write_json"]


def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo (else what the platform module knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def write_json(path: str | Path, fields: dict) -> None:
    """Write a benchmark's results to `path` as JSON, headed by the machine and the date
    they were measured on; says where on stderr."""
    about = {"date": date.today().isoformat(), "cpu": cpu_name(), "cpus": os.cpu_count(),
             "python": platform.python_version(), "load_avg": os.getloadavg()}
    Path(path).write_text(json.dumps(about | fields, indent=2) + "\n")
    print(f"wrote {path}", file=sys.stderr)
