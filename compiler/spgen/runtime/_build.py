"""Builds (once, cached by content hash) the C++ runtime and the simulated-card libraries."""
from __future__ import annotations

import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import ModuleType

from .._diagnostics import SpgenError
from .._paths import data_root
from .._tools import cache_dir, content_hash, verilator_bin, verilator_env, verilator_root
from .._tools import locked as _locked

__all__ = [
    "build_card",
    "build_runtime",
    "load_extension",
    "loopback_card",
    "repo_root",
    "runtime_dir",
    "shell_sources",
]

_ABI = "spg-afu-abi-3"
_RECIPE = "two-units-1"  # how a card is compiled (_compile_card): part of its cache key
# The per-cycle code of a card: -O3 for the host CPU ran the 12-core LBM card about 20 %
# faster than -O2 (it is built and run on one machine: the CPU is part of the cache key);
# without semantic interposition the compiler may inline the fast core model's DPI calls
# and the model's own functions although the library is position-independent (about 3 %).
# The once-only code (constructors, initial blocks) stays at -O1 to keep builds short.
_OPT_FAST = "-O3 -march=native -fno-semantic-interposition"
_OPT_SLOW = "-O1"
_UNIT_BYTES = 2_000_000  # a model's per-cycle C++ beyond this is compiled in `jobs` units
_ext: ModuleType | None = None


def repo_root() -> Path:
    """The tree holding runtime/ and shell/: $SPGEN_ROOT, the checkout or the package's copy."""
    root = data_root()
    if not (root / "runtime" / "CMakeLists.txt").is_file():
        raise SpgenError(f"runtime sources not found under {root} "
                         "(set SPGEN_ROOT to an spgen source tree)")
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


def _build_once(lib: Path, build: Callable[[], None]) -> Path:
    """`lib` (a file in its own cache folder), made by `build` unless it is there already: under
    the folder's lock, and looked for again once the lock is held, as another process may
    have built it while this one waited."""
    if not lib.is_file():
        with _locked(lib.parent.with_suffix(".lock")):
            if not lib.is_file():
                build()
    return lib


def _run(cmd: list[str], cwd: Path, what: str, env: Mapping[str, str] | None = None) -> None:
    proc = subprocess.run(cmd, cwd=cwd, env=dict(env) if env else None, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        log = (proc.stdout + proc.stderr)[-4000:]
        raise SpgenError(f"{what} failed ({' '.join(cmd[:3])} ...):\n{log}")


def runtime_dir(sanitize: str = "") -> Path:
    """Build folder of the runtime for these sources (not necessarily built yet)."""
    root = repo_root()
    files = _tree_files(root, ["runtime", "shell/include", "examples/dma_roundtrip"],
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
               top: str = "afu_top", jobs: int | None = None, fast_core: object | None = None) -> Path:
    """Verilates `top` (afu_top, or afu_rdma_top for a card with links) from `sources` into
    a simulated-card library; returns its path.

    `params` are the top's parameters (Verilator -G values), `info` lines the runtime
    reads back (``reg.<name>`` = Reg index, ``links``, ``link_bits``). `fast_core` (a
    ``spgen.backend.fast.FastCoreModel``, whose wrapper is among `sources`) links its
    kernel object and layout with ``fast_core.cpp``. Cached by the content of every input.
    `jobs`: compiler processes for a large model (default: SPGEN_BUILD_JOBS, else 2).
    """
    jobs = jobs or int(os.environ.get("SPGEN_BUILD_JOBS") or 2)
    root = repo_root()
    sources = [Path(s).resolve() for s in sources]
    incs = [Path(d).resolve() for d in include_dirs] + [root / "shell"]
    params = dict(params or {})
    info_lines = "".join(f"{k}={v}\n" for k, v in (info or {}).items())
    wrapper = root / "runtime" / "sim" / "card" / "afu_card.cpp"
    pins = root / "runtime" / "sim" / "afu_pins.h"
    links = int(params.get("RDMA_PORTS", 0)) if top == "afu_rdma_top" else 0
    defines = [f"-DSPG_LINK_PORTS={links}", f"-DSPG_LINK_BITS={link_bits(params)}"] if links else []
    parts: list[str | bytes] = [_ABI, _RECIPE, top, repr(defines), _OPT_FAST, platform.processor(),
                                _cpu_model(), repr(sorted(params.items())), info_lines,
                                wrapper.read_bytes(), pins.read_bytes(), str(verilator_root())]
    for f in sources:
        parts += [f.name, f.read_bytes()]
    fast_cpp = root / "runtime" / "sim" / "card" / "fast_core.cpp"
    trainer = root / "runtime" / "sim" / "card" / "train_card.cpp"
    csr_h = root / "shell" / "include" / "afushell_csr.h"
    if fast_core is not None:
        parts += ["fast", fast_cpp.read_bytes(), fast_core.header, fast_core.obj,
                  "pgo", trainer.read_bytes(), csr_h.read_bytes()]
    for d in incs:
        for f in sorted(d.glob("*.vh")):
            parts += [f.name, f.read_bytes()]
    out = cache_dir("card") / content_hash(*parts)
    lib = out / "libafucard.so"

    def build() -> None:
        nonlocal defines, info_lines
        obj = out / "obj"
        obj.mkdir(parents=True, exist_ok=True)
        cmd = [str(verilator_bin()), "--cc", "-O3", "--top-module", top, "--prefix", "Vafu_top",
               "--Mdir", str(obj), "-Wno-fatal", "-Wno-lint", "-Wno-style",
               "--x-assign", "fast", "--x-initial", "fast"]
        cmd += [f"-I{d}" for d in incs]
        cmd += [_param_arg(k, v) for k, v in params.items()]
        cmd += [str(s) for s in sources]
        _run(cmd, out, "Verilating the AFU", verilator_env())
        if registered_outputs(obj):
            defines = [*defines, "-DSPG_REGISTERED_OUTPUTS"]
            info_lines += "registered_outputs=1\n"
        escaped = info_lines.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        (obj / "spg_card_info.h").write_text(f'#define SPG_CARD_INFO "{escaped}"\n')
        if fast_core is not None:
            (obj / "spg_fast_layout.h").write_text(fast_core.header)
            (obj / "spg_fast_kernel.o").write_bytes(fast_core.obj)
        # A fast card is compiled guided by a profile of its own streaming run (below).
        train = None if fast_core is None else (
            trainer, csr_h.parent, [str(params.get(k, 1)) for k in ("RECORD_WORDS", "OUT_RECORD_WORDS")]
            + [str(params.get("N_REGS", 0))])
        _compile_card(obj, [wrapper] + ([fast_cpp] if fast_core is not None else []), defines,
                      pins.parent, out / "libafucard.so.tmp", jobs, train)
        (out / "libafucard.so.tmp").rename(lib)

    return _build_once(lib, build)


def _root_functions(obj: Path) -> dict[str, str]:
    """Bodies of the Verilated model's root functions (``Vafu_top___024root___NAME``) by
    NAME: Verilator writes each as a definition at column 0 closed by a ``}`` line."""
    head = re.compile(r"^[A-Za-z].*\bVafu_top___024root___(\w+)\(.*\{$")
    bodies: dict[str, str] = {}
    for f in sorted(obj.glob("Vafu_top___024root__*.cpp")):
        name, lines = None, []
        for line in f.read_text().splitlines():
            if name is None:
                m = head.match(line)
                if m:
                    name, lines = m.group(1), []
            elif line == "}":
                bodies[name] = "\n".join(lines)
                name = None
            else:
                lines.append(line)
    return bodies


def _written(body: str) -> set[str]:
    """Members of the model a function body may write: assigned (``x =``, ``x[i] |=``),
    passed to a Verilator macro (whose first operands are its outputs), addressed or
    used through a method. Reads inside expressions are the only uses left out."""
    member = r"\bvlSelf(?:Ref\.|->)(\w+)"
    names = set(re.findall(member + r"(?:\[[^\]]*\])*\s*[-+*/%|&^]?=(?!=)", body))
    names |= set(re.findall(r"&\s*" + member, body)) | set(re.findall(member + r"\.", body))
    for call in re.findall(r"\bVL_\w+\(([^;]*)", body):
        names |= set(re.findall(member, call))
    return names


def registered_outputs(obj: Path) -> bool:
    """Whether a Verilated card model (in `obj`) changes its outputs only at the rising
    edge of ``clk``: the rising edge is its only event, and no output port is named in
    its input-driven logic (the ``ico`` functions and every root function they call).
    The card library then skips the evaluations with clk = 0 (afu_card.cpp). Anything
    unexpected in Verilator's output answers no: the card is then evaluated as usual."""
    outputs = set(re.findall(r"VL_OUT\w*\(&(\w+)", (obj / "Vafu_top.h").read_text()))
    edges = set(re.findall(r"__Vtrigprevexpr\w*", (obj / "Vafu_top___024root.h").read_text()))
    bodies = _root_functions(obj)
    act = " ".join(bodies.get("eval_triggers_vec__act", "").split())
    rising = ("(IData)(vlSelfRef.clk) & (~ (IData)(vlSelfRef.__Vtrigprevexpr___TOP__clk__0))" in act
              and act.count("__VactTriggered[") == 1)
    if not outputs or edges != {"__Vtrigprevexpr___TOP__clk__0"} or not rising:
        return False
    todo = [n for n in bodies if re.search(r"(^|_)ico(_|$)", n)]
    if not todo and "ico" in bodies.get("eval", "ico"):  # (a model without input logic has none)
        return False
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        body = bodies.get(name)
        if body is None:  # a callee not found: cannot tell
            return False
        if _written(body) & outputs:
            return False
        todo += re.findall(r"\bVafu_top___024root___(\w+)\(", body)
    return True


def _make_list(mk: Path, var: str) -> list[str]:
    """The names a Verilator classes makefile adds to `var` (``VAR += \\`` then one a line)."""
    names, on = [], False
    for line in mk.read_text().splitlines():
        if line.startswith(var + " +="):
            on = True
        elif on and line.startswith("  ") and line.strip() != "\\":
            names.append(line.strip().rstrip("\\").strip())
        else:
            on = False
    return names


def _cxx_base() -> list[str]:
    """The compiler line of Verilator's makefiles (verilated.mk) for a model without
    tracing, coverage, SystemC or timing."""
    vroot = verilator_root()
    return ["g++", "-fPIC", "-march=native", f"-I{vroot / 'include'}", f"-I{vroot / 'include' / 'vltstd'}",
            "-DVERILATOR=1", "-DVM_COVERAGE=0", "-DVM_SC=0", "-DVM_TIMING=0", "-DVM_TRACE=0",
            "-DVM_TRACE_FST=0", "-DVM_TRACE_VCD=0", "-DVM_TRACE_SAIF=0"]


def _libverilated(names: list[str]) -> Path:
    """Verilator's run-time library (verilated.cpp and its companions named by the
    model's makefile), compiled once per Verilator, compiler flags and CPU: it is the
    same for every card and was a third of a card's compile time."""
    base = _cxx_base()
    out = cache_dir("verilated") / content_hash(str(verilator_root()), repr(base), repr(names),
                                                _OPT_SLOW, platform.processor(), _cpu_model())
    lib = out / "libverilated.a"

    def build() -> None:
        out.mkdir(parents=True, exist_ok=True)
        objs = _parallel([[*base, _OPT_SLOW, "-c", str(verilator_root() / "include" / f"{n}.cpp"),
                           "-o", str(out / f"{n}.o")] for n in names], out, "compiling Verilator's library")
        _run(["ar", "rcs", str(out / "tmp.a"), *map(str, objs)], out, "archiving Verilator's library")
        (out / "tmp.a").rename(lib)

    return _build_once(lib, build)


def _parallel(cmds: list[list[str]], cwd: Path, what: str, jobs: int = 2) -> list[Path]:
    """Runs compiler commands `jobs` at a time; returns their outputs (``-o``)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(lambda c: _run(c, cwd, what), cmds))
    return [Path(c[c.index("-o") + 1]) for c in cmds]


def _compile_card(obj: Path, cpp: list[Path], defines: list[str], pins_dir: Path, out: Path,
                  jobs: int, train: tuple[Path, Path, list[str]] | None = None) -> None:
    """Compiles the Verilated model in a few translation units and links the card library.

    The per-cycle code (the model's fast classes, the card ABI wrapper `cpp[0]` and the
    fast core's data side) is compiled at `_OPT_FAST` in one unit, so the compiler can
    inline the fast core model's DPI calls into the model, or in `jobs` units of about
    equal size where the model is large (RTL cores); the once-only code is one more unit
    at `_OPT_SLOW`. A few units parse Verilator's headers a few times, where a build per
    file with precompiled headers parsed them five times for a fast card; Verilator's
    run-time library comes compiled from the cache.

    With `train` (the trainer's source, the CSR header's folder and its arguments after
    the record count: in and out record words, Regs), the per-cycle units are compiled
    twice: instrumented, then guided by the profile of a training run, records streamed
    through the card by `train_card.cpp` (_train). A failed training run leaves the
    card as it would be without (a note on stderr)."""
    mk = obj / "Vafu_top_classes.mk"
    fast = [obj / f"{n}.cpp" for n in _make_list(mk, "VM_CLASSES_FAST") + _make_list(mk, "VM_SUPPORT_FAST")]
    slow = [obj / f"{n}.cpp" for n in _make_list(mk, "VM_CLASSES_SLOW") + _make_list(mk, "VM_SUPPORT_SLOW")]
    runtime_lib = _libverilated(_make_list(mk, "VM_GLOBAL_FAST") + _make_list(mk, "VM_GLOBAL_SLOW"))
    size = sum(f.stat().st_size for f in fast)
    bins: list[list[Path]] = [[] for _ in range(max(1, jobs) if size > _UNIT_BYTES else 1)]
    for f in sorted(fast, key=lambda f: -f.stat().st_size):  # largest first, into the lightest
        min(bins, key=lambda b: sum(x.stat().st_size for x in b)).append(f)
    bins[0] += cpp
    base = [*_cxx_base(), f"-I{obj}", f"-I{pins_dir}", "-std=c++17", *defines,
            "-include", str(obj / "spg_card_info.h")]
    units = [*((f"card_fast{i}", b, _OPT_FAST.split()) for i, b in enumerate(bins)),
             ("card_slow", slow, [_OPT_SLOW])]
    for name, files, _ in units:
        (obj / f"{name}.cpp").write_text("".join(f'#include "{f}"\n' for f in files))

    def compile_all(profile: list[str]) -> list[Path]:
        cmds = [[*base, *opt, *(profile if name != "card_slow" else []), "-c", str(obj / f"{name}.cpp"),
                 "-o", str(obj / f"{name}.o")] for name, _, opt in units]
        return _parallel(cmds, obj, "compiling the simulated card", jobs)

    kernel = [obj / "spg_fast_kernel.o"] if (obj / "spg_fast_kernel.o").is_file() else []

    def link(objs: list[Path], lib: Path, extra: list[str]) -> None:
        _run(["g++", "-shared", "-fPIC", *map(str, objs + kernel), str(runtime_lib), "-o", str(lib),
              "-pthread", *extra], obj, "linking the simulated card")

    profile: list[str] = []
    if train is not None:
        pgo = obj / "pgo"
        try:
            link(compile_all(["-fprofile-generate", f"-fprofile-dir={pgo}"]), obj / "libtrain.so",
                 ["-fprofile-generate"])
            _train(obj / "libtrain.so", *train, pins_dir)
            # (the profile is found by the object's name: the same -o as instrumented)
            profile = ["-fprofile-use", f"-fprofile-dir={pgo}", "-fprofile-partial-training",
                       "-Wno-missing-profile"]
        except SpgenError as e:
            print(f"spgen: note: the card's training run failed, built without a profile:\n{e}",
                  file=sys.stderr)
    try:
        objs = compile_all(profile)
    except SpgenError as e:  # (a profile the compiler refuses: build as without one)
        if not profile:
            raise
        print(f"spgen: note: compiling with the card's profile failed, built without it:\n{e}",
              file=sys.stderr)
        objs = compile_all([])
    link(objs, out, [])


# Guided by the profile, the 12-core fast LBM card ran 1.14x (card library alone, paired
# runs) to 1.17x (through the runtime) the cycles per CPU-second, the same cycles and
# bytes (docs/fast_core.md); the training run streams this many records, twice.
_TRAIN_RECORDS = 3000


def _train(lib: Path, source: Path, csr_dir: Path, args: list[str], pins_dir: Path) -> None:
    """Runs the training program (`source`, compiled once per source and CPU into the
    cache) on the instrumented card library `lib`."""
    exe_dir = cache_dir("train") / content_hash(source.read_bytes(), (pins_dir / "afu_pins.h").read_bytes(),
                                                 (csr_dir / "afushell_csr.h").read_bytes(), _cpu_model())
    exe = exe_dir / "train_card"
    if not exe.is_file():
        with _locked(exe_dir.with_suffix(".lock")):
            if not exe.is_file():
                exe_dir.mkdir(parents=True, exist_ok=True)
                _run(["g++", "-O2", "-std=c++17", f"-I{pins_dir}", f"-I{csr_dir}", str(source),
                      "-o", str(exe_dir / "train_card.tmp"), "-ldl"], exe_dir, "compiling the card's trainer")
                (exe_dir / "train_card.tmp").rename(exe)
    try:
        _run([str(exe), str(lib), str(_TRAIN_RECORDS), *args], lib.parent, "the card's training run")
    except OSError as e:
        raise SpgenError(f"the card's training run: {e}") from None


def link_bits(params: Mapping[str, object]) -> int:
    """Bits per cycle of one serial-link port of an afu_rdma_top built with `params` (its
    RDMA_LANES words a beat, shell/rdma/afu/afu_rdma_top.v)."""
    return 32 * int(params.get("RDMA_LANES", 16))  # type: ignore[call-overload]


def loopback_card() -> Path:
    """The no-core card (TX streams straight into RX), built on first use."""
    return build_card(shell_sources(), params={"N_CORES": 0},
                      info={"target": "loopback", "n_cores": 0})
