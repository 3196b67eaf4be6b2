"""`HDL` statements with an explicit latency: the number must equal the callee's pipeline latency."""
from __future__ import annotations

from spgen._diagnostics import CompileError, Diagnostics
from spgen.ir import Program

from ._schedule import schedule

__all__ = ["check_instance_latencies", "module_latency"]


def module_latency(program: Program, key: str, *, ftz: bool = False,
                   fast_math: bool = False, hard_fp: bool = False) -> int:
    """Cycles from input to output of module ``key`` compiled on its own (`latency_cycles`)."""
    from spgen.passes import optimize

    graph = optimize(Program(program.modules, key), ftz=ftz, fast_math=fast_math)
    best, _ = schedule(graph, hard_fp=hard_fp)
    return best.sink


def check_instance_latencies(program: Program, *, ftz: bool = False,
                             fast_math: bool = False, hard_fp: bool = False) -> None:
    """Raise CompileError at every SPD instance whose stated latency is not the real one.

    Instances are inlined and scheduled with their parent, so ``auto`` is always
    right; an explicit number states what the module costs on its own.
    """
    diags = Diagnostics()
    cache: dict[str, int] = {}
    for g in program.modules.values():
        for n in g.nodes:
            if n.op != "inst" or n.attrs.get("latency") is None:
                continue
            key = n.attrs["module"]
            if key not in cache:
                cache[key] = module_latency(program, key, ftz=ftz, fast_math=fast_math,
                                            hard_fp=hard_fp)
            want, said = cache[key], int(n.attrs["latency"])
            if want != said:
                loc = n.loc
                diags.error(f"module '{key}' has a pipeline latency of {want} cycles, the HDL "
                            f"statement '{n.attrs.get('label', '')}' says {said} (or write auto)",
                            loc.file if loc else None, loc.line if loc else 0,
                            loc.col if loc else 0)
    if diags.has_errors:
        if diags.items and diags.items[0].file:
            try:
                with open(diags.items[0].file, encoding="utf-8") as f:
                    diags.sources[diags.items[0].file] = f.read()
            except OSError:
                pass
        raise CompileError(diags)
