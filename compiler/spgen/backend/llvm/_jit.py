"""llvmlite JIT: optimise for the host CPU, keep object code in memory and on disk."""
from __future__ import annotations

import ctypes
import platform
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

from ..._tools import cache_dir, content_hash
from ...ir import Graph
from .._plan import CHUNK, Plan, make_plan
from . import _spec
from ._codegen import RUN_SYMBOL, emit_module

__all__ = ["Kernel", "clear_memory_cache", "get_kernel"]

# Bump when the generated code changes meaning, so stale objects on disk are ignored.
_CODEGEN_VERSION = "26"

# spg_run(bases, offs, mods, lags, rng, S, t0, t1, N, nt, regs, cls): see _codegen.emit_module
_RUN_TYPE = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 5, *[ctypes.c_int64] * 5,
                             ctypes.c_void_p, ctypes.c_void_p)


@dataclass
class Kernel:
    """A compiled module: its plan and the native sweep entry point."""

    plan: Plan
    run: object  # ctypes function, see _codegen.emit_module
    engine: object
    cached: bool  # object code came from the on-disk cache
    memo: object = None  # what emulate derives once per kernel (_run._Memo)


_lock = threading.Lock()
_memory: dict[str, Kernel] = {}
_tm = None


def _new_target_machine():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    # host CPU and features; IEEE behaviour comes from the IR (no fast-math flags)
    # and from the MXCSR reset done in spg_run, never from target options.
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                        features=llvm.get_host_cpu_features().flatten(),
                                        opt=3, jit=True)


def _target_machine():
    """The target machine used to generate code (never handed to an engine)."""
    global _tm
    if _tm is None:
        _tm = _new_target_machine()
    return _tm


def _compile_object(plan: Plan, ftz: bool, tm=None) -> bytes:
    """Object code of ``plan``'s kernel (``tm``: another target machine, e.g. for PIC)."""
    tm = tm or _target_machine()
    mod = emit_module(plan, ftz, platform.machine().lower() in ("x86_64", "amd64"))
    mod.triple = llvm.get_process_triple()
    mod.data_layout = str(tm.target_data)
    ref = llvm.parse_assembly(str(mod))
    ref.verify()
    pto = llvm.PipelineTuningOptions(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(ref, pb)
    return tm.emit_object(ref)


# Per graph object and mode (calls may alternate ftz or specialisation): the graph's
# version when the key was made, and the key. Printing a large graph costs milliseconds, so
# it is printed again only after the graph was edited (Graph.version moved), and then
# only if its printed form changed does the key change.
_keys: weakref.WeakKeyDictionary[Graph, dict] = weakref.WeakKeyDictionary()


def _cache_key(graph: Graph, ftz: bool) -> str:
    mode = (ftz, _spec.SPECIALISE, _spec.SUB)
    memo = _keys.get(graph)
    if memo is None:
        memo = _keys[graph] = {}
    hit = memo.get(mode)
    version = graph.version
    if hit is not None and hit[0] == version:
        return hit[1]
    key = _text_key(graph, ftz)
    memo[mode] = (version, key)
    return key


def _text_key(graph: Graph, ftz: bool) -> str:
    return content_hash(graph.to_text(), f"ftz={int(ftz)}", f"chunk={CHUNK}", _CODEGEN_VERSION,
                        f"spec={int(_spec.SPECIALISE)}/{_spec.SUB}",
                        llvmlite.__version__, llvm.get_process_triple(), llvm.get_host_cpu_name(),
                        llvm.get_host_cpu_features().flatten())


def get_kernel(graph: Graph, ftz: bool) -> Kernel:
    """The compiled kernel of ``graph`` (memory cache, then disk cache, then LLVM)."""
    key = _cache_key(graph, ftz)
    with _lock:
        k = _memory.get(key)
        if k is not None:
            return k
        plan = make_plan(graph)
        path = Path(cache_dir("llvm")) / f"{key}.o"
        cached = path.exists()
        obj = path.read_bytes() if cached else None
        if obj is None:
            obj = _compile_object(plan, ftz)
            tmp = path.with_suffix(f".tmp{threading.get_ident()}")
            tmp.write_bytes(obj)
            tmp.replace(path)  # atomic: parallel test workers may race on one key
        # an engine takes ownership of its target machine: give each one its own
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _new_target_machine())
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        addr = engine.get_function_address(RUN_SYMBOL)
        if not addr:
            raise RuntimeError(f"JIT: {RUN_SYMBOL} not found in cached object {path}")
        k = Kernel(plan, _RUN_TYPE(addr), engine, cached)
        _memory[key] = k
        return k


def clear_memory_cache() -> None:
    """Forget compiled kernels held in memory (the disk cache stays)."""
    with _lock:
        _memory.clear()
