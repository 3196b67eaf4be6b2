"""Where spgen finds shell/, runtime/ and cores/: the checkout's folders or the package's copies."""
from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "DATA_DIRS",
    "SOURCE_VERSION",
    "checkout_root",
    "cores_dir",
    "data_root",
    "examples_dir",
    "runtime_src_dir",
    "shell_dir",
    "version",
]

# The top-level folders of the repository an installed spgen needs (setup.py copies them
# into spgen/_data): the shell RTL and the runtime's C++ are built on the user's machine,
# the runtime's CMake project compiles examples/dma_roundtrip, and the demo compiles cores/.
DATA_DIRS = ("shell", "runtime", "cores", "examples")
SOURCE_VERSION = "0.1.0"  # setup.py reads the release from this line
_PACKAGE = Path(__file__).resolve().parent


def checkout_root() -> Path | None:
    """The repository this spgen runs from (compiler/spgen inside it), None when installed."""
    root = _PACKAGE.parents[1]
    if _PACKAGE.parent.name == "compiler" and (root / "setup.py").is_file() \
            and all((root / d).is_dir() for d in DATA_DIRS):
        return root
    return None


def data_root() -> Path:
    """The folder holding shell/, runtime/, cores/ and examples/: $SPGEN_ROOT when set (another
    source tree), else the checkout, else the copies inside the installed package."""
    env = os.environ.get("SPGEN_ROOT")
    if env:
        return Path(env).resolve()
    return checkout_root() or _PACKAGE / "_data"


def shell_dir() -> Path:
    """The AFU shell's Verilog, headers and CSR map."""
    return data_root() / "shell"


def runtime_src_dir() -> Path:
    """The C++ runtime's CMake project (its build folders are in the cache, not here)."""
    return data_root() / "runtime"


def cores_dir() -> Path:
    """The example .spd cores (LBM, stencils, sort)."""
    return data_root() / "cores"


def examples_dir() -> Path:
    """The worked examples (C++ and Python programs on the simulated card)."""
    return data_root() / "examples"


def version() -> str:
    """The installed distribution's version; a checkout's own (it may differ from whatever
    spgen is installed beside it) when run from one."""
    if checkout_root() is None:
        from importlib import metadata

        try:
            return metadata.version("spgen")
        except metadata.PackageNotFoundError:
            pass
    return SOURCE_VERSION
