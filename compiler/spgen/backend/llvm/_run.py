"""The emulator entry point: chained stages in one sweep, split over threads with halos."""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..._diagnostics import SpgenError
from ...ir import Graph
from .._plan import CHUNK, feedback, ring_sizes, stage_lags
from ._jit import Kernel, get_kernel
from ._spec import cls_bytes
from ._sweep import NO_RING, key_counts

__all__ = ["clear_buffers", "emulate", "feedback"]

# Below this many element-steps per thread, extra threads cost more than they save.
_MIN_PER_THREAD = 1 << 16
# Ring memory one fused group of stages may use per thread (keeps it in cache).
_GROUP_BYTES = 8 << 20
_MAX_GROUP = 32


def _cache_bytes(level: int, default: int) -> int:
    """Size of the host's level-``level`` cache (Linux sysfs), else ``default``."""
    try:
        for idx in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
            if (idx / "level").read_text().strip() == str(level):
                size = (idx / "size").read_text().strip().upper()
                mult = {"K": 1 << 10, "M": 1 << 20}.get(size[-1:], 1)
                return int(size.rstrip("KM")) * mult
    except (OSError, ValueError):
        pass
    return default


# Results larger than the L3 are written with streaming stores: they would not stay in
# the cache anyway, and plain stores would first read every line of them (the measured
# effect of this and the other tuning constants: docs/emulator.md, "Tuning").
_STREAM_BYTES = int(os.environ.get("SPGEN_STREAM_BYTES", max(64 << 20, _cache_bytes(3, 32 << 20))))


class _Pool:
    """Reuses the memory behind output arrays and ring buffers between calls.

    Fresh memory costs a page fault and the kernel zeroing each page on first touch:
    for a single step over a large grid that doubled the time of the sweep. A block
    is handed out again once no array returned to a caller still views it (its
    reference count says so), so callers never see their results overwritten.
    """

    def __init__(self, max_blocks: int = 6, max_bytes: int = 3 << 30):
        self._lock = threading.Lock()
        self._blocks: list[list] = []  # [owner array, aligned offset, address], LRU first
        self.max_blocks, self.max_bytes = max_blocks, max_bytes

    def take(self, words: int) -> tuple[np.ndarray, int]:
        """A 64-byte aligned uint32 array of ``words`` elements (contents undefined) and
        its address."""
        with self._lock:
            for i, e in enumerate(self._blocks):
                # idle: referenced only by its entry and by getrefcount's argument
                if (sys.getrefcount(e[0]) == 2 and words + 16 <= e[0].size <= 2 * words + 4096):
                    self._blocks.append(self._blocks.pop(i))  # most recently used last
                    return e[0][e[1]:e[1] + words], e[2]
            # forget the oldest blocks beyond the budget: idle ones are freed, those a
            # caller still views go when the caller drops them
            while self._blocks and (len(self._blocks) >= self.max_blocks or 4 * (words + 16) + sum(
                    e[0].nbytes for e in self._blocks) > self.max_bytes):
                self._blocks.pop(0)
            raw = np.empty(words + 16, dtype=np.uint32)
            at = raw.ctypes.data
            off = (-at % 64) // 4  # words to the first 64-byte boundary
            self._blocks.append([raw, off, at + 4 * off])
            return raw[off:off + words], at + 4 * off

    def clear(self) -> None:
        with self._lock:
            self._blocks.clear()


_pool = _Pool()


def clear_buffers() -> None:
    """Forget the pooled output and ring memory (it is freed once no result views it)."""
    _pool.clear()


@dataclass
class _Memo:
    """What ``emulate`` derives from a kernel once and reuses (``Kernel.memo``): on small
    streams (a 64² grid, tens of microseconds per step) rebuilding it per call cost as
    much as the sweep. The dictionaries are emptied when they grow past 64 entries."""

    feedback: dict[str, str] | None = None  # input port fed by each output port
    feedback_known: bool = False
    fed_rows: np.ndarray | None = None  # per input, the output row that feeds it
    keys: tuple | None = None  # slot, offset and phase of every read and store
    reg_names: list[str] | None = None
    layouts: dict = field(default_factory=dict)  # (stages, feed) -> lags, ring layout
    templates: dict = field(default_factory=dict)  # (layout, n, stages, a, b) -> _Template
    groups: dict = field(default_factory=dict)  # (n, steps, threads, group, fuse) -> sweeps
    stage_bytes: dict = field(default_factory=dict)  # feed -> ring bytes of one stage
    regs: dict = field(default_factory=dict)  # register values -> (array, address)


_memo_lock = threading.Lock()


def _memo(k: Kernel) -> _Memo:
    if k.memo is None:
        with _memo_lock:
            if k.memo is None:
                k.memo = _Memo()
    return k.memo


def _check_steps(steps: int) -> None:
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or steps < 1:
        raise SpgenError(f"steps must be a positive integer, got {steps!r}")


def _feedback(k: Kernel, steps: int) -> dict[str, str]:
    """Input port fed by each output port (memoised per kernel); an error if ``steps > 1``
    and the ports do not match."""
    m = _memo(k)
    if not m.feedback_known:
        m.feedback, m.feedback_known = feedback(k.plan.graph), True
    fb = m.feedback
    if steps == 1:
        return fb or {}
    if fb is None:
        graph = k.plan.graph
        fmt = lambda ps: ", ".join(f"{p.stream}.{p.name}:{p.type}" for p in ps) or "none"
        raise SpgenError(f"steps={steps} feeds the outputs of {graph.name} back as its inputs, "
                         f"so its output ports must match its input ports in number, stream "
                         f"and type, in order (inputs: {fmt(graph.inputs)}; outputs: "
                         f"{fmt([o.port for o in graph.outputs])})")
    return fb


def _fed_rows(k: Kernel, fb: dict[str, str]) -> np.ndarray:
    """Per input (``plan.in_slot`` order), the output row that feeds it in a cascade."""
    m = _memo(k)
    if m.fed_rows is None:
        plan = k.plan
        row = {o.port.name: i for i, o in enumerate(plan.graph.outputs)}
        src = {i: o for o, i in fb.items()}
        m.fed_rows = np.array([row[src[name]] for name in plan.in_slot], dtype=np.int64)
    return m.fed_rows


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_addressof, _char_at = ctypes.addressof, ctypes.c_char.from_buffer


def _ptr(a: np.ndarray) -> int:
    """The address of ``a``'s data. ``a.ctypes.data`` costs about 0.9 us; a call passes
    a dozen arrays, and small streams (a 64² grid) take only tens of microseconds."""
    try:
        return _addressof(_char_at(a))
    except (TypeError, ValueError):  # read-only or empty
        return a.ctypes.data


class _Sweep:
    """Tables for one thread's sweep of ``stages`` chained applications of the module.

    Everything but the buffer addresses depends only on the layout, the stream length
    and the slice ``[a, b)``: that part is built once (``_Template``) and copied.
    """

    def __init__(self, t: _Template, in_ptrs: np.ndarray, out_ptr: int, ring_words: int):
        """``in_ptrs``: input addresses in ``plan.in_slot`` order; ``out_ptr``: the output
        block (rows of ``_out_cols(n)`` words in ``graph.outputs`` order)."""
        # every ring of this sweep in one pooled block; a ring is written before it is
        # read wherever the result depends on it, so its initial contents do not matter
        self.keep, ring_ptr = _pool.take(ring_words)
        # the pool usually hands out the same blocks and callers pass the same arrays
        # again: the template keeps its last filled-in table
        key = (ring_ptr, out_ptr, in_ptrs.tobytes())
        last = t.last
        if last is not None and last[0] == key:
            tab = last[1].copy()
        else:
            tab = t.tab.copy()
            tab[t.ring_at] = ring_ptr + t.ring_bytes
            tab[t.in_at] = in_ptrs[t.in_src]
            tab[t.out_at] = out_ptr + t.out_bytes
            t.last = (key, tab.copy())
        self.tab = tab
        # block classes of the chunks, found by the first stage, reused by the later ones
        # (calloc: pages of chunks that no specialised loop tests are never touched)
        self.cls = np.zeros(t.cls_bytes, dtype=np.uint8)
        base = _ptr(tab)
        self.args = (*(base + x for x in t.args), t.stages, t.t0, t.t1, t.n)
        self.cls_ptr = _ptr(self.cls)

    def run(self, k: Kernel, flags: int, regs_ptr: int) -> None:
        """Run the sweep (once: it advances the offsets in its table)."""
        k.run(*self.args, flags, regs_ptr, self.cls_ptr)


class _Template:
    """The address-free part of a sweep's tables, one int64 array (see ``emit_module``):
    bases | offs | mods (stages x keys) | lags (stages x phases) | rng (stages x 4)."""

    def __init__(self, k: Kernel, n: int, stages: int, layout: tuple, a: int, b: int,
                 fb: dict[str, str]):
        plan = k.plan
        self.n, self.stages = n, stages
        self.cls_bytes = cls_bytes(plan, n)
        self.last = None  # (addresses, table filled in with them) of the latest call
        lag, ring_off, ring_mod, _words = layout
        # buffer of (stage, slot): a ring (word offset >= 0), an input array (stage 0),
        # the output arrays (last stage), or the next stage's input ring (other stages)
        off = ring_off.copy()
        mods = ring_mod.copy()
        src = np.zeros(off.shape, dtype=np.int64)  # 1 + input port index, or -1 - output row
        for i, (_name, slot) in enumerate(plan.in_slot.items()):
            off[0, slot], mods[0, slot], src[0, slot] = -1, 0, 1 + i
        out0 = min(plan.out_slot.values(), default=0)
        for name, slot in plan.out_slot.items():
            nxt = plan.in_slot[fb[name]] if stages > 1 else 0
            off[:-1, slot], mods[:-1, slot] = off[1:, nxt], mods[1:, nxt]
            off[-1, slot], mods[-1, slot], src[-1, slot] = -1, 0, -1 - (slot - out0)
        # stage j computes its slice plus the halo the later stages read
        rest = np.arange(stages, 0, -1, dtype=np.int64)
        lo = np.maximum(0, a - rest * plan.reach_past)
        hi = np.minimum(n, b + rest * plan.reach_future)
        rng = np.stack([lo, hi, lo, hi], axis=1)
        rng[-1, 2:] = (a, b)
        self.t0 = int((lo[:, None] + lag).min()) // CHUNK * CHUNK
        self.t1 = int((hi[:, None] + lag).max())
        # per key (read or store of a phase): its buffer, ring size and chunk offset at t0
        kslot, kd, kphase = _keys(k)
        km = mods[:, kslot]
        ring = km > 0
        pos = self.t0 - lag[:, kphase] - kd
        koff = np.where(ring, pos % np.where(ring, km, 1), pos)
        kmod = np.where(ring, km, NO_RING)
        kring, ksrc = off[:, kslot], src[:, kslot]
        parts = [kring, koff, kmod, lag, rng]
        at = [0]
        for x in parts:
            at.append(at[-1] + x.size)
        self.tab = np.zeros(at[-1], dtype=np.int64)
        for x, i, j in zip(parts[1:], at[1:-1], at[2:]):
            self.tab[i:j] = x.reshape(-1)
        flat_ring, flat_src = kring.reshape(-1), ksrc.reshape(-1)
        self.ring_at = np.flatnonzero(flat_ring >= 0)
        self.ring_bytes = 4 * flat_ring[self.ring_at]
        self.in_at = np.flatnonzero(flat_src > 0)
        self.in_src = flat_src[self.in_at] - 1  # index into plan.in_slot's order
        self.out_at = np.flatnonzero(flat_src < 0)
        self.out_bytes = 4 * _out_cols(n) * (-1 - flat_src[self.out_at])
        self.args = [8 * x for x in at[:5]]


def _template(k: Kernel, n: int, stages: int, layout: tuple, a: int, b: int,
              fb: dict[str, str]) -> _Template:
    key = (id(layout), n, stages, a, b)
    memo = _memo(k).templates
    t = memo.get(key)
    if t is None:
        if len(memo) > 64:
            memo.clear()
        t = memo[key] = _Template(k, n, stages, layout, a, b, fb)
    return t


# Words between buffers beyond alignment: consecutive output rows and rings then start
# at different addresses modulo 4 KiB, so loads of one and stores of another do not
# falsely alias in the store buffer (x86 compares the low 12 address bits first).
_STAGGER = 16


# Sweeps of at least this many stages use the chunk-uniform select specialisation
# (_spec.py): since the specialised loops are software-pipelined, single sweeps gain
# too. Tests set it high to run the kernels' plain fast loops.
_SPEC_STAGES = 1


def _out_cols(n: int) -> int:
    return -(-n // 16) * 16 + _STAGGER  # 64-byte aligned rows of the output block


def _keys(k: Kernel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Slot, offset and phase of every read and store, in ``koff`` order (memoised)."""
    m = _memo(k)
    if m.keys is None:
        plan = k.plan
        kb = key_counts(plan)
        rows = [(slot, d, p) for p in range(plan.n_phases)
                for slot, d in plan.reads[p] + [(sl, 0) for sl, _n in plan.stores[p]]]
        assert len(rows) == kb[-1]
        m.keys = tuple(np.array([r[i] for r in rows], dtype=np.int64).reshape(-1)
                       for i in range(3))
    return m.keys


def _layout(k: Kernel, stages: int, feed: dict[int, int]):
    """Lags and ring layout of a chain of ``stages`` (memoised: small streams are common).

    Returns the lags (stages x phases), each ring's word offset in the sweep's ring
    block (-1: no ring) and size (stages x slots), and the block's size in words.
    """
    key = (stages, tuple(sorted(feed.items())))
    memo = _memo(k).layouts
    if key not in memo:
        plan = k.plan
        lags = stage_lags(plan, stages, feed)
        sizes = ring_sizes(plan, lags, feed)
        off = np.full((stages, plan.n_slots), -1, dtype=np.int64)
        mod = np.zeros((stages, plan.n_slots), dtype=np.int64)
        at = 0
        for j in range(stages):
            for slot in range(plan.n_slots):
                if slot in sizes[j] or (slot < len(plan.in_slot) and j > 0):
                    size = sizes[j].get(slot, CHUNK)
                    off[j, slot], mod[j, slot] = at, size
                    at += size + CHUNK + _STAGGER  # + the mirrored first chunk
        lag = np.array(lags, dtype=np.int64).reshape(stages, plan.n_phases)
        memo[key] = (lag, off, mod, at)
    return memo[key]


def _feed(plan, fb: dict[str, str]) -> dict[int, int]:
    return {plan.in_slot[i]: plan.out_slot[o] for o, i in fb.items()}


class _Group(NamedTuple):
    """One fused sweep of a call: what it needs besides the call's arrays."""

    stages: int
    templates: list  # one _Template per thread's slice
    ring_words: int


def _groups(k: Kernel, n: int, steps: int, threads: int, group: int | None, fuse: bool,
            fb: dict[str, str]) -> list[_Group]:
    """The sweeps of a call, memoised: on small streams (a 64² grid, tens of
    microseconds per step) rebuilding them each call cost as much as the sweep."""
    key = (n, steps, threads, group, fuse)
    memo = _memo(k).groups
    out = memo.get(key)
    if out is None:
        group = 1 if not fuse else (group or _group_size(k, steps, fb))
        plan = k.plan
        feed = _feed(plan, fb)
        out, left = [], steps
        while left:
            stages = min(left, group)
            left -= stages
            layout = _layout(k, stages, feed)
            t = max(1, min(threads, (n * stages) // _MIN_PER_THREAD, n // (4 * CHUNK) or 1))
            bounds = [n * i // t for i in range(t + 1)]
            out.append(_Group(stages, [_template(k, n, stages, layout, bounds[i], bounds[i + 1], fb)
                                       for i in range(t)], max(1, layout[3])))
        if len(memo) > 64:
            memo.clear()
        memo[key] = out
    return out


def _sweep(k: Kernel, n: int, in_ptrs: np.ndarray, grp: _Group, regs_ptr: int
           ) -> tuple[np.ndarray, int]:
    """Run one fused group over inputs at ``in_ptrs`` (``plan.in_slot`` order); returns
    the output block (rows of ``_out_cols(n)`` words, ``graph.outputs`` order) and its
    address."""
    words = _out_cols(n) * len(k.plan.graph.outputs)
    block, out_ptr = _pool.take(words)
    sweeps = [_Sweep(t, in_ptrs, out_ptr, grp.ring_words) for t in grp.templates]
    # bit 0: streaming stores; bit 1: the specialised loops (_spec). Read per call, not
    # memoised with the group: both thresholds are module settings tests change.
    flags = int(4 * words >= _STREAM_BYTES) | 2 * (grp.stages >= _SPEC_STAGES)
    if len(sweeps) == 1:
        sweeps[0].run(k, flags, regs_ptr)
    else:
        # the calling thread takes the first slice, pooled workers the others
        futs = [_workers(len(sweeps) - 1).submit(s.run, k, flags, regs_ptr)
                for s in sweeps[1:]]
        sweeps[0].run(k, flags, regs_ptr)
        for f in futs:
            f.result()
    return block, out_ptr


_workers_lock = threading.Lock()
_executor: list = [None, 0]  # (ThreadPoolExecutor, its size)


def _workers(count: int) -> ThreadPoolExecutor:
    """A process-wide pool of at least ``count`` threads (starting threads per call costs
    about 50 us each)."""
    with _workers_lock:
        ex, size = _executor
        if ex is None or size < count:
            # a smaller pool is dropped, not shut down: a concurrent call may still submit
            # to it; its idle threads end once it is garbage
            _executor[:] = [ThreadPoolExecutor(count, thread_name_prefix="spgen-emulate"), count]
        return _executor[0]


def _group_size(k: Kernel, steps: int, fb: dict[str, str]) -> int:
    memo = _memo(k).stage_bytes
    key = tuple(sorted(fb.items()))
    if key not in memo:
        _lag, off, mod, _words = _layout(k, 2, _feed(k.plan, fb))
        memo[key] = 4 * int(np.sum(np.where(off[1] >= 0, mod[1] + CHUNK, 0)))  # stage 1 bytes
    return max(1, min(steps, _MAX_GROUP, _GROUP_BYTES // max(memo[key], 1)))


def emulate(graph: Graph, n: int, inputs: Mapping[str, np.ndarray], regs: Mapping[str, int], *,
            steps: int = 1, ftz: bool = False, threads: int | None = None, fuse: bool = True,
            group: int | None = None) -> dict[str, np.ndarray]:
    """Run ``graph`` natively on ``n`` elements, bit-exact with the generated hardware.

    Parameters
    ----------
    graph : the flattened, optimised top module (``spgen.passes.optimize``).
    n : stream length.
    inputs : ``{port name: uint32 bit patterns}`` as ``spgen._streams.check_inputs`` returns.
    regs : ``{register name: 32-bit pattern}`` as ``spgen._streams.parse_regs`` returns.
    steps : apply the module this many times, feeding outputs back as inputs (by position).
    ftz : flush subnormal operands and results to zero (``--ftz``).
    threads : worker threads (default: the CPUs this process may use).
    fuse : chain up to ``group`` steps in one sweep (temporal blocking); False runs
        one sweep per step over whole arrays (the reference path for the fused one).
    group : steps per fused sweep (default: as many as keep the line buffers in cache).

    Returns
    -------
    ``{output port name: uint32 array of n bit patterns}``.
    """
    _check_steps(steps)
    if threads is not None and (not isinstance(threads, (int, np.integer)) or threads < 1):
        raise SpgenError(f"threads must be a positive integer, got {threads!r}")
    k = get_kernel(graph, ftz)
    fb = _feedback(k, steps)
    if n == 0:
        return {o.port.name: np.zeros(0, dtype=np.uint32) for o in graph.outputs}
    plan = k.plan
    _keep, in_ptrs = _input_bits(plan, inputs, n)  # converted inputs live until we return
    reg_ptr = _regs_ptr(k, regs)
    groups = _groups(k, n, steps, threads or _default_threads(), group, fuse, fb)
    for grp in groups:
        block, out_ptr = _sweep(k, n, in_ptrs, grp, reg_ptr)
        if grp is not groups[-1]:
            # the outputs feed the next group's inputs (by position, see feedback)
            in_ptrs = out_ptr + 4 * _out_cols(n) * _fed_rows(k, fb)
    # output slots are numbered in the order of graph.outputs (plan.out_slot); the rows
    # of a 2-D view are views of the pooled block, as the pool's reuse test expects
    rows = block.reshape(len(plan.graph.outputs), _out_cols(n))[:, :n]
    return dict(zip([o.port.name for o in plan.graph.outputs], rows))


def _regs_ptr(k: Kernel, regs: Mapping[str, int]) -> int:
    """Address of the register values in a kernel-owned array (memoised per value set:
    building one costs more than the 64² sweep's own set-up)."""
    m = _memo(k)
    if m.reg_names is None:
        m.reg_names = [r.name for r in k.plan.graph.regs]
    key = tuple([regs[name] & 0xFFFFFFFF for name in m.reg_names])
    memo = m.regs
    hit = memo.get(key)
    if hit is None:
        if len(memo) > 64:
            memo.clear()
        arr = np.array(key or (0,), dtype=np.uint32)
        hit = memo[key] = (arr, _ptr(arr))
    return hit[1]


_U32 = np.dtype(np.uint32)


def _input_bits(plan, inputs: Mapping[str, np.ndarray], n: int) -> tuple[list, np.ndarray]:
    """The inputs (``plan.in_slot`` order) as contiguous uint32 arrays of ``n`` bit
    patterns, and their addresses."""
    arrs, ptrs = [], []
    for name in plan.in_slot:
        arr = inputs[name]
        if not (type(arr) is np.ndarray and arr.dtype is _U32 and arr.flags.c_contiguous):
            arr = np.ascontiguousarray(np.asarray(arr).view(np.uint32))
        if arr.shape != (n,):
            raise SpgenError(f"input {name!r}: expected {n} elements, got shape {arr.shape}")
        arrs.append(arr)
        ptrs.append(_ptr(arr))
    return arrs, np.array(ptrs, dtype=np.int64)
