"""Builds (once, cached by content hash) the C++ runtime and the simulated-card libraries."""
from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType

from .._diagnostics import SpgenError
from .._tools import cache_dir, content_hash, verilator_bin, verilator_env, verilator_root
from .._tools import locked as _locked

__all__ = [
    "build_card",
    "build_runtime",
    "link_card",
    "load_extension",
    "loopback_card",
    "repo_root",
    "runtime_dir",
    "shell_sources",
]

_ABI = "spg-afu-abi-2"
# The per-cycle code of a card: -O3 for the host CPU ran the 12-core LBM card about 20 %
# faster than -O2 (it is built and run on one machine: the CPU is part of the cache key);
# the once-only code (constructors, initial blocks) stays at -O1 to keep builds short.
_OPT_FAST = "-O3 -march=native"  # (Verilator's make gets it as OPT_FAST and CFLAGS)
_ext: ModuleType | None = None


def repo_root() -> Path:
    """The source tree holding runtime/ and shell/ (the package is installed editable)."""
    env = os.environ.get("SPGEN_ROOT")
    root = Path(env) if env else Path(__file__).resolve().parents[3]
    if not (root / "runtime" / "CMakeLists.txt").is_file():
        raise SpgenError(f"runtime sources not found under {root} (set SPGEN_ROOT to the spgen checkout)")
    return root


def _tree_files(root: Path, parts: Iterable[str], exts: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for part in parts:
        p = root / part
        if p.is_file():
            files.append(p)
        elif p.is_dir():
            files += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in exts)
    return files


def _run(cmd: list[str], cwd: Path, what: str, env: Mapping[str, str] | None = None) -> None:
    proc = subprocess.run(cmd, cwd=cwd, env=dict(env) if env else None, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        log = (proc.stdout + proc.stderr)[-4000:]
        raise SpgenError(f"{what} failed ({' '.join(cmd[:3])} ...):\n{log}")


def runtime_dir(sanitize: str = "") -> Path:
    """Build folder of the runtime for these sources (not necessarily built yet)."""
    root = repo_root()
    files = _tree_files(root, ["runtime", "shell/include/afushell_csr.h", "examples/dma_roundtrip"],
                        (".cpp", ".hpp", ".h", ".txt"))
    # The checkout's path too: CMake ties a build folder to its source folder, so two
    # checkouts with the same sources sharing one cache must not share the folder.
    parts: list[str | bytes] = [sys.version, sanitize, str(root)]
    for f in files:
        parts += [str(f.relative_to(root)), f.read_bytes()]
    return cache_dir("runtime") / (content_hash(*parts) + (f"-{sanitize}" if sanitize else ""))


def _forget_other_checkout(out: Path, source: Path) -> None:
    """Build folders are shared by checkouts (by content, or one per sanitizer); CMake refuses
    a folder configured from another source path, so its cache is dropped (objects stay)."""
    cache = out / "CMakeCache.txt"
    if not cache.is_file():
        return
    home = next((ln.split("=", 1)[1] for ln in cache.read_text(errors="replace").splitlines()
                 if ln.startswith("CMAKE_HOME_DIRECTORY:")), "")
    if home and Path(home) != source:
        cache.unlink()
        shutil.rmtree(out / "CMakeFiles", ignore_errors=True)


def build_runtime(sanitize: str = "", jobs: int = 2) -> Path:
    """Configures and builds runtime/ with CMake; returns the build folder (cached)."""
    # Sanitizer builds live in one folder each and build incrementally.
    out = cache_dir("runtime") / f"sanitize-{sanitize}" if sanitize else runtime_dir()
    stamp = out / ".built"
    if stamp.is_file() and not sanitize:
        return out
    if not shutil.which("cmake"):
        raise SpgenError("CMake is needed to build the runtime: install cmake (apt or pip)")
    try:
        import pybind11  # type: ignore[import-not-found]
        pb_dir = pybind11.get_cmake_dir()
    except ImportError:
        pb_dir = ""
    with _locked(out.with_suffix(".lock")):
        if stamp.is_file() and not sanitize:
            return out
        out.mkdir(parents=True, exist_ok=True)
        _forget_other_checkout(out, repo_root() / "runtime")
        cmd = ["cmake", "-S", str(repo_root() / "runtime"), "-B", str(out),
               "-DCMAKE_BUILD_TYPE=" + ("RelWithDebInfo" if sanitize else "Release"),
               f"-DPython_EXECUTABLE={sys.executable}", f"-DAFUSHELL_SANITIZE={sanitize}"]
        if pb_dir:
            cmd.append(f"-Dpybind11_DIR={pb_dir}")
        else:
            cmd.append("-DAFUSHELL_PYTHON=OFF")
        _run(cmd, out, "configuring the runtime")
        _run(["cmake", "--build", str(out), "-j", str(jobs)], out, "building the runtime")
        stamp.write_text("ok\n")
    return out


def load_extension() -> ModuleType:
    """The pybind11 module over the C API (built on first use)."""
    global _ext
    if _ext is None:
        out = build_runtime()
        found = sorted(out.glob("_afushell*.so"))
        if not found:
            raise SpgenError(f"the runtime build in {out} has no Python module: pip install pybind11")
        spec = importlib.util.spec_from_file_location("spgen.runtime._afushell", found[0])
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _ext = mod
    return _ext


def shell_sources() -> list[Path]:
    """The shell's Verilog (afu_top and its modules) plus the stand-in afu_cores."""
    shell = repo_root() / "shell"
    files = sorted(shell.glob("*.v"))
    if not (shell / "afu_top.v").is_file():
        raise SpgenError(f"{shell / 'afu_top.v'} is missing")
    return files + [shell / "passthrough" / "afu_cores.v"]


def _cpu_model() -> str:
    try:
        return next((line for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name")), "")
    except OSError:
        return ""


def _param_arg(key: str, value: object) -> str:
    if isinstance(value, bool):
        value = int(value)
    return f"-G{key}={value}"


def build_card(sources: Iterable[Path], *, params: Mapping[str, object] | None = None,
               include_dirs: Iterable[Path] = (), info: Mapping[str, object] | None = None,
               top: str = "afu_top", jobs: int = 2, fast_core: object | None = None) -> Path:
    """Verilates `top` (afu_top, or afu_rdma_top for a card with links) from `sources` into
    a simulated-card library; returns its path.

    `params` are the top's parameters (Verilator -G values), `info` lines the runtime
    reads back (``reg.<name>`` = Reg index, ``links``, ``link_bits``). `fast_core` (a
    ``spgen.backend.fast.FastCoreModel``, whose wrapper is among `sources`) links its
    kernel object and layout with ``fast_core.cpp``. Cached by the content of every input.
    """
    root = repo_root()
    sources = [Path(s).resolve() for s in sources]
    incs = [Path(d).resolve() for d in include_dirs] + [root / "shell"]
    params = dict(params or {})
    info_lines = "".join(f"{k}={v}\n" for k, v in (info or {}).items())
    wrapper = root / "runtime" / "sim" / "card" / "afu_card.cpp"
    pins = root / "runtime" / "sim" / "afu_pins.h"
    links = int(params.get("RDMA_PORTS", 0)) if top == "afu_rdma_top" else 0
    defines = [f"-DSPG_LINK_PORTS={links}", f"-DSPG_LINK_BITS={link_bits()}"] if links else []
    parts: list[str | bytes] = [_ABI, top, repr(defines), _OPT_FAST, platform.processor(),
                                _cpu_model(), repr(sorted(params.items())), info_lines,
                                wrapper.read_bytes(), pins.read_bytes(), str(verilator_root())]
    for f in sources:
        parts += [f.name, f.read_bytes()]
    fast_cpp = root / "runtime" / "sim" / "card" / "fast_core.cpp"
    if fast_core is not None:
        parts += ["fast", fast_cpp.read_bytes(), fast_core.header, fast_core.obj]
    for d in incs:
        for f in sorted(d.glob("*.vh")):
            parts += [f.name, f.read_bytes()]
    out = cache_dir("card") / content_hash(*parts)
    lib = out / "libafucard.so"
    if lib.is_file():
        return lib
    with _locked(out.with_suffix(".lock")):
        if lib.is_file():
            return lib
        obj = out / "obj"
        obj.mkdir(parents=True, exist_ok=True)
        env = verilator_env()
        cmd = [str(verilator_bin()), "--cc", "--build", "-j", str(jobs), "-O3",
               "--top-module", top, "--prefix", "Vafu_top", "--Mdir", str(obj), "-Wno-fatal", "-Wno-lint",
               "-Wno-style", "--x-assign", "fast", "--x-initial", "fast",
               "-CFLAGS", "-fPIC -march=native", "-MAKEFLAGS", "OPT_FAST=-O3 OPT_SLOW=-O1"]
        cmd += [f"-I{d}" for d in incs]
        cmd += [_param_arg(k, v) for k, v in params.items()]
        cmd += [str(s) for s in sources]
        _run(cmd, out, "Verilating the AFU", env)
        escaped = info_lines.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        (obj / "spg_card_info.h").write_text(f'#define SPG_CARD_INFO "{escaped}"\n')
        vroot = verilator_root()
        extra: list[str] = []
        if fast_core is not None:
            (obj / "spg_fast_layout.h").write_text(fast_core.header)
            (obj / "spg_fast_kernel.o").write_bytes(fast_core.obj)
            extra = [str(fast_cpp), str(obj / "spg_fast_kernel.o")]
        tmp = out / "libafucard.so.tmp"
        _run(["g++", "-shared", "-fPIC", *_OPT_FAST.split(), "-std=c++17", *defines,
              "-include", str(obj / "spg_card_info.h"),
              f"-I{obj}", f"-I{vroot / 'include'}", f"-I{vroot / 'include' / 'vltstd'}",
              f"-I{pins.parent}", str(wrapper), *extra, str(obj / "Vafu_top__ALL.a"),
              str(obj / "libverilated.a"), "-o", str(tmp), "-pthread"],
             out, "linking the simulated card")
        tmp.rename(lib)
    return lib


def link_bits() -> int:
    """Bits per cycle of one serial-link port of the RDMA RTL (rdma_link_port's word)."""
    import re

    text = (repo_root() / "shell" / "rdma" / "afu" / "afu_rdma_top.v").read_text()
    m = re.search(r"parameter\s+integer\s+LINK_W\s*=\s*(\d+)", text)
    return int(m.group(1)) if m else 32


def link_card(links: int = 4, op_timeout: int = 100_000) -> Path:
    """A loop-back card with `links` RDMA link ports (C++ tests, make sanitize): `spgen build
    --loopback --links N` into the cache, its library reused while the sources stay."""
    import io
    from contextlib import redirect_stdout

    from ..cli import main

    out = cache_dir("card") / f"loopback-links{links}-timeout{op_timeout}"
    with _locked(out.with_suffix(".lock")), redirect_stdout(io.StringIO()) as log:
        if main(["build", "--loopback", "--links", str(links), "--op-timeout", str(op_timeout), "-o", str(out)]):
            raise SpgenError(f"building the card with links failed:\n{log.getvalue()[-2000:]}")
    return out / "sim" / "libafucard.so"


def loopback_card() -> Path:
    """The no-core card (TX streams straight into RX), built on first use."""
    return build_card(shell_sources(), params={"N_CORES": 0},
                      info={"target": "loopback", "n_cores": 0})
