"""Verilator simulation of generated cores: one cached build can hold many cores."""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from spgen._diagnostics import SpgenError
from spgen._tools import cache_dir, content_hash, verilator_bin, verilator_env

from .._stream_iface import StreamInterface, port_map
from ._core import VerilogCore

__all__ = ["Bundle", "build", "lint", "simulate"]

_TB = Path(__file__).with_name("tb.cpp")
_MIN_WORDS = 3  # wrapper buses are always "wide" in Verilator (VlWide), one C++ code path
# C++ optimisation of the model: -O1 builds several times faster than -O3 and the
# simulated rate is still millions of cycles per second for test-sized cores.
_OPT = os.environ.get("SPGEN_SIM_OPT", "-O1")


@dataclass
class Bundle:
    """A built simulator binary holding ``names`` (cores selected by index)."""

    binary: Path
    names: list[str]
    trace: bool

    def index(self, core: VerilogCore) -> int:
        try:
            return self.names.index(core.name)
        except ValueError:
            raise SpgenError(f"core {core.name} is not part of this simulation build") from None


def _core_conns(prefix: str, words: int, p: str, on: str) -> list[str]:
    """Stream ``prefix`` of core ``p``: it reads the harness's inputs while selected
    (``on``); its outputs have nets of their own (``<p>_<port>``), multiplexed after."""
    if prefix.startswith("s"):
        return port_map(prefix, {"valid": f"{prefix}_valid && {on}", "ready": f"{p}_{prefix}_ready",
                                 "data": f"{prefix}_data[{32 * words - 1}:0]",
                                 "last": f"{prefix}_last"})
    return port_map(prefix, {"valid": f"{p}_{prefix}_valid", "ready": f"{prefix}_ready && {on}",
                             "data": f"{p}_{prefix}_data", "last": f"{p}_{prefix}_last"})


def _wrapper(cores: Sequence[VerilogCore]) -> str:
    ifaces = [StreamInterface.from_report(c.report) for c in cores]

    def widest(prefix: str) -> int:
        return max(_MIN_WORDS, *(f.words(prefix) for f in ifaces))

    iw, biw, ow, bow = (widest(prefix) for prefix in ("s", "s_brch", "m", "m_brch"))
    rw = max(_MIN_WORDS, *(len(f.regs) for f in ifaces))
    L = ["/* verilator lint_off UNUSEDSIGNAL */", "/* verilator lint_off WIDTHEXPAND */",
         "module spgtb_top (",
         "    input wire clk, input wire rst, input wire [7:0] sel,",
         f"    input wire s_valid, output wire s_ready, input wire [{32 * iw - 1}:0] s_data,",
         "    input wire s_last,",
         (f"    input wire s_brch_valid, output wire s_brch_ready, "
          f"input wire [{32 * biw - 1}:0] s_brch_data, input wire s_brch_last,"),
         f"    output wire m_valid, input wire m_ready, output wire [{32 * ow - 1}:0] m_data,",
         "    output wire m_last,",
         (f"    output wire m_brch_valid, input wire m_brch_ready, "
          f"output wire [{32 * bow - 1}:0] m_brch_data, output wire m_brch_last,"),
         f"    input wire [{32 * rw - 1}:0] regs, output wire tick", ");"]
    mux: dict[str, list[str]] = {k: [] for k in ("s_ready", "s_brch_ready", "m_valid", "m_data",
                                                  "m_last", "m_brch_valid", "m_brch_data",
                                                  "m_brch_last", "tick")}
    for k, (c, f) in enumerate(zip(cores, ifaces)):
        p = f"c{k}"
        hbi, hbo = bool(f.brch_in_words), bool(f.brch_out_words)
        L.append(f"    wire {p}_s_ready, {p}_m_valid, {p}_m_last;")
        L.append(f"    wire [{32 * f.out_words - 1}:0] {p}_m_data;")
        if hbi:
            L.append(f"    wire {p}_s_brch_ready;")
        if hbo:
            L.append(f"    wire {p}_m_brch_valid, {p}_m_brch_last;")
            L.append(f"    wire [{32 * f.brch_out_words - 1}:0] {p}_m_brch_data;")
        on = f"(sel == 8'd{k})"
        conns = [".clk(clk)", ".rst(rst)"]
        for prefix in ("s", "m", "s_brch", "m_brch"):
            if f.words(prefix):
                conns += _core_conns(prefix, f.words(prefix), p, on)
        conns += f.reg_map(lambda i: f"regs[{32 * i} +: 32]")
        L.append(f"    {c.name} u_{p} ({', '.join(conns)});")
        mux["s_ready"].append(f"{on} ? {p}_s_ready")
        mux["s_brch_ready"].append(f"{on} ? {p}_s_brch_ready" if hbi else f"{on} ? 1'b1")
        mux["m_valid"].append(f"{on} ? {p}_m_valid")
        mux["m_last"].append(f"{on} ? {p}_m_last")
        mux["m_data"].append(f"{on} ? {32 * ow}'({p}_m_data)")
        mux["m_brch_valid"].append(f"{on} ? {p}_m_brch_valid" if hbo else f"{on} ? 1'b0")
        mux["m_brch_last"].append(f"{on} ? {p}_m_brch_last" if hbo else f"{on} ? 1'b0")
        mux["m_brch_data"].append(f"{on} ? {32 * bow}'({p}_m_brch_data)" if hbo
                                  else f"{on} ? {32 * bow}'(0)")
        mux["tick"].append(f"{on} ? u_{p}.ce")
    for sig, arms in mux.items():
        zero = "'0" if "data" in sig else "1'b0"
        L.append(f"    assign {sig} = " + " : ".join(arms) + f" : {zero};")
    L += ["endmodule", "/* verilator lint_on WIDTHEXPAND */", "/* verilator lint_on UNUSEDSIGNAL */"]
    return "\n".join(L) + "\n"


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    try:
        r = subprocess.run(cmd, cwd=cwd, env=verilator_env(), capture_output=True, text=True, check=False)
    except OSError as e:
        raise SpgenError(f"{what}: cannot run {cmd[0]} ({e})") from None
    if r.returncode != 0:
        tail = (r.stdout + r.stderr)[-4000:]
        raise SpgenError(f"{what} failed (exit {r.returncode}):\n{tail}")


def _need_lz4() -> None:
    """Verilator's FST writer compiles against liblz4; say so instead of a compiler error."""
    r = subprocess.run(["c++", "-E", "-x", "c++", "-"], input="#include <lz4.h>\n",
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SpgenError("FST tracing needs the LZ4 development headers "
                         "(Debian: apt-get install liblz4-dev)")


def build(cores: Sequence[VerilogCore], *, trace: bool = False) -> Bundle:
    """Verilate ``cores`` into one simulator (cached by content hash; safe to call concurrently)."""
    if not cores:
        raise SpgenError("nothing to simulate")
    if len({c.name for c in cores}) != len(cores):
        raise SpgenError("cores in one simulation build need distinct module names")
    if len(cores) > 255:
        raise SpgenError("at most 255 cores per simulation build")
    wrapper = _wrapper(cores)
    tb = _TB.read_text()
    key = content_hash(wrapper, tb, _OPT, str(trace), *[c.text for c in cores],
                       str(verilator_bin()))
    root = cache_dir("verilator")
    final = root / key
    binary = final / "Vspgtb_top"
    names = [c.name for c in cores]
    if binary.exists():
        return _register(cores, key, trace, binary)
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if binary.exists():
            return _register(cores, key, trace, binary)
        work = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=root))
        try:
            srcs = []
            for c in cores:
                p = work / f"{c.name}.v"
                p.write_text(c.text)
                srcs.append(p.name)
            (work / "spgtb_top.v").write_text(wrapper)
            shutil.copy(_TB, work / "tb.cpp")
            cmd = [str(verilator_bin()), "--cc", "--exe",
                   "--top-module", "spgtb_top", "-Wno-fatal", "-Wno-lint", "-Wno-style",
                   # every register starts random (tb.cpp seeds it): no result may
                   # depend on power-up state, which the hardware does not define
                   "--x-assign", "0", "--x-initial", "unique", "-O3",
                   "-o", "Vspgtb_top", "--Mdir", "obj"]
            if trace:
                _need_lz4()
                cmd += ["--trace-fst", "-CFLAGS", "-DSPG_TRACE", "-LDFLAGS", "-llz4"]
            cmd += ["spgtb_top.v", *srcs, "tb.cpp"]
            _run(cmd, work, "Verilator")
            runtime = root / f"runtime-{content_hash(str(verilator_bin()), _OPT, str(trace))}"
            objs = work / "obj"
            if runtime.is_dir():  # Verilator's run-time library, compiled once per setup
                for o in runtime.glob("verilated*.o"):
                    shutil.copyfile(o, objs / o.name)  # fresh mtime: make keeps it
            _run(["make", "-C", "obj", "-f", "Vspgtb_top.mk", "-j", "2",
                  f"OPT_FAST={_OPT}", f"OPT_SLOW={_OPT}", f"OPT_GLOBAL={_OPT}"], work, "C++ build of the Verilated model")
            if not runtime.is_dir():
                tmp = Path(tempfile.mkdtemp(prefix="runtime.", dir=root))
                for o in objs.glob("verilated*.o"):
                    shutil.copyfile(o, tmp / o.name)
                try:
                    os.replace(tmp, runtime)
                except OSError:  # another build got there first
                    shutil.rmtree(tmp, ignore_errors=True)
            out = work / "out"
            out.mkdir()
            shutil.copy(work / "obj" / "Vspgtb_top", out / "Vspgtb_top")
            (out / "names.json").write_text(json.dumps(names))
            os.replace(out, final)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return _register(cores, key, trace, binary)


def _register(cores: Sequence[VerilogCore], key: str, trace: bool, binary: Path) -> Bundle:
    """Index the build under each core it holds, so a later single-core run reuses it."""
    index = cache_dir("verilator") / "index"
    index.mkdir(exist_ok=True)
    for c in cores:
        (index / f"{_index_key(c)}-{'t' if trace else 'n'}").write_text(key)
    return Bundle(binary, [c.name for c in cores], trace)


def _index_key(core: VerilogCore) -> str:
    """The core's text and everything else a build of it depends on (harness, options)."""
    return content_hash(core.text, _TB.read_text(), _OPT, str(verilator_bin()))


def _cached_bundle(core: VerilogCore, trace: bool) -> Bundle | None:
    """A previously built simulator that already holds exactly this core, if any."""
    root = cache_dir("verilator")
    h = _index_key(core)
    for flag in ("t",) if trace else ("n", "t"):
        try:
            key = (root / "index" / f"{h}-{flag}").read_text().strip()
            names = json.loads((root / key / "names.json").read_text())
        except (OSError, ValueError):
            continue
        binary = root / key / "Vspgtb_top"
        if binary.exists() and core.name in names:
            return Bundle(binary, names, flag == "t")
    return None


def lint(core: VerilogCore) -> str:
    """``verilator --lint-only -Wall`` on the core's file; returns the messages (empty = clean)."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"{core.name}.v"
        p.write_text(core.text)
        r = subprocess.run([str(verilator_bin()), "--lint-only", "-Wall", "--top-module",
                            core.name, p.name], cwd=d, env=verilator_env(),
                           capture_output=True, text=True, check=False)
        return (r.stdout + r.stderr).strip()


def simulate(core: VerilogCore, n: int, inputs: Mapping[str, np.ndarray], regs: Mapping[str, int],
             *, stall_seed: int | None = None, trace: str | None = None,
             bundle: Bundle | None = None, repeat: int = 1, prelude: Sequence[int] = ()
             ) -> tuple[dict[str, np.ndarray], dict]:
    """Stream ``n`` elements through the core; returns ({output port: uint32}, stats).

    ``bundle`` reuses a simulator built for several cores; ``repeat`` sends the same
    stream that many times back to back (the outputs of the last one come back; each
    repetition must give the same result, or an error says so). ``prelude`` lists
    lengths of shorter streams (prefixes of the input) sent first; their outputs
    come back in ``stats["prelude_outputs"]``.
    """
    iface = core.iface
    out_names = iface["out"]["main"] + iface["out"]["brch"]
    if n == 0:
        return ({p: np.zeros(0, np.uint32) for p in out_names},
                {"cycles": 0, "elements": 0, "stall_cycles": 0, "wall_s": 0.0,
                 "elements_per_s": 0.0})
    if bundle is None or (trace and not bundle.trace):
        bundle = _cached_bundle(core, bool(trace)) or build([core], trace=bool(trace))
    sel = bundle.index(core)
    iw, biw = len(iface["in"]["main"]), len(iface["in"]["brch"])
    ow, bow = len(iface["out"]["main"]), len(iface["out"]["brch"])

    def cols(names):
        if not names:
            return np.zeros((n, 0), np.uint32)
        return np.stack([np.asarray(inputs[p], dtype=np.uint32)[:n] for p in names], axis=1)

    for p in iface["in"]["main"] + iface["in"]["brch"]:
        if p not in inputs or len(inputs[p]) != n:
            raise SpgenError(f"input field {p!r}: expected {n} elements")
    header = np.array([sel, n, iw, biw, ow, bow, len(iface["regs"]),
                       0 if stall_seed is None else 1, 0 if stall_seed is None else stall_seed,
                       iface.get("settle", 0), repeat, 100_000 + 4 * core.report["latency_cycles"],
                       len(prelude), *prelude], dtype=np.uint64)
    if any(not 0 < int(k) <= n for k in prelude):
        raise SpgenError(f"prelude stream lengths must be 1..{n}")
    reg_arr = np.array([regs[r] & 0xFFFFFFFF for r in iface["regs"]], dtype=np.uint32)
    with tempfile.TemporaryDirectory(prefix="spgen-sim.") as d:
        job, res = Path(d) / "job.bin", Path(d) / "out.bin"
        with open(job, "wb") as f:
            f.write(header.tobytes())
            f.write(reg_arr.tobytes())
            f.write(np.ascontiguousarray(cols(iface["in"]["main"])).tobytes())
            f.write(np.ascontiguousarray(cols(iface["in"]["brch"])).tobytes())
        cmd = [str(bundle.binary), str(job), str(res)]
        if trace:
            cmd.append(str(Path(trace).resolve()))
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if r.returncode != 0:
            raise SpgenError(f"simulation of {core.name} failed: {(r.stdout + r.stderr)[-2000:]}")
        raw = res.read_bytes()
    head = np.frombuffer(raw[:56], dtype=np.uint64)
    hung, bad_last, cycles, ticks, wall_ns, _, cpu_ns = (int(x) for x in head)
    if hung == 1:
        raise SpgenError(f"simulation of {core.name}: the core stopped making progress")
    if hung == 3:
        raise SpgenError(f"simulation of {core.name}: the core emitted more than {n} elements")
    if bad_last:
        raise SpgenError(f"simulation of {core.name}: m_last was wrong on {bad_last} elements")
    body = np.frombuffer(raw[56:], dtype=np.uint32)
    pre = sum(int(k) for k in prelude)
    reps = repeat
    total = pre + reps * n
    main_all, brch_all = body[:total * ow], body[total * ow:]
    main = main_all[pre * ow:].reshape(reps, n, ow)
    brch = brch_all[pre * bow:].reshape(reps, n, bow)
    prelude_outputs = []
    at = 0
    for k in prelude:
        k = int(k)
        m = main_all[at * ow:(at + k) * ow].reshape(k, ow)
        b = brch_all[at * bow:(at + k) * bow].reshape(k, bow)
        d = {p: m[:, i].copy() for i, p in enumerate(iface["out"]["main"])}
        d.update({p: b[:, i].copy() for i, p in enumerate(iface["out"]["brch"])})
        prelude_outputs.append(d)
        at += k
    for k in range(1, reps):
        if not (np.array_equal(main[k], main[0]) and np.array_equal(brch[k], brch[0])):
            raise SpgenError(f"simulation of {core.name}: stream {k + 1} of {reps} differs "
                             "from the first (state left over between streams)")
    outs = {p: main[-1][:, i].copy() for i, p in enumerate(iface["out"]["main"])}
    outs.update({p: brch[-1][:, i].copy() for i, p in enumerate(iface["out"]["brch"])})
    wall, cpu = wall_ns / 1e9, cpu_ns / 1e9
    elements = total
    stats = {"cycles": cycles, "elements": elements, "stall_cycles": cycles - ticks,
             "wall_s": wall, "elements_per_s": elements / wall if wall > 0 else float("inf"),
             "cpu_s": cpu, "elements_per_cpu_s": elements / cpu if cpu > 0 else float("inf"),
             "latency_cycles": core.report["latency_cycles"], "prelude_outputs": prelude_outputs}
    return outs, stats
