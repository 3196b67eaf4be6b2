"""The C and C++ test programs of the runtime's headers, compiled against the runtime library."""
from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["build_program"]

ROOT = Path(__file__).resolve().parents[1]


def build_program(src: Path, out_dir: Path) -> Path:
    """The program `src` (.c: C99, .cpp: C++17) linked with libafushell into `out_dir` (built
    once per folder)."""
    from spgen.runtime._build import build_runtime

    exe = out_dir / src.stem
    if exe.exists():
        return exe
    rt = build_runtime()
    cc = ["gcc", "-std=c99", "-O2"] if src.suffix == ".c" else ["g++", "-std=c++17", "-O1", "-pthread"]
    inc = [f"-I{ROOT / 'runtime' / d / 'include'}" for d in ("", "rdma", "sim")]
    subprocess.run([*cc, "-Wall", "-Wextra", "-Werror", str(src), *inc, f"-L{rt}", "-lafushell", "-lopae-c-sim",
                    f"-Wl,-rpath,{rt}", "-o", str(exe)], check=True)
    return exe
