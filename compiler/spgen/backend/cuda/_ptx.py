"""The generated CUDA C compiled by NVRTC (cuda-python), with the back end's options only.

The kernels are compiled here, not by CuPy's ``RawModule(code=...)``: that route adds
``-ftz=true`` to the options, and the GPU then flushes subnormal operands (seen on an
H100). ``ptx`` needs no GPU, so the tests check what the GPU will execute (no fused
multiply-add, correctly rounded division and square root, no flush-to-zero) wherever
NVRTC is installed; ``cubin`` gives the machine code that CuPy loads.
"""
from __future__ import annotations

from ..._diagnostics import SpgenError
from ._source import NVRTC_OPTIONS

__all__ = ["cubin", "nvrtc_unavailable", "ptx"]


def nvrtc_unavailable() -> str | None:
    """Why NVRTC cannot run here (None: it can)."""
    try:
        from cuda.bindings import nvrtc

        err, _major, _minor = nvrtc.nvrtcVersion()
        return None if err == nvrtc.nvrtcResult.NVRTC_SUCCESS else f"NVRTC: {err}"
    except Exception as e:  # noqa: BLE001 -- ImportError, library not found
        return f"NVRTC is not installed (pip install 'spgen[cuda]'): {type(e).__name__}: {e}"


def _compile(source: str, arch: str, what: str) -> bytes:
    from cuda.bindings import nvrtc

    def check(res):
        err, *rest = res
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise SpgenError(f"NVRTC: {err}")
        return rest[0] if rest else None

    prog = check(nvrtc.nvrtcCreateProgram(source.encode(), b"spgen.cu", 0, [], []))
    try:
        opts = [o.encode() for o in NVRTC_OPTIONS] + [f"--gpu-architecture={arch}".encode()]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            log = b" " * check(nvrtc.nvrtcGetProgramLogSize(prog))
            check(nvrtc.nvrtcGetProgramLog(prog, log))
            raise SpgenError(f"NVRTC failed: {log.decode(errors='replace')}")
        size_fn, get_fn = ((nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX) if what == "ptx"
                           else (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN))
        buf = b" " * check(size_fn(prog))
        check(get_fn(prog, buf))
        return buf
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def ptx(source: str, arch: str = "compute_90") -> str:
    """The PTX of ``source`` for a virtual architecture (``compute_XY``)."""
    return _compile(source, arch, "ptx").decode().rstrip("\x00")


def cubin(source: str, arch: str) -> bytes:
    """Machine code of ``source`` for a real architecture (``sm_XY``)."""
    return _compile(source, arch, "cubin")
