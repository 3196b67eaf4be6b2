"""spgen.runtime.rdma -- card-to-card RDMA from Python: cluster files, routing tables and put/get over the simulated network."""
from __future__ import annotations

import importlib.util
import itertools
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

from .._diagnostics import SpgenError
from .._paths import data_root, runtime_src_dir, shell_dir
from .._tools import cache_dir, content_hash

__all__ = ["RTL_MEM_BYTES", "Cluster", "ClusterCard", "PipelineRun", "RDMAError", "RTLCluster", "RTLTransfer",
           "Reduction", "Transfer", "build_mpi_rtl_tool", "build_mpi_stream_tool", "build_mpi_tool", "build_rtl_cluster", "cluster", "load_rdma_extension",
           "resolve", "rtl_includes", "rtl_sources"]

_SOURCES = ("rdma_sim.hpp", "rdma_sim.cpp", "cluster_desc.hpp", "cluster_desc.cpp", "cluster_file.hpp",
            "cluster_file.cpp", "ring_route.hpp", "bindings.cpp", "include/afushell/rdma_packet.h")
_ext: ModuleType | None = None
ERRORS = {1: "NO_ROUTE", 2: "REMOTE_RANGE", 3: "TIMEOUT", 4: "LOCAL_RANGE", 5: "ALIGN", 6: "BAD_CARD"}


class RDMAError(SpgenError):
    """A put/get that failed: `code` is the engine's status (RDMA_STATUS.CODE: 1 NO_ROUTE .. 6 BAD_CARD;
    the C API returns it as the afu_result AFU_ERR_RDMA_BASE + code), 100 still in flight, 101 bad input."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"RDMA {ERRORS.get(code, code)}: {message}")
        self.code = code
        self.name = ERRORS.get(code, str(code))


def _src_dir() -> Path:
    env = os.environ.get("SPGEN_RDMA_SRC")
    if env:
        return Path(env)
    return runtime_src_dir() / "rdma"


def rtl_includes() -> list[Path]:
    """The headers the RDMA RTL includes: the generated ones (packet format, CSR field offsets),
    the link ports' parameters, its shared port lists (rdma_node's, the memory adapters' and
    their burst writers', the engines' senders' and receivers', the receivers' stream table's,
    the stream endpoints' and their record converters'), the converters' record register, the
    senders' view of a get request and the engines' control-packet words: part of the key of
    every cached build of it."""
    shell = shell_dir()
    return [shell / name for name in (
        "rdma_packet.vh", "afushell_csr.vh", "rdma_link_params.vh", "rdma_node_ports.vh",
        "rdma_avm_ports.vh", "rdma_adapter_ports.vh", "rdma_wr_burst_ports.vh", "rdma_tx_cmd_ports.vh",
        "rdma_rx_reply_ports.vh", "rdma_rx_stream_ports.vh", "rdma_stream_cfg_ports.vh",
        "rdma_stream_rec_ports.vh", "rdma_stream_rec.vh", "rdma_rq_fields.vh", "rdma_ctrl_words.vh")]


def rtl_sources() -> list[Path]:
    """The RDMA block's Verilog outside the AFU: shell/rdma/*.v and the modules it
    instantiates (shell_fifo; the operator library's f32 adder for reductions), for
    stand-alone builds of rdma_node and its parts."""
    from spgen.oplib import rtl_source

    shell = shell_dir()
    return [*sorted((shell / "rdma").glob("*.v")), shell / "shell_fifo.v", rtl_source("fadd")]


def load_rdma_extension() -> ModuleType:
    """The pybind11 module over the model, compiled on first use and cached by content."""
    global _ext
    if _ext is not None:
        return _ext
    try:
        import pybind11  # type: ignore[import-not-found]
    except ImportError as e:
        raise SpgenError("the RDMA model needs pybind11: pip install pybind11") from e
    src = _src_dir()
    files = [src / f for f in _SOURCES]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise SpgenError(f"RDMA model sources missing: {', '.join(missing)}")
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    out = cache_dir("rdma") / content_hash(sys.version, *[f.read_bytes() for f in files])
    so = out / f"_spgen_rdma{suffix}"
    if not so.is_file():
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / f"tmp{os.getpid()}{suffix}"
        cmd = [os.environ.get("CXX", "g++"), "-std=c++17", "-O2", "-shared", "-fPIC", "-Wall",
               f"-I{pybind11.get_include()}", f"-I{sysconfig.get_paths()['include']}", f"-I{src}",
               f"-I{src / 'include'}", *[str(src / f) for f in _SOURCES if f.endswith(".cpp")], "-o", str(tmp)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SpgenError("building the RDMA model failed:\n" + (proc.stdout + proc.stderr)[-4000:])
        tmp.replace(so)
    spec = importlib.util.spec_from_file_location("_spgen_rdma", so)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _ext = mod
    return _ext


def _mpicxx() -> str:
    import shutil

    mpicxx = shutil.which("mpicxx")
    if not mpicxx or not shutil.which("mpirun"):
        raise SpgenError("the multi-process RDMA simulation needs OpenMPI: "
                         "apt-get install libopenmpi-dev openmpi-bin")
    return mpicxx


def build_mpi_program(name: str, src: Path, headers: tuple[Path, ...] = ()) -> Path:
    """An MPI program of the runtime (`src`, including `headers`) built with mpicxx and linked
    against the runtime library (built first); cached in the runtime's build folder under a
    name that carries the content of its sources, so an edited source builds anew."""
    from ._build import build_runtime, repo_root

    mpicxx = _mpicxx()
    rt = build_runtime()
    exe = rt / f"{name}-{content_hash(*[p.read_bytes() for p in (src, *headers)])[:16]}"
    if not exe.is_file():
        root = repo_root()
        tmp = exe.with_name(f"{exe.name}.{os.getpid()}")
        incs = [root / "runtime" / "sim", root / "runtime" / "rdma", root / "runtime" / "rdma" / "include",
                root / "runtime" / "include", root / "shell" / "include"]
        cmd = [mpicxx, "-std=c++17", "-O2", "-Wall", "-Wextra", "-DOMPI_SKIP_MPICXX", *[f"-I{d}" for d in incs],
               str(src), f"-L{rt}", "-lafushell", "-lafushell-cluster", "-lopae-c-sim", f"-Wl,-rpath,{rt}", "-o",
               str(tmp)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SpgenError(f"building {name} failed:\n" + (proc.stdout + proc.stderr)[-4000:])
        tmp.replace(exe)
    return exe


def build_mpi_rtl_tool() -> Path:
    """`rdma-mpi-rtl` (runtime/rdma/rdma_mpi_rtl.cpp): RTL card clusters over MPI ranks."""
    from ._build import repo_root

    rdma_dir = repo_root() / "runtime" / "rdma"
    return build_mpi_program("rdma-mpi-rtl", rdma_dir / "rdma_mpi_rtl.cpp",
                             (rdma_dir / "rtl_mpi_window.hpp", rdma_dir.parent / "sim" / "cluster_reduce.hpp"))


def build_mpi_stream_tool() -> Path:
    """`rdma-mpi-stream` (runtime/rdma/rdma_mpi_stream.cpp): streams through cascades and puts
    between RTL cards of a cluster split over MPI ranks."""
    from ._build import repo_root

    rdma_dir = repo_root() / "runtime" / "rdma"
    return build_mpi_program("rdma-mpi-stream", rdma_dir / "rdma_mpi_stream.cpp", (rdma_dir / "rtl_mpi_window.hpp",))


def build_mpi_tool() -> Path:
    """The multi-process simulator `rdma-mpi` (runtime/rdma/rdma_mpi.cpp), built with mpicxx and cached."""
    mpicxx = _mpicxx()
    src = _src_dir()
    files = [src / f for f in ("rdma_sim.hpp", "rdma_sim.cpp", "cluster_desc.hpp", "cluster_desc.cpp", "rdma_mpi.cpp",
                               "include/afushell/rdma_packet.h")]
    out = cache_dir("rdma") / ("mpi-" + content_hash(*[f.read_bytes() for f in files]))
    exe = out / "rdma-mpi"
    if not exe.is_file():
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / f"rdma-mpi.{os.getpid()}"
        cmd = [mpicxx, "-std=c++17", "-O2", f"-I{src}", *[str(f) for f in files if f.suffix == ".cpp"], "-o", str(tmp)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SpgenError("building rdma-mpi failed:\n" + (proc.stdout + proc.stderr)[-4000:])
        tmp.replace(exe)
    return exe


# ---- cluster description --------------------------------------------------------------
def resolve(spec: dict | str | Path) -> str:
    """The text description the simulators read (docs/rdma.md), from a cluster spec or JSON
    file. The file is read by the C++ reader the C API uses (runtime/rdma/cluster_file.cpp),
    so Python and C accept and refuse exactly the same files."""
    base = Path.cwd()
    if isinstance(spec, dict):
        text = json.dumps(spec)
    else:
        path = Path(spec)
        base = path.resolve().parent
        try:
            text = path.read_text()
        except OSError as e:
            raise SpgenError(f"cannot read cluster file {path}: {e.strerror}") from e
    try:
        return load_rdma_extension().resolve_cluster_file(text, str(base))
    except RuntimeError as e:
        raise SpgenError(str(e)) from None


# ---- Python API --------------------------------------------------------------------
class Transfer:
    """An asynchronous put/get: wait() simulates until it ends and raises RDMAError on failure."""

    def __init__(self, cl: Cluster, handle: int) -> None:
        self._cl, self.handle = cl, handle

    def status(self) -> tuple[int, int, int, int]:
        """(state 0 pending / 1 done / 2 error, error code, issue cycle, completion cycle)."""
        return self._cl.sim.status(self.handle)

    def done(self) -> bool:
        return self.status()[0] != 0

    def wait(self, max_cycles: int | None = None) -> int:
        """Cycles from issue to completion; RDMAError on failure or when max_cycles run out."""
        sim = self._cl.sim
        sim.wait(self.handle, max_cycles if max_cycles is not None else sim.op_timeout + 1024)
        state, code, issued, done = self.status()
        if state == 0:
            raise RDMAError(100, "still in flight after the wait")
        if state == 2:
            msg = self._cl.ext.error_text(code)
            if code == 3 and self._cl.rtl:  # where the traffic is stuck, not a bare timeout
                msg += "\n" + self._cl.dump(self)
            raise RDMAError(code, msg)
        return done - issued

    @property
    def card_cycles(self) -> int | None:
        """RTL cards: cycles on the initiating card itself, from the RDMA_CMD write's arrival
        to the completion interrupt's MSI (no host in the loop); None on the model."""
        return self._cl.sim.card_cycles(self.handle) if self._cl.rtl else None


class ClusterCard:
    """One card of a cluster: its FPGA memory and put/get to other cards."""

    def __init__(self, cl: Cluster, card: int) -> None:
        self._cl, self.id = cl, card

    def write(self, addr: int, data: bytes | Any) -> None:
        b = bytes(data) if not hasattr(data, "tobytes") else data.tobytes()
        self._cl._range(self.id, addr, len(b))
        self._cl.sim.write(self.id, addr, b)

    def read(self, addr: int, nbytes: int) -> bytes:
        self._cl._range(self.id, addr, nbytes)
        return self._cl.sim.read(self.id, addr, nbytes)

    def _started(self, handle: int) -> Transfer:
        """The transfer of an operation just issued; one refused at once raises here."""
        t = Transfer(self._cl, handle)
        self._cl._raise_now(t)
        return t

    def _issue(self, call: str, *args: int) -> Transfer:
        try:
            handle = getattr(self._cl.sim, call)(self.id, *args)
        except self._cl.ext.ModelError as e:  # the model refuses an initiator outside the cluster
            raise RDMAError(6, f"{self._cl.ext.error_text(6)} ({e})") from None
        return self._started(handle)

    def put_async(self, dst: int, local: int, remote: int, nbytes: int) -> Transfer:
        return self._issue("put", dst, local, remote, nbytes)

    def get_async(self, src: int, local: int, remote: int, nbytes: int) -> Transfer:
        return self._issue("get", src, local, remote, nbytes)

    def put_strided_async(self, dst: int, local: int, remote: int, block: int, count: int,
                          local_stride: int, remote_stride: int) -> Transfer:
        """Block-stride put (halo exchange): `count` blocks of `block` bytes, a stride on each side."""
        return self._issue("put_strided", dst, local, remote, block, count, local_stride, remote_stride)

    def put_strided(self, dst: int, local: int, remote: int, block: int, count: int,
                    local_stride: int, remote_stride: int) -> int:
        """Blocking block-stride put; returns the cycles it took."""
        return self.put_strided_async(dst, local, remote, block, count, local_stride, remote_stride).wait()

    def get_strided_async(self, src: int, local: int, remote: int, block: int, count: int,
                          local_stride: int, remote_stride: int) -> Transfer:
        """Block-stride get: `count` blocks of `block` bytes from card src, a stride on each side."""
        return self._issue("get_strided", src, local, remote, block, count, local_stride, remote_stride)

    def get_strided(self, src: int, local: int, remote: int, block: int, count: int,
                    local_stride: int, remote_stride: int) -> int:
        """Blocking block-stride get; returns the cycles it took."""
        return self.get_strided_async(src, local, remote, block, count, local_stride, remote_stride).wait()

    def put(self, dst: int, local: int, remote: int, nbytes: int) -> int:
        """Blocking put: local memory -> card dst; returns the cycles it took."""
        return self.put_async(dst, local, remote, nbytes).wait()

    def get(self, src: int, local: int, remote: int, nbytes: int) -> int:
        """Blocking get: card src's memory -> local memory; returns the cycles it took."""
        return self.get_async(src, local, remote, nbytes).wait()

    def events(self) -> list[tuple[int, int, int, int, int]]:
        """Target-side completions (kind, peer card, addr, bytes, cycle)."""
        return self._cl.sim.events(self.id)

    def read_csr(self, name: str, index: int = 0) -> int:
        """RTL cards: a CSR of this card by its name in shell/csr_map.json (e.g.
        "RDMA_LINK_PKTS", index = the port), as the host reads it over MMIO."""
        return int(self._cl.sim.csr_read(self.id, self._csr_addr(name, index)))

    def write_csr(self, name: str, value: int, index: int = 0) -> None:
        """RTL cards: writes a CSR of this card (e.g. "RDMA_ROUTE", index = the card it routes to)."""
        self._cl.sim.csr_write(self.id, self._csr_addr(name, index), int(value))

    def _csr_addr(self, name: str, index: int) -> int:
        if not self._cl.rtl:
            raise SpgenError("CSRs exist on RTL cards only; this cluster is the C++ model")
        from ..shellgen import load_csr_map

        try:
            r = load_csr_map().reg(name)
        except KeyError:
            raise SpgenError(f"no CSR {name!r} in shell/csr_map.json") from None
        if not 0 <= index < r.count:
            raise SpgenError(f"{name}: index {index} outside 0..{r.count - 1}")
        return r.address + r.stride * index

    def write_reg(self, name: str, value: float | bool) -> None:
        """RTL cards: sets the core Reg `name` of every core of this card's cascade (f32 as
        its binary32 pattern, i32/u32 integers, bool), through the card's CORE_REG CSR."""
        info = self._cl._card_info(self.id)
        if f"reg.{name}" not in info:
            regs = sorted(k[4:] for k in info if k.startswith("reg."))
            raise SpgenError(f"card {self.id}: its cores have no Reg {name!r} (Regs: {', '.join(regs) or 'none'})")
        self._cl.sim.csr_write(self.id, _csr("CORE_REG") + 8 * int(info[f"reg.{name}"]),
                               _reg_bits(name, info.get(f"regtype.{name}", "u32"), value))

    def open(self):
        """This card as an ordinary card (`spgen.runtime.Card`: dma, run, registers, as a
        card from `spgen.runtime.open`), on the cluster clock: while the host waits on it
        (or on any card or RDMA operation of the cluster) the whole cluster runs, so its
        DMA times and the cluster's cycles are one clock. RTL cards only."""
        from ._card import Card

        if not self._cl.rtl:
            raise SpgenError("the network model has no cards to open: a cluster file naming a \"card\" "
                             "(spgen build --links N) gives RTL cards")
        if not self._cl.sim.present(self.id):
            raise SpgenError(f"card {self.id} is not a card of this cluster (cards 0..{len(self._cl) - 1}; "
                             "absent cards have no card to open)")
        card = Card(self._cl.sim.card_uri(self.id))
        card._cluster = card._core._cluster = self._cl  # the cluster outlives its open cards and their buffers
        return card


class Cluster:
    """A simulated cluster of cards, set up from a cluster file (docs/rdma.md): RTL cards
    (complete simulated cards driven through their CSRs) when the file names a "card" built
    with `spgen build --links N`, else the C++ network model. Both have this one API."""

    def __init__(self, spec: dict | str | Path) -> None:
        self.ext = load_rdma_extension()
        self.description = resolve(spec)
        self.rtl = "\ncardlib " in self.description or "\nbuild " in self.description  # RTL cards
        try:
            if self.rtl:
                from ._build import load_extension

                self.sim = load_extension().RtlCluster(self.description)
            else:
                self.sim = self.ext.Cluster(self.description)
        except (ValueError, RuntimeError) as e:
            raise SpgenError(str(e)) from e

    @property
    def cards(self) -> list[ClusterCard]:
        # made on each call, not kept: a kept list would make the cluster part of a reference
        # cycle, closed whenever the garbage collector ran rather than when its last user let go
        return [ClusterCard(self, i) for i in range(self.sim.ncards)]

    def __getitem__(self, i: int) -> ClusterCard:
        n = self.sim.ncards
        if not isinstance(i, int) or not 0 <= i < n:
            raise SpgenError(f"no card {i!r} in this cluster of {n} (cards 0..{n - 1})")
        return ClusterCard(self, i)

    def dump(self, transfer: Transfer | None = None) -> str:
        """RTL cards: every card's engine state (through its CSRs) and every link's counters,
        naming where `transfer`'s traffic is stuck."""
        if not self.rtl:
            return "the network model has no RTL state to dump"
        return self.sim.dump(transfer.handle if transfer else 2**64 - 1)

    def __len__(self) -> int:
        return len(self.cards)

    def _range(self, card: int, addr: int, n: int) -> None:
        if addr < 0 or n < 0 or addr + n > self.sim.mem_bytes:
            raise SpgenError(f"card {card}: range {addr:#x}+{n} past the end of its {self.sim.mem_bytes} B memory")

    def _raise_now(self, t: Transfer) -> None:
        state, code, _, _ = t.status()
        if state == 2:
            raise RDMAError(code, self.ext.error_text(code))

    @property
    def now(self) -> int:
        return self.sim.now

    @property
    def packet_bytes(self) -> int:
        """DATA payload of the transfers started from now on: 64..1024 bytes in steps of 64,
        cut to each RTL card's largest (1 KiB behind a 512- or 1024-bit link port); 0, the
        default, is that largest. The model sends 64-byte packets only."""
        return self.sim.packet_bytes if self.rtl else 64

    @packet_bytes.setter
    def packet_bytes(self, n: int) -> None:
        if not self.rtl:
            if n not in (0, 64):
                raise SpgenError(f"packet size {n} B: the network model sends 64-byte packets only")
            return
        try:
            self.sim.packet_bytes = n
        except (RuntimeError, TypeError) as e:
            raise SpgenError(str(e)) from None

    def ns(self, cycles: int) -> float:
        return self.sim.ns(cycles)

    def run(self, cycles: int) -> None:
        self.sim.run(cycles)

    def wait_all(self, transfers: list[Transfer], max_cycles: int | None = None) -> None:
        for t in transfers:
            t.wait(max_cycles)

    def stats(self) -> dict[str, int]:
        return dict(self.sim.stats())


    def reduce_async(self, chain: list[int], src: int, nbytes: int, *, dst: int | None = None,
                     dtype: Any = "u32") -> Transfer | Reduction:
        """Starts a pipelined sum of the `nbytes`-byte vectors at `src` on the cards `chain`,
        in that order, into `dst` (default `src`) on the chain's last card (docs/rdma.md,
        "Reductions"). `dtype`: "u32" (wrapping sums) or "f32" (IEEE-754 sums in chain order,
        ((v0 + v1) + v2) + ...; numpy's np.uint32 / np.float32 work too). Returns a handle
        whose wait() simulates until the sum is complete (RDMAError on failure)."""
        return self._reduce("reduce", chain, src, nbytes, dst, dtype)

    def allreduce_async(self, chain: list[int], src: int, nbytes: int, *, dst: int | None = None,
                        dtype: Any = "u32") -> Transfer | Reduction:
        """As reduce_async(), the same sums in the same order; the last card streams the
        result back along the chain as it writes it (to chain[-2], on to chain[-3], ...), each
        card writing it to `dst` (default `src`): every card of the chain ends with it."""
        return self._reduce("allreduce", chain, src, nbytes, dst, dtype)

    def _reduce(self, what: str, chain: list[int], src: int, nbytes: int, dst: int | None,
                dtype: Any) -> Transfer | Reduction:
        import numpy as np

        try:
            kind = np.dtype({"u32": np.uint32, "f32": np.float32}.get(dtype, dtype) if isinstance(dtype, str)
                            else dtype)
        except TypeError:
            kind = None
        if kind not in (np.dtype(np.uint32), np.dtype(np.float32)):
            raise SpgenError(f"{what}: dtype {dtype!r} is not one of u32, f32")
        chain = list(chain)
        if not all(isinstance(c, int) for c in chain):
            raise SpgenError(f"{what}: chain {chain!r} must list card numbers")
        dst = src if dst is None else dst
        f32, every = kind == np.dtype(np.float32), what == "allreduce"
        if self.rtl:
            r = Reduction(self, self.sim.reduce_start(chain, src, dst, nbytes, f32, every))
            r._raise_if_refused()
            return r
        if len(chain) < 2 or len(set(chain)) != len(chain):
            raise RDMAError(6, f"{self.ext.error_text(6)}: a reduction chain needs 2 or more distinct cards, "
                               f"got {chain}")
        try:
            h = self.sim.reduce(chain, src, nbytes, f32, every, dst)
        except ValueError as e:
            raise SpgenError(f"{what}: {e}") from None
        t = Transfer(self, h)
        self._raise_now(t)
        return t

    def reduce(self, chain: list[int], src: int, nbytes: int, *, dst: int | None = None,
               dtype: Any = "u32") -> int:
        """Blocking reduce_async(); returns the cycles from the call to the completion the
        host sees."""
        return self.reduce_async(chain, src, nbytes, dst=dst, dtype=dtype).wait()

    def allreduce(self, chain: list[int], src: int, nbytes: int, *, dst: int | None = None,
                  dtype: Any = "u32") -> int:
        """Blocking allreduce_async(); returns the cycles from the call to the completion the
        host sees (every card holds the result)."""
        return self.allreduce_async(chain, src, nbytes, dst=dst, dtype=dtype).wait()

    def _card_info(self, card: int) -> dict[str, str]:
        if not self.rtl:
            raise SpgenError("core Regs and pipelines exist on RTL cards (a cluster file with \"card\")")
        return dict(line.split("=", 1) for line in self.sim.card_info(card).splitlines() if "=" in line)

    def card_summary(self, card: int) -> str:
        """RTL cards: the card's build (core, links) and its branch-stream binding (STREAM_CFG)."""
        info = self._card_info(card)
        words = {k: int(info.get(f"brch_{k}_words", 0)) for k in ("in", "out")}
        text = f"{info.get('target', '?')} x {info.get('n_cores', '?')}, {info.get('links', '?')} links"
        from ..shellgen import load_csr_map

        reg = load_csr_map().reg("STREAM_CFG")
        raw = self.sim.csr_read(card, reg.address)
        cfg = {f.name: raw >> f.lsb & ((1 << f.width) - 1) for f in reg.fields}
        if cfg["OUT_BRCH"]:
            text += f", Brch_Out ({words['out']} words) -> card {cfg['TX_DST']}"
        if cfg["IN_BRCH"]:
            text += f", Brch_In ({words['in']} words) <- card {cfg['RX_PEER']}"
        return text

    def pipeline(self, chain: list[int], records: Any, passes: int = 1, *, max_chunk: int = 0,
                 max_gap: int = 0, seed: int = 1, max_cycles: int = 0) -> tuple[Any, PipelineRun]:
        """Streams `records` (a numpy structured array of the cascade's records, or bytes
        with ``record_bytes`` given by the cards) through the cascades of the cards `chain`
        in turn, over links, `passes` times (docs/rdma.md, "Streams over links"); returns
        the last card's output (same type and dtype) and the run's figures. `max_chunk` /
        `max_gap`: the host feeds both ends in descriptors of 1..max_chunk records, each
        0..max_gap cycles after the previous one completed (random back-pressure)."""
        import numpy as np

        if not chain or not all(isinstance(c, int) and 0 <= c < len(self.cards) for c in chain):
            raise SpgenError(f"chain {chain!r}: cards of this cluster of {len(self.cards)} (0..{len(self.cards) - 1})")
        self._card_info(chain[0])  # RTL cards only
        raw = records if isinstance(records, (bytes, bytearray)) else np.ascontiguousarray(records).tobytes()
        # bytes: the cards' record size (STREAM_STATUS.RECORD_WORDS)
        rec_bytes = records.dtype.itemsize if hasattr(records, "dtype") else \
            4 * ((self.sim.csr_read(chain[0], _csr("STREAM_STATUS")) >> 8) & 0xFF)
        if not rec_bytes or len(raw) % rec_bytes or not raw:
            raise SpgenError(f"the pipeline takes whole records: {len(raw)} B is not a positive multiple of "
                             f"{rec_bytes} B")
        if passes < 1:
            raise SpgenError(f"passes must be at least 1, got {passes}")
        code, err, out, cycles, cards = self.sim.pipeline(list(chain), raw, rec_bytes, passes, max_chunk,
                                                          max_gap, seed, max_cycles)
        if code:
            raise RDMAError(code if code > 0 else 101, err)
        result = np.frombuffer(out, dtype=records.dtype).copy() if hasattr(records, "dtype") else out
        line = [self.sim.line_gbps(a, b) for a, b in itertools.pairwise(chain)]
        return result, PipelineRun(list(chain), len(raw) // rec_bytes, passes, cycles, cards,
                                   self.sim.clock_mhz, rec_bytes, line)

    def run_cores(self, inputs: dict[int, Any], *, max_chunk: int = 0, max_gap: int = 0, seed: int = 1,
                  max_cycles: int = 0) -> tuple[dict[int, Any], CoresRun]:
        """Runs the cores of several cards at once, each fed by its own host DMA: `inputs`
        maps a card to its input records (a numpy structured array, or bytes); returns each
        card's output records (typed by its build) and the run's figures. Cores joined by
        the cluster file's "branches" exchange their branch streams meanwhile, over links
        (docs/rdma.md, "Branch streams across cards"). `max_chunk` / `max_gap` as in
        `pipeline`: random gaps and back-pressure at every card's host side."""
        import numpy as np

        if not inputs:
            raise SpgenError("run_cores needs the input records of at least one card")
        chains, dtypes = [], {}
        for card, records in inputs.items():
            if not isinstance(card, int) or not 0 <= card < len(self.cards):
                raise SpgenError(f"card {card!r}: not a card of this cluster of {len(self.cards)} "
                                 f"(0..{len(self.cards) - 1})")
            info = self._card_info(card)
            fields = {k: _port_dtype(info.get(f"{k}_ports", "")) for k in ("in", "out")}
            if not fields["in"].names:
                raise SpgenError(f"card {card}: built without a core (loop-back): no cores to run")
            raw = bytes(records) if isinstance(records, (bytes, bytearray)) else \
                np.ascontiguousarray(records).tobytes()
            rec_in, rec_out = fields["in"].itemsize, fields["out"].itemsize
            if hasattr(records, "dtype") and records.dtype.itemsize != rec_in:
                raise SpgenError(f"card {card}: its core takes records of {rec_in} B "
                                 f"({', '.join(fields['in'].names)}), got {records.dtype.itemsize} B")
            if not raw or len(raw) % rec_in:
                raise SpgenError(f"card {card}: {len(raw)} B is not a positive number of {rec_in}-byte records")
            chains.append(([card], raw, rec_in, rec_out))
            dtypes[card] = fields["out"]
        code, err, outs, cycles, stats = self.sim.pipelines(chains, 1, max_chunk, max_gap, seed, max_cycles)
        if code:
            raise RDMAError(code if code > 0 else 101, err)
        results = {c[0][0]: np.frombuffer(o, dtype=dtypes[c[0][0]]).copy() for c, o in zip(chains, outs)}
        return results, CoresRun([c[0][0] for c in chains], cycles, stats, self.sim.clock_mhz)


def _port_dtype(ports: str) -> Any:
    """A numpy record type from a card's "name:type,..." port list (build info)."""
    import numpy as np

    types = {"f32": np.float32, "i32": np.int32, "u32": np.uint32}
    return np.dtype([(n, types[t]) for n, t in (f.split(":") for f in ports.split(",") if f)])


class CoresRun:
    """Figures of `Cluster.run_cores`: cycles, and per card the stall rate at its core's
    input, and the words its stream endpoint sent (a branch stream or nothing), with the
    cycles it waited for credit."""

    def __init__(self, cards: list[int], cycles: int, stats: list[dict], clock_mhz: float) -> None:
        self.cards, self.cycles, self.clock_mhz = cards, cycles, clock_mhz
        self.stats = dict(zip(cards, stats))

    @property
    def stall_rates(self) -> dict[int, float]:
        """Per card: (total - moved) / total cycles at its core's main input."""
        return {c: 1 - s["in_moved_cycles"] / s["in_total_cycles"] if s["in_total_cycles"] else 0.0
                for c, s in self.stats.items()}

    @property
    def stream_words_per_cycle(self) -> dict[int, float]:
        """Per card: words its outgoing stream (its Brch_Out when bound) sent per cycle of the run."""
        return {c: s["stream_tx_words"] / self.cycles if self.cycles else 0.0 for c, s in self.stats.items()}

    @property
    def stream_stall_rates(self) -> dict[int, float]:
        """Per card: cycles its outgoing stream held a word without credit, per cycle of the run."""
        return {c: s["stream_tx_stalls"] / self.cycles if self.cycles else 0.0 for c, s in self.stats.items()}

    def as_dict(self) -> dict[str, Any]:
        return {"cards": self.cards, "cycles": self.cycles, "stall_rates": self.stall_rates,
                "stream_words_per_cycle": self.stream_words_per_cycle,
                "stream_stall_rates": self.stream_stall_rates, "stats": self.stats}

    def __repr__(self) -> str:
        return f"CoresRun(cards {self.cards}, {self.cycles} cycles)"


def _csr(name: str) -> int:
    """A register's address from shell/csr_map.json."""
    from ..shellgen import load_csr_map

    return load_csr_map().reg(name).address


def _reg_bits(name: str, rtype: str, value: float | bool) -> int:
    """The 32-bit pattern of a core Reg value of type `rtype` (f32, i32, u32, bool)."""
    import struct

    if rtype == "f32":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SpgenError(f"Reg {name!r} (f32): expected a number, got {value!r}")
        return struct.unpack("<I", struct.pack("<f", float(value)))[0]
    if rtype == "bool":
        if value not in (0, 1, True, False):
            raise SpgenError(f"Reg {name!r} (bool): expected True/False or 0/1, got {value!r}")
        return int(value)
    lo, hi = (-(1 << 31), (1 << 31) - 1) if rtype == "i32" else (0, (1 << 32) - 1)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise SpgenError(f"Reg {name!r} ({rtype}): expected an integer in {lo}..{hi}, got {value!r}")
    return value & 0xFFFFFFFF


class Reduction:
    """A reduction under way on RTL cards (Cluster.reduce_async, allreduce_async): wait() polls the chain's
    REDUCE_STATUS through MMIO until every card is done; `cards` has per card of the chain
    the sums passed on (`words`; an allreduce's also counts the result's words written or
    passed on) and the cycles it waited for the previous card (`in_stalls`) and for the next
    card's credits (`out_stalls`)."""

    def __init__(self, cl: Cluster, r: Any) -> None:
        self._cl, self._r = cl, r

    def _raise_if_refused(self) -> None:
        code = self._r.code
        if code not in (0, 100):
            msg = self._cl.ext.error_text(code) if code > 0 else "reduction failed"
            raise RDMAError(code if code > 0 else 101, f"{msg}: {self._r.error}")

    def done(self) -> bool:
        """True once finished (reads the cards' REDUCE_STATUS, simulating the reads)."""
        return self._cl.sim.reduce_poll(self._r) != 100

    def wait(self, max_cycles: int | None = None) -> int:
        """Cycles from the call to the completion the host saw; RDMAError on failure (a
        TIMEOUT aborts the reduction on every card and carries their state and the links')."""
        code = self._cl.sim.reduce_wait(self._r, max_cycles or 0)
        if code == 100:
            raise RDMAError(100, "still in flight after the wait")
        self._raise_if_refused()
        return self._r.done - self._r.issued

    @property
    def cards(self) -> list[dict]:
        return self._r.cards


class PipelineRun:
    """Figures of a pipeline run: cycles, and per card of the chain the stall rate at its
    first core's input, the stream's send stalls and the link's use."""

    def __init__(self, chain: list[int], records: int, passes: int, cycles: int, cards: list[dict],
                 clock_mhz: float, record_bytes: int, line_gbps: list[float]) -> None:
        self.chain, self.records, self.passes, self.cycles = chain, records, passes, cycles
        self.cards, self.clock_mhz, self.record_bytes = cards, clock_mhz, record_bytes
        self.line_gbps = line_gbps  # per link of the chain

    def _per_line(self, words: list[int]) -> list[float]:
        """Words per link over what its line carries in the run's cycles (4 bytes a word)."""
        return [32 * w / (g * 1e3 / self.clock_mhz * self.cycles) if self.cycles and g else 0.0
                for w, g in zip(words, self.line_gbps, strict=False)]

    @property
    def stall_rates(self) -> list[float]:
        """Per card: (total - moved) / total cycles at the first core's input (docs/shell.md),
        from the host's start of the card: a later card's wait for the cascades before it to
        fill counts as stall."""
        return [1 - c["in_moved_cycles"] / c["in_total_cycles"] if c["in_total_cycles"] else 0.0
                for c in self.cards]

    @property
    def flowing_stall_rates(self) -> list[float]:
        """Per card: the stall at the first core's input once records flow, from each pass's
        first record there on (CORE_IN_FIRST_CYCLES left out of the total)."""
        out = []
        for c in self.cards:
            total = c["in_total_cycles"] - c.get("in_first_cycles", 0)
            out.append(1 - c["in_moved_cycles"] / total if total > 0 else 0.0)
        return out

    @property
    def link_utilisation(self) -> list[float]:
        """Per link of the chain: the share of the line's rate its cable carried over the run
        (every packet's words: the stream's data, headers, CRC, credits, acknowledgements)."""
        return self._per_line([c["link_words"] for c in self.cards[:-1]])

    @property
    def payload_utilisation(self) -> list[float]:
        """Per link: the share of the line's rate the records sent over it took."""
        return self._per_line([c["stream_tx_words"] for c in self.cards[:-1]])

    @property
    def seconds(self) -> float:
        return self.cycles / (self.clock_mhz * 1e6)

    def as_dict(self) -> dict[str, Any]:
        return {"chain": self.chain, "records": self.records, "passes": self.passes, "cycles": self.cycles,
                "seconds": self.seconds, "stall_rates": self.stall_rates,
                "flowing_stall_rates": self.flowing_stall_rates, "link_utilisation": self.link_utilisation, "payload_utilisation": self.payload_utilisation,
                "cards": self.cards}

    def __repr__(self) -> str:
        stalls = ", ".join(f"{s:.1%}" for s in self.stall_rates)
        return (f"PipelineRun(cards {self.chain}, {self.records} records x {self.passes} passes, "
                f"{self.cycles} cycles, first-core stalls {stalls})")


def cluster(spec: dict | str | Path) -> Cluster:
    """Opens a simulated cluster from a cluster file (JSON) or the same as a dict."""
    return Cluster(spec)


# ---- the RTL (shell/rdma/) as a cluster ---------------------------------------------------
RTL_MEM_BYTES = 4 << 20  # memory per card of the RTL cluster build (the engine's MEM_BYTES)


def build_rtl_cluster(*, window: int = 8, vc_buf: int = 4) -> Path:
    """Verilates rdma_node (shell/rdma/) with runtime/rdma/rtl_cluster.cpp into a shared library.

    `window` (go-back-N replay slots) and `vc_buf` (input buffer per VC, packets) are the
    link ports' parameters (powers of 2). Cached by the content of every input.
    """
    from .._tools import verilate_cached
    for name, v in (("window", window), ("vc_buf", vc_buf)):
        if v < 2 or v & (v - 1) or v > 256:
            raise SpgenError(f"RTL cluster: {name} must be a power of 2 in 2..256, not {v}")
    root = data_root()
    rtl = rtl_sources()
    shim = root / "runtime" / "rdma" / "rtl_cluster.cpp"
    header = root / "runtime" / "rdma" / "include" / "afushell" / "rdma_rtl.h"
    params = (f"-GMEM_BYTES=64'h{RTL_MEM_BYTES:x}", "-GOP_TIMEOUT=400000", f"-GWINDOW={window}",
              f"-GVC_BUF={vc_buf}")
    packet = root / "shell" / "rdma_packet.vh"  # generated packet format, included by the RTL
    return verilate_cached("rdma", "rtl_cluster", "rdma_node", [*rtl, shim],
                           (*params, f"-I{packet.parent}", "-o", "librdma_rtl.so", "-CFLAGS", f"-fPIC -I{header.parents[1]}",
                            "-LDFLAGS", "-shared"), deps=[header, *rtl_includes(), shim.with_name("rtl_links.hpp"),
                                                            shim.with_name("ring_route.hpp")],
                           output="librdma_rtl.so")


class RTLTransfer:
    """An operation on an RTLCluster: status() without simulating, wait() simulates until it ends."""

    def __init__(self, cl: RTLCluster, handle: int, what: str) -> None:
        self._cl, self.handle, self._what = cl, handle, what

    def status(self) -> tuple[int, int, int]:
        """(state 0 in flight / 1 done / 2 failed, error code, cycles from command to completion)."""
        ct = self._cl._ct
        code, cyc = ct.c_int(0), ct.c_uint64(0)
        st = self._cl._lib.rtl_cluster_test(self._cl._h, self.handle, ct.byref(code), ct.byref(cyc))
        return int(st), int(code.value), int(cyc.value)

    def done(self) -> bool:
        return self.status()[0] != 0

    def wait(self, max_cycles: int = 4_000_000) -> int:
        """Cycles from the command being taken to completion; RDMAError on failure or when max_cycles run out."""
        ct = self._cl._ct
        code, cyc = ct.c_int(0), ct.c_uint64(0)
        st = self._cl._lib.rtl_cluster_wait(self._cl._h, self.handle, max_cycles, ct.byref(code), ct.byref(cyc))
        if st == 0:
            raise RDMAError(3, f"{self._what}: still in flight after {max_cycles} cycles\n{self._cl.dump()}")
        if st == 2:
            where = f"\n{self._cl.dump()}" if int(code.value) == 3 else ""  # TIMEOUT: say where it waits
            raise RDMAError(int(code.value), self._what + where)
        return int(cyc.value)


class RTLCluster:
    """Cards running the RTL RDMA engine and router (shell/rdma/rdma_node.v, Verilated) on a
    ring (``dims=(n,)``) or 2-D torus (``dims=(x, y)``), dimension-order routes with datelines,
    cables of ``latency`` cycles with bit-flip / drop probabilities per packet. Operations of a
    card queue behind the engine's command port (it keeps 4 in flight, in command order);
    put/get/put_strided block and return the cycles from command to completion, or raise
    RDMAError with the engine's status code; the ``*_async`` forms return an RTLTransfer.
    """

    def __init__(self, dims: tuple[int, ...] = (2, 2), *, latency: int = 12, flip: float = 0.0,
                 drop: float = 0.0, seed: int = 1, window: int = 8, vc_buf: int = 4) -> None:
        import ctypes
        if len(dims) not in (1, 2) or any(int(d) < 1 for d in dims):
            raise SpgenError(f"RTL cluster: dims must be (n,) or (x, y) with sizes >= 1, not {dims}")
        x, y = (int(dims[0]), int(dims[1]) if len(dims) == 2 else 1)
        if x * y > 64:
            raise SpgenError(f"RTL cluster: at most 64 cards, not {x * y}")
        if latency < 1 or not 0 <= flip < 1 or not 0 <= drop < 1:
            raise SpgenError("RTL cluster: latency >= 1 cycle, flip and drop probabilities in [0, 1)")
        lib = ctypes.CDLL(str(build_rtl_cluster(window=window, vc_buf=vc_buf)))
        u64, vp = ctypes.c_uint64, ctypes.c_void_p
        lib.rtl_cluster_create.restype = vp
        lib.rtl_cluster_create.argtypes = [ctypes.c_int, ctypes.c_int, u64, u64, ctypes.c_double, ctypes.c_double, u64]
        lib.rtl_cluster_destroy.argtypes = [vp]
        lib.rtl_cluster_now.restype = u64
        lib.rtl_cluster_now.argtypes = [vp]
        lib.rtl_cluster_write.argtypes = [vp, ctypes.c_int, u64, ctypes.c_char_p, u64]
        lib.rtl_cluster_read.argtypes = [vp, ctypes.c_int, u64, ctypes.c_char_p, u64]
        u32, i32 = ctypes.c_uint32, ctypes.c_int
        lib.rtl_cluster_issue.restype = ctypes.c_int64
        lib.rtl_cluster_issue.argtypes = [vp, i32, i32, i32, u64, u64, u64, u32, u32, u32, u32]
        lib.rtl_cluster_test.argtypes = [vp, ctypes.c_int64, ctypes.POINTER(i32), ctypes.POINTER(u64)]
        lib.rtl_cluster_wait.argtypes = [vp, ctypes.c_int64, u64, ctypes.POINTER(i32), ctypes.POINTER(u64)]
        lib.rtl_cluster_run.argtypes = [vp, u64]
        lib.rtl_cluster_events.argtypes = [vp, ctypes.c_int, ctypes.POINTER(u64), ctypes.c_int]
        lib.rtl_cluster_stats.argtypes = [vp, ctypes.POINTER(u64)]
        lib.rtl_cluster_debug.restype = i32
        lib.rtl_cluster_debug.argtypes = [vp, i32, ctypes.POINTER(u64), i32]
        self._ct, self._lib = ctypes, lib
        self._h = lib.rtl_cluster_create(x, y, RTL_MEM_BYTES, latency, flip, drop, seed)
        if not self._h:
            raise SpgenError("RTL cluster: could not create it")
        self.ncards, self.mem_bytes, self.vc_buf = x * y, RTL_MEM_BYTES, vc_buf

    def close(self) -> None:
        if getattr(self, "_h", None):
            self._lib.rtl_cluster_destroy(self._h)
            self._h = None

    def __del__(self) -> None:
        self.close()

    def _card(self, card: int) -> None:
        if not 0 <= card < self.ncards:
            raise SpgenError(f"RTL cluster: no card {card} (cards 0..{self.ncards - 1})")

    @property
    def now(self) -> int:
        return int(self._lib.rtl_cluster_now(self._h))

    def write(self, card: int, addr: int, data: bytes | Any) -> None:
        self._card(card)
        b = bytes(data) if not hasattr(data, "tobytes") else data.tobytes()
        if addr < 0 or self._lib.rtl_cluster_write(self._h, card, addr, b, len(b)) != 0:
            raise SpgenError(f"card {card}: range {addr:#x}+{len(b)} past the end of its {self.mem_bytes} B memory")

    def read(self, card: int, addr: int, nbytes: int) -> bytes:
        self._card(card)
        buf = self._ct.create_string_buffer(max(nbytes, 1))
        if addr < 0 or nbytes < 0 or self._lib.rtl_cluster_read(self._h, card, addr, buf, nbytes) != 0:
            raise SpgenError(f"card {card}: range {addr:#x}+{nbytes} past the end of its {self.mem_bytes} B memory")
        return buf.raw[:nbytes]

    def _issue(self, card: int, get: int, peer: int, local: int, remote: int, nbytes: int, block: int = 0,
               count: int = 0, ls: int = 0, rs: int = 0) -> RTLTransfer:
        self._card(card)
        if not 0 <= peer < 64 or min(local, remote, nbytes, block, count, ls, rs) < 0:
            raise SpgenError("RTL cluster: negative address or size, or a card number outside 0..63")
        if max(local, remote, nbytes) >= 1 << 64 or max(block, count, ls, rs) >= 1 << 32:
            raise SpgenError("RTL cluster: addresses and sizes are 64-bit, block-stride fields 32-bit")
        h = self._lib.rtl_cluster_issue(self._h, card, get, peer, local, remote, nbytes, block, count, ls, rs)
        return RTLTransfer(self, int(h), f"card {card} -> card {peer}" if not get else f"card {peer} -> card {card}")

    def put_async(self, card: int, dst: int, local: int, remote: int, nbytes: int) -> RTLTransfer:
        """Starts a put (the engine keeps up to MAX_OPS = 4 in flight, the rest queue); see RTLTransfer."""
        return self._issue(card, 0, dst, local, remote, nbytes)

    def get_async(self, card: int, src: int, local: int, remote: int, nbytes: int) -> RTLTransfer:
        return self._issue(card, 1, src, local, remote, nbytes)

    def put_strided_async(self, card: int, dst: int, local: int, remote: int, block: int, count: int,
                          local_stride: int, remote_stride: int) -> RTLTransfer:
        if block <= 0:
            raise RDMAError(5, "a block-stride put needs a block of at least 4 bytes")
        return self._issue(card, 0, dst, local, remote, 0, block, count, local_stride, remote_stride)

    def get_strided_async(self, card: int, src: int, local: int, remote: int, block: int, count: int,
                          local_stride: int, remote_stride: int) -> RTLTransfer:
        """Block-stride get: `count` blocks of `block` bytes read `remote_stride` apart on card `src`,
        written `local_stride` apart here."""
        if block <= 0:
            raise RDMAError(5, "a block-stride get needs a block of at least 4 bytes")
        return self._issue(card, 1, src, local, remote, 0, block, count, local_stride, remote_stride)

    def put(self, card: int, dst: int, local: int, remote: int, nbytes: int) -> int:
        """Card `card`'s memory [local, +nbytes) -> card `dst` at `remote`; cycles it took."""
        return self.put_async(card, dst, local, remote, nbytes).wait()

    def get(self, card: int, src: int, local: int, remote: int, nbytes: int) -> int:
        """Card `src`'s memory [remote, +nbytes) -> card `card` at `local`; cycles it took."""
        return self.get_async(card, src, local, remote, nbytes).wait()

    def put_strided(self, card: int, dst: int, local: int, remote: int, block: int, count: int,
                    local_stride: int, remote_stride: int) -> int:
        """Block-stride put: `count` blocks of `block` bytes, a stride on each side; cycles it took."""
        return self.put_strided_async(card, dst, local, remote, block, count, local_stride, remote_stride).wait()

    def get_strided(self, card: int, src: int, local: int, remote: int, block: int, count: int,
                    local_stride: int, remote_stride: int) -> int:
        """Block-stride get (see get_strided_async); cycles it took."""
        return self.get_strided_async(card, src, local, remote, block, count, local_stride, remote_stride).wait()

    def run(self, cycles: int) -> None:
        self._lib.rtl_cluster_run(self._h, cycles)

    def events(self, card: int) -> list[tuple[int, int, int, int, int]]:
        """Target-side completions since the last call: (kind 1 put / 4 get, peer, addr, bytes, cycle)."""
        self._card(card)
        buf = (self._ct.c_uint64 * (5 * 256))()
        rows: list[tuple[int, int, int, int, int]] = []
        while True:
            k = self._lib.rtl_cluster_events(self._h, card, buf, 256)
            rows += [tuple(int(buf[5 * i + j]) for j in range(5)) for i in range(k)]  # type: ignore[misc]
            if k < 256:
                return rows

    def debug(self, card: int) -> dict:
        """The card's debug registers (the RDMA_ENG_*, RDMA_ROUTER_STATE and RDMA_LINK_* CSRs of
        shell/csr_map.json), decoded by the map's field definitions: {"engine": {...},
        "router": {...}, "slots": [{...}] (live ones), "links": [{...} per port]}."""
        from ..shellgen import load_csr_map
        self._card(card)
        buf = (self._ct.c_uint64 * 64)()
        n = self._lib.rtl_cluster_debug(self._h, card, buf, 64)
        m = load_csr_map()

        def fields(reg: str, word: int) -> dict[str, int]:
            return {f.name.lower(): (word >> f.lsb) & ((1 << f.width) - 1) for f in m.reg("RDMA_" + reg).fields}

        words = [int(buf[i]) for i in range(n)]
        slots = [dict(fields("ENG_SLOT", w), slot=i) for i, w in enumerate(words[:16]) if w >> 63]
        links = []
        for p in range((n - 18) // 4):  # four words per port: PKTS, ERRS, STALLS, STATE
            ln: dict[str, int] = {}
            for k, kind in enumerate(("PKTS", "ERRS", "STALLS", "STATE")):
                ln.update({f"{kind.lower()}_{name}": v for name, v in fields("LINK_" + kind, words[18 + 4 * p + k]).items()})
            links.append(ln)
        return {"engine": fields("ENG_STATE", words[16]), "router": fields("ROUTER_STATE", words[17]),
                "slots": slots, "links": links}

    def dump(self) -> str:
        """Where traffic is stuck, card by card: operations in flight (slot, age), link ports with
        packets the peer has not acknowledged or without credit, packets held at a receiver."""
        lines = [f"RTL cluster at cycle {self.now}:"]
        for c in range(self.ncards):
            d = self.debug(c)
            e = d["engine"]
            busy = [f"op {s['op_id']:#x} (slot {s['slot']}, {s['age']} cycles)" for s in d["slots"]]
            items = []
            for p, ln in enumerate(d["links"]):
                why = []
                if ln["state_unacked"]:
                    why.append(f"{ln['state_unacked']} packets unacknowledged")
                for v in (0, 1):
                    if ln[f"state_credits_used{v}"] >= self.vc_buf:
                        why.append(f"no credit on VC {v}")
                    if ln[f"state_rx_held{v}"]:
                        why.append(f"{ln[f'state_rx_held{v}']} received packets held on VC {v}")
                if why:
                    items.append(f"port {p}: " + ", ".join(why) + f" (sent {ln['pkts_tx']}, received {ln['pkts_rx']}, "
                                 f"replays {ln['errs_replays']}, CRC errors {ln['errs_crc_errors']})")
            if busy or items or e["gets_queued"] or e["replies_queued"]:
                lines.append(f"  card {c}: " + ("; ".join(busy) if busy else "no operation in flight")
                             + f"; queued: {e['cmds_queued']} commands, {e['replies_queued']} replies, "
                               f"{e['gets_queued']} get requests")
                lines += [f"    {x}" for x in items]
        if len(lines) == 1:
            lines.append("  nothing in flight, every link quiet")
        return "\n".join(lines)

    def stats(self) -> dict[str, int]:
        out = (self._ct.c_uint64 * 4)()
        self._lib.rtl_cluster_stats(self._h, out)
        return {"replays": int(out[0]), "flips": int(out[1]), "drops": int(out[2]), "overflow": int(out[3])}
