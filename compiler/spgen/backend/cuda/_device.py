"""Running the generated CUDA C on a GPU through CuPy (NVRTC, device memory, launches)."""
from __future__ import annotations

import os
import threading
from collections.abc import Mapping

import numpy as np

from ..._diagnostics import SpgenError
from ..._tools import cache_dir, content_hash
from ...ir import Graph
from .._plan import Plan, feedback, make_plan
from ._ptx import cubin, nvrtc_unavailable
from ._source import NVRTC_OPTIONS, THREADS, module_source, reaches

__all__ = ["Program", "cuda_unavailable", "get_program"]

# Fused cascades: the elements per thread of a work item (larger items spread the cost
# of taking a ticket and testing flags; a compile-time constant), the share of the L2
# cache its rings may take, and the steps per launch.
_ITEM_ELEMS = (4, 8)  # modules of at least / fewer than 32 operations
_RING_SHARE = float(os.environ.get("SPGEN_CUDA_RING_SHARE", "0.5"))
_FORCE_ITEM = int(os.environ.get("SPGEN_CUDA_ITEM_ELEMS", "0"))  # tuning: elements per thread
_MAX_GROUP = 16


def _cupy():
    """The cupy module, or a clear error naming what is missing."""
    reason = cuda_unavailable()
    if reason:
        raise SpgenError(f"--device cuda: {reason}")
    import cupy

    return cupy


_checked: list[str | None] = []


def cuda_unavailable() -> str | None:
    """Why no CUDA device can be used here (None: one can)."""
    if not _checked:
        try:
            import cupy
        except Exception as e:  # noqa: BLE001 -- ImportError or a broken CUDA install
            _checked.append(f"CuPy is not installed or cannot load ({type(e).__name__}: {e}); "
                            f"install the optional extra: pip install 'spgen[cuda]'")
        else:
            try:
                count = cupy.cuda.runtime.getDeviceCount()
                _checked.append(nvrtc_unavailable() if count > 0 else "no CUDA device found")
            except Exception as e:  # noqa: BLE001 -- CUDARuntimeError: no driver or device
                _checked.append(f"no usable CUDA driver or device ({e})")
    return _checked[0]


def _load(cp, source: str):
    """The kernels of ``source`` as a CuPy module: compiled by NVRTC with our options only
    (see ``_ptx``) for this GPU, the machine code cached on disk."""
    arch = f"sm_{cp.cuda.Device().compute_capability}"
    path = cache_dir("cuda") / f"{content_hash(source, arch, *NVRTC_OPTIONS)}.cubin"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(cubin(source, arch))
        tmp.replace(path)
    return cp.RawModule(path=str(path))


class Program:
    """A module compiled for the GPU: its kernels and how to chain them."""

    def __init__(self, graph: Graph, ftz: bool):
        cp = _cupy()
        self.cp = cp
        self.plan: Plan = make_plan(graph)
        self.graph = graph
        self.reg_names = [r.name for r in graph.regs]
        fb = feedback(graph)
        plan = self.plan
        # output slot -> input slot it feeds (cascades), None when the ports differ
        self.feed = None if fb is None else {
            plan.out_slot[o]: plan.in_slot[i] for o, i in fb.items()}
        self.item_elems = _FORCE_ITEM or _ITEM_ELEMS[len(plan.compute[0]) < 32]
        self.source = module_source(plan, ftz, self.reg_names, self.feed, self.item_elems)
        try:
            self.module = _load(cp, self.source)
            self.phases = [self.module.get_function(f"spg_phase{p}")
                           for p in range(plan.n_phases)]
            self.fused = (self.module.get_function("spg_fused")
                          if "spg_fused(" in self.source else None)
        except Exception as e:
            raise SpgenError(f"module {graph.name}: the CUDA kernels failed to build: {e}") from e
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        self.sms = int(props["multiProcessorCount"])
        self.l2 = int(props["l2CacheSize"])
        self.past, self.fut = reaches(plan, 0)

    # ---- buffers ------------------------------------------------------------------
    def _small(self, vals: tuple, dtype):
        """A small device array of ``vals`` (address tables, registers), memoised: a copy
        from the host costs more than a launch."""
        memo = self.__dict__.setdefault("_memo", {})
        key = (vals, dtype)
        if key not in memo:
            if len(memo) > 256:
                memo.clear()
            memo[key] = self.cp.asarray(np.array(vals, dtype=dtype))
        return memo[key]

    def _tab(self, addrs: list[int]):
        return self._small(tuple(addrs), np.uint64)

    def _regs(self, regs: Mapping[str, int]):
        return self._small(tuple(regs[name] & 0xFFFFFFFF for name in self.reg_names) or (0,),
                           np.uint32)

    def _grid(self, n: int) -> int:
        return max(1, min(-(-n // THREADS), self.sms * 64))

    # ---- one step: a launch per phase over whole arrays ---------------------------
    def step(self, n: int, ins: list, regs_d) -> list:
        """One application; ``ins`` device arrays in ``plan.in_slot`` order; returns the
        outputs in ``plan.out_slot`` order."""
        plan = self.plan
        # one allocation for the materialised signals and the outputs (each costs a few
        # microseconds of Python, as much as a step on a small grid)
        rows = list(self.cp.empty((len(plan.mat) + len(plan.out_slot), n), dtype=np.uint32))
        outs = rows[len(plan.mat):]
        tab = self._tab([a.data.ptr for a in ins + rows])
        for k in self.phases:
            k((self._grid(n),), (THREADS,), (tab, np.int64(n), regs_d))
        return outs

    # ---- fused cascades -------------------------------------------------------------
    def fused_layout(self, n: int, S: int, lag: int | None = None):
        """(C, L, K) of a fused cascade of ``S`` steps: chunk elements, lag and ring size in
        chunks (see ``_source.fused_kernel``).

        An item waits little when the items it depends on were taken about one
        residency of blocks earlier, both those it reads (lag) and those that read the
        ring chunk it overwrites (ring size beyond the lag), and the rings must stay in
        the L2 cache: the ring is the largest power of two within the budget, its
        slack split evenly between the two.
        """
        cell = 4 * len(self.plan.in_slot)
        budget = self.l2 * _RING_SHARE
        C = THREADS * self.item_elems
        pp, pf = -(-self.past // C), -(-self.fut // C)
        K = 0
        if lag is None:
            K = 1 << max(0, int(budget // (max(1, S - 1) * C * cell)).bit_length() - 1)
            lag = pf + max(0, K - pp - pf - 1) // 2
        L = max(pf, lag, 1)
        K = max(K, 1 << (pp + L).bit_length())  # a power of two >= pp + L + 1: no deadlock
        return C, L, K

    def cascade(self, n: int, ins: list, regs_d, S: int, lag: int | None = None) -> list:
        """``S`` steps in one launch; outputs in ``plan.in_slot`` (fed) order."""
        cp, P = self.cp, len(self.plan.in_slot)
        C, L, K = self.fused_layout(n, S, lag)
        chunks = -(-n // C)
        rings = cp.empty((max(S - 1, 0), P, K * C), dtype=cp.uint32)
        outs = [cp.empty(n, dtype=cp.uint32) for _ in range(P)]
        rows = [a.data.ptr for a in ins]
        for j in range(S - 1):
            rows += [rings[j, k].data.ptr for k in range(P)]
        rows += [a.data.ptr for a in outs]
        tab = self._tab(rows)
        sync = cp.zeros(1 + S * chunks, dtype=cp.uint32)
        items = S * (chunks + (S - 1) * L)
        self.fused((items,), (THREADS,),
                   (tab, np.int64(n), regs_d, sync, np.int32(S), np.int64(L), np.int64(K),
                    np.int64(chunks), np.uint64(K * C - 1)))
        return outs

    def run(self, n: int, ins: list, regs: Mapping[str, int], steps: int = 1,
            blocking: bool = False, group: int | None = None) -> list:
        """``steps`` applications on device arrays (``plan.in_slot`` order); returns the
        outputs in ``plan.out_slot`` order (device arrays).

        By default each step is one launch per phase over whole arrays (the cascade stays
        on the device). ``blocking``: up to ``group`` steps per launch of ``spg_fused``,
        temporal blocking in the L2 cache (one-phase modules; slower on the H100, see
        docs/gpu.md)."""
        plan = self.plan
        if steps > 1 and self.feed is None:
            raise SpgenError(
                f"steps={steps} feeds the outputs of {self.graph.name} back as its inputs, "
                f"so its output ports must match its input ports in number, stream and type, "
                f"in order")
        regs_d = self._regs(regs)
        order = sorted(plan.out_slot.values())
        if steps == 1 or not blocking or self.fused is None:
            cur = ins
            for s in range(steps):
                outs = self.step(n, cur, regs_d)
                if s == steps - 1:
                    return outs
                cur = self._fed(outs)
        g = group or _MAX_GROUP
        cur, done = ins, 0
        while done < steps:
            S = min(g, steps - done)
            cur = self.cascade(n, cur, regs_d, S) if S > 1 else self._fed(
                self.step(n, cur, regs_d))
            done += S
        # fed (input) order back to output order
        inv = {self.feed[o]: o for o in order}
        by_out = {inv[i]: a for i, a in enumerate(cur)}
        return [by_out[o] for o in order]

    def _fed(self, outs: list) -> list:
        """Outputs (``out_slot`` order) as the next step's inputs (``in_slot`` order)."""
        order = sorted(self.plan.out_slot.values())
        at = {self.feed[o]: a for o, a in zip(order, outs)}
        return [at[i] for i in range(len(self.plan.in_slot))]


_lock = threading.Lock()
_programs: dict[tuple[str, bool], Program] = {}


def get_program(graph: Graph, ftz: bool) -> Program:
    """The compiled program of ``graph`` (memoised by its printed IR and ``ftz``)."""
    key = (graph.to_text(), ftz)
    with _lock:
        prog = _programs.get(key)
        if prog is None:
            prog = _programs[key] = Program(graph, ftz)
        return prog
