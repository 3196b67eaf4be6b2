"""Python face of the runtime: open a card, shared buffers, DMA, registers, core runs."""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._diagnostics import SpgenError
from ._build import load_extension, loopback_card
from ._errors import AfuError
from ._errors import check as _check
from ._peer import CardDmaResult, PeerBuffer, register

__all__ = ["KINDS", "AfuError", "Card", "Request", "RunResult", "open"]

KINDS = {"H2F": 0, "F2H": 1, "F2F": 2, "H2H": 3, "P2F": 4, "F2P": 5}
_GUID = re.compile(r"^(afu:)?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")


@dataclass(frozen=True)
class RunResult:
    """Counters of one run through the core cascade (simulated time on the simulated card).

    ``stall_rate`` is measured where the published design put its counter, at the first
    core's input; ``out_stall_rate`` at the last core's output also counts the pipeline
    fill. ``prime_cycles``: the TX engine's read-ahead before the armed run started.
    ``in_first_cycles``: the run's cycles before its first record entered the first core;
    ``flowing_stall_rate`` is ``stall_rate`` without them (the stall once records flow).
    """

    total_cycles: int
    moved_cycles: int
    stall_rate: float
    elapsed_ns: int
    in_total_cycles: int = 0
    in_moved_cycles: int = 0
    prime_cycles: int = 0
    out_stall_rate: float = 0.0
    in_first_cycles: int = 0
    flowing_stall_rate: float = 0.0


class _Core:
    """Owns the C handle; closed when the card and every buffer from it are gone."""

    handle = 0  # also when __init__ failed before opening (the runtime did not build)

    def __init__(self, uri: str) -> None:
        self.ext = load_extension()
        self.handle = _check(self.ext.open(uri))

    def __del__(self) -> None:
        if self.handle:
            self.ext.close(self.handle)
            self.handle = 0


class Request:
    """An asynchronous transfer; `wait` returns False on timeout, raises AfuError on failure."""

    _req = 0

    def __init__(self, core: _Core, req: int) -> None:
        self._core = core
        self._req = req
        self.elapsed_ns = 0

    def wait(self, timeout_ns: int | None = None) -> bool:
        if not self._req:
            return True
        code, msg, ns = self._core.ext.wait(self._req, (1 << 64) - 1 if timeout_ns is None else int(timeout_ns))
        if code == self._core.ext.CODES["TIMEOUT"]:
            return False
        self._req = 0
        if code:
            raise AfuError(code, msg)
        self.elapsed_ns = ns
        return True

    @property
    def done(self) -> bool:
        return not self._req or self._core.ext.done(self._req) == 1

    def __del__(self) -> None:
        if self._req:
            self._core.ext.wait(self._req, (1 << 64) - 1)


class Card:
    """An open shell: use as a context manager (`with spgen.runtime.open(...) as card`)."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self._core: _Core | None = _Core(uri)
        self._h = self._core.handle

    # -- lifetime -------------------------------------------------------------------
    def close(self) -> None:
        """Closes the card; buffers from `alloc` stay valid until they are dropped."""
        self._core = None

    def __enter__(self) -> Card:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def c_handle(self) -> int:
        """The card's ``afu_shell_handle`` as an integer, for C++ bound into Python
        (``spgen.lbm.run_card``); valid while the card is open."""
        return self._live().handle

    def _live(self) -> _Core:
        if self._core is None:
            ext = load_extension()
            raise AfuError(ext.CODES["CLOSED"], "the card is closed")
        return self._core

    # -- memory ---------------------------------------------------------------------
    def alloc(self, nbytes: int) -> np.ndarray:
        """A zeroed uint8 array in host memory shared with the card."""
        core = self._live()
        if not isinstance(nbytes, (int, np.integer)) or nbytes <= 0:
            raise AfuError(core.ext.CODES["ZERO_COUNT"], f"alloc needs a positive byte count, got {nbytes!r}")
        return _check(core.ext.alloc(core, core.handle, int(nbytes)))

    def _addr(self, x: Any, nbytes: int, what: str) -> tuple[int, bool]:
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
            if x < 0:
                raise AfuError(load_extension().CODES["OUT_OF_RANGE"], f"{what}: negative FPGA address {x}")
            return int(x), False
        if x is None:
            return 0, True
        if isinstance(x, PeerBuffer):
            return x.bus, False
        if isinstance(x, np.ndarray):
            if not x.flags.c_contiguous:
                raise SpgenError(f"{what}: host buffer view must be contiguous")
            if nbytes > x.nbytes:
                raise SpgenError(f"{what}: {nbytes} bytes requested but the view holds {x.nbytes}")
            return int(x.__array_interface__["data"][0]), True
        raise SpgenError(f"{what}: expected an FPGA address (int) or a numpy view of a buffer from alloc, "
                         f"got {type(x).__name__}")

    def _args(self, dst: Any, src: Any, nbytes: int, kind: str) -> tuple[int, int, int, int]:
        if kind not in KINDS:
            raise AfuError(load_extension().CODES["BAD_TYPE"], f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        if not isinstance(nbytes, (int, np.integer)) or nbytes < 0:
            raise SpgenError(f"nbytes must be a non-negative integer, got {nbytes!r}")
        d, d_host = self._addr(dst, int(nbytes), "dst")
        s, s_host = self._addr(src, int(nbytes), "src")
        want_s, want_d = kind[0] == "H", kind[2] == "H"
        if (s_host, d_host) != (want_s, want_d):
            what = {"H": "host buffer", "F": "FPGA address", "P": "peer buffer (PeerBuffer or bus address)"}
            raise SpgenError(f"{kind} copies from a {what[kind[0]]} to a {what[kind[2]]}")
        return d, s, int(nbytes), KINDS[kind]

    def dma(self, dst: Any, src: Any, nbytes: int, kind: str) -> int:
        """Copies nbytes and waits; returns the request-to-interrupt time in ns."""
        core = self._live()
        return _check(core.ext.dma(core.handle, *self._args(dst, src, nbytes, kind)))

    def dma_async(self, dst: Any, src: Any, nbytes: int, kind: str) -> Request:
        core = self._live()
        return Request(core, _check(core.ext.dma_async(core.handle, *self._args(dst, src, nbytes, kind))))

    # -- peer devices (docs/p2p.md) ---------------------------------------------------
    def peer_alloc(self, nbytes: int) -> PeerBuffer:
        """Simulated peer-device (GPU) memory, zeroed, in the peer's BAR on the card's PCIe."""
        return register(self._live(), nbytes=nbytes)

    def peer_register(self, cuda_array: Any) -> PeerBuffer:
        """A CuPy array's GPU memory in the simulated peer's BAR: the card's P2F/F2P
        transfers then read and write the GPU's memory for real (needs the CUDA driver)."""
        return register(self._live(), cuda_array=cuda_array)

    def peer_staged(self, dst: Any, src: Any, nbytes: int, kind: str) -> int:
        """The CPU-staged path (P2F: peer -> host -> FPGA, F2P the reverse), store and
        forward; returns both legs' time in ns (the peer's copy is modelled)."""
        core = self._live()
        return _check(core.ext.peer_staged(core.handle, *self._args(dst, src, nbytes, kind)))

    def card_dma(self, dst: Any, src: Any, nbytes: int, kind: str, repeat: int = 1,
                 src_step: int = 0, dst_step: int = 0) -> CardDmaResult:
        """Card-initiated DMA: the card's P2P controller builds and issues `repeat`
        transfers (k-th: src + k*src_step -> dst + k*dst_step) with no host in the loop;
        repeat 1 is register-mode DMA. Waits for the end (polling the card)."""
        core = self._live()
        d, s, n, t = self._args(dst, src, nbytes, kind)
        return CardDmaResult(**_check(core.ext.card_dma(core.handle, d, s, n, t, int(repeat),
                                                         int(src_step), int(dst_step))))

    # -- registers ------------------------------------------------------------------
    def _offset(self, reg: str | int) -> int:
        core = self._live()
        if isinstance(reg, str):
            return _check(core.ext.reg_offset(core.handle, reg))
        return int(reg)

    def reg_offset(self, reg: str) -> int:
        """The MMIO byte offset of a register: a shell register by its csr_map.json name (an
        array element as NAME<index>, e.g. "RDMA_ROUTE5"), or a core Reg by name."""
        return self._offset(reg)

    def reg_type(self, reg: str) -> str:
        """"f32", "i32", "u32" or "bool" for a core Reg (as the build's core.json says), ""
        for a shell register (64 raw bits)."""
        core = self._live()
        return _check(core.ext.reg_type(core.handle, reg))

    def write_reg(self, reg: str | int, value: float) -> None:
        """Writes a register by value. A core Reg named here takes a number of its type:
        f32 its binary32 pattern (``write_reg("omega", 1.7)``), i32/u32 an integer in
        their range, bool True/False or 0/1. A shell register (or an offset) takes a
        non-negative integer, its raw bits. What does not fit is refused (AfuError
        REG_VALUE) and nothing is written; `write_reg_bits` writes a bit pattern as is."""
        core = self._live()
        rtype = self.reg_type(reg) if isinstance(reg, str) else ""
        if not rtype:
            self.write_reg_bits(reg, value)
            return
        if isinstance(value, (bool, np.bool_)) and rtype != "bool":
            raise AfuError(core.ext.CODES["REG_VALUE"],
                           f"core Reg '{reg}' ({rtype}): {value!r} is a bool, not a number")
        if not isinstance(value, (int, float, np.integer, np.floating)):
            raise AfuError(core.ext.CODES["REG_VALUE"],
                           f"core Reg '{reg}' ({rtype}): expected a number, got {type(value).__name__}")
        if isinstance(value, (int, np.integer)) and not -(1 << 53) <= int(value) <= 1 << 53:
            # beyond what a double holds exactly, and beyond every 32-bit type too
            raise AfuError(core.ext.CODES["REG_VALUE"],
                           f"core Reg '{reg}' ({rtype}): {int(value)} does not fit")
        _check(core.ext.write_reg_value(core.handle, reg, float(value)))

    def write_reg_bits(self, reg: str | int, bits: int) -> None:
        """Writes a register's raw bits: 64 for a shell register, 32 for a core Reg."""
        core = self._live()
        limit = 1 << (32 if isinstance(reg, str) and self.reg_type(reg) else 64)
        if isinstance(bits, (bool, np.bool_)) or not isinstance(bits, (int, np.integer)) \
                or not 0 <= int(bits) < limit:
            raise AfuError(core.ext.CODES["REG_VALUE"],
                           f"register {reg!r}: bits must be an integer 0 .. 2^{limit.bit_length() - 1}-1, "
                           f"got {bits!r}")
        _check(core.ext.write_reg(core.handle, self._offset(reg), int(bits)))

    def read_reg(self, reg: str | int) -> float | int | bool:
        """A core Reg as a number of its type (float, int, bool), else the raw bits."""
        core = self._live()
        rtype = self.reg_type(reg) if isinstance(reg, str) else ""
        if not rtype:
            return self.read_reg_bits(reg)
        value = _check(core.ext.read_reg_value(core.handle, reg))
        return value if rtype == "f32" else bool(value) if rtype == "bool" else int(value)

    def read_reg_bits(self, reg: str | int) -> int:
        core = self._live()
        return _check(core.ext.read_reg(core.handle, self._offset(reg)))

    # -- cores ----------------------------------------------------------------------
    def run(self, src_addr: int, dst_addr: int, n_elements: int) -> RunResult:
        """Streams n_elements records from FPGA memory through the cores to dst_addr."""
        core = self._live()
        return RunResult(**_check(core.ext.run(core.handle, int(src_addr), int(dst_addr), int(n_elements))))

    def counters(self) -> RunResult:
        core = self._live()
        return RunResult(**_check(core.ext.counters(core.handle)))

    @property
    def elapsed_ns(self) -> int:
        """Request-to-completion time of the latest transfer or run."""
        core = self._live()
        return _check(core.ext.elapsed_ns(core.handle))

    @property
    def info(self) -> dict[str, Any]:
        core = self._live()
        return _check(core.ext.info(core.handle))

    def require_plain_copy(self, tool: str) -> None:
        """For tools that compare what comes back with what went: on a card with cores
        every transfer streams through them, so refuse it with a message that says so."""
        n = self.info["n_cores"]
        if n:
            raise SpgenError(f"{tool}: the card has {n} core(s) and every transfer streams through "
                             f"them, so data does not come back as it went; {tool} needs a "
                             "loop-back build ('loopback', or `spgen build --loopback -o DIR`)")

    def core_param(self, name: str) -> int | None:
        """An integer Param of the card's core as built (``spgen build -P``), or None
        where the card does not say (loop-back card; a hardware card without
        ``param.NAME=VALUE`` in its URI). A Param that is not an integer is an error."""
        core = self._live()
        code, msg, value = core.ext.core_param(core.handle, name)
        if code == core.ext.CODES["NOT_FOUND"]:
            return None
        return _check((code, msg, value))

    def sim_stats(self) -> dict[str, Any]:
        """Simulated time, cycles simulated and the wall time they took."""
        core = self._live()
        return _check(core.ext.sim_stats(core.handle))

    def sim_host_time(self, op: str = "now", cycle: int = 0) -> int | None:
        """Deterministic host time of the program's threads on this simulated card, in cycles
        (docs/runtime.md "Host time"), after `op`: "now" (nothing), "block" (a program thread
        waits for another host thread, not for the card: the clock may run on), "sync" (the
        host time raised to at least `cycle`), "wake" (that wait ended by an event at `cycle`;
        called by the thread that ends it), "leave" (a card of a cluster: the thread holds the
        cluster's clock back no more until its next call on one of its cards). None where the
        card has no deterministic host time (a real card, ``realtime=1``)."""
        core = self._live()
        ops = {"now": 0, "block": 1, "sync": 2, "wake": 3, "leave": 4}
        if op not in ops:
            raise SpgenError(f"sim_host_time: unknown operation {op!r} (one of {', '.join(ops)})")
        code, msg, value = core.ext.sim_host_time(core.handle, ops[op], int(cycle))
        if code == core.ext.CODES["NOT_SUPPORTED"]:
            return None
        return _check((code, msg, value))

    def sim_params(self) -> dict[str, float]:
        """The simulated card's model parameters (docs/runtime.md, docs/p2p.md), as used."""
        core = self._live()
        out = {}
        for line in _check(core.ext.sim_info(core.handle)).splitlines():
            k, _, v = line.partition("=")
            if "." in k:
                continue   # build facts (reg.NAME, param.NAME, ...)
            try:
                out[k] = float(v)
            except ValueError:
                continue   # build facts, not model parameters
        return out

    # -- reconfiguration (docs/reconf.md) -----------------------------------------------
    def reconfigure(self, build: str | os.PathLike[str], keep_ddr: bool = False,
                    afu_id: str | None = None) -> int:
        """Reprograms the card's AFU slot with a `spgen build` directory (or "loopback"), as
        fpgaconf does; returns the simulated time it took in ns (model parameter reconf_s,
        1.39 s by default as published). The card's DDR is cleared unless keep_ddr; buffers
        from `alloc` stay. Refused (AfuError BUSY) while requests of this card are in flight.
        The loaded AFU must have `afu_id` (default: the build's afu.json
        accelerator-type-uuid) and afu.json's cores and record widths, else AfuError AFU_ID:
        a named ID the build does not hold is refused before loading, and an AFU that turns
        out wrong refuses transfers and runs until the next reconfiguration succeeds."""
        core = self._live()
        target = _target(build)
        ns = _check(core.ext.reconfigure(core.handle, target, bool(keep_ddr), afu_id or ""))
        self.uri = f"sim:{target}"
        return ns

    def set_max_descriptor(self, nbytes: int) -> None:
        core = self._live()
        _check(core.ext.set_max_descriptor(core.handle, int(nbytes)))

    def set_checks(self, enabled: bool) -> None:
        """Testing aid: False hands bad requests to the shell to see its own errors."""
        core = self._live()
        _check(core.ext.set_checks(core.handle, bool(enabled)))


def _target(build: str | os.PathLike[str],
            what: str = "a card holds a spgen build directory or 'loopback'") -> str:
    """What a simulated card loads: the loop-back card's library or a build directory."""
    t = os.fspath(build)
    if t in ("loopback", "sim:loopback"):
        return str(loopback_card())
    t = t.removeprefix("sim:")
    if not Path(t).exists():
        raise AfuError(load_extension().CODES["BAD_URI"], f"no such directory: {t} ({what})")
    return str(Path(t).resolve())


def _uri(target: str | os.PathLike[str], params: Mapping[str, float] | None) -> str:
    t = os.fspath(target)
    if (t.startswith("sim:") and t != "sim:loopback") or _GUID.match(t):
        uri = t
    else:
        uri = "sim:" + _target(t, "a target is a spgen build directory, 'loopback', sim:... or an AFU ID")
    if params:
        uri += "?" + ",".join(f"{k}={v}" for k, v in params.items())
    return uri


def open(target: str | os.PathLike[str] = "loopback",
         params: Mapping[str, float] | None = None) -> Card:
    """Opens a card: a `spgen build` directory, "loopback" (no core), or an AFU ID.

    `params` override simulated-card model parameters (docs/runtime.md).
    """
    return Card(_uri(target, params))
