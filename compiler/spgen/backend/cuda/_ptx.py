"""PTX of the generated CUDA C through NVRTC (cuda-python), no GPU needed.

Used to check what the GPU will execute (no fused multiply-add, correctly rounded
division and square root, no flush-to-zero instructions) wherever NVRTC is installed.
"""
from __future__ import annotations

from ..._diagnostics import SpgenError
from ._source import NVRTC_OPTIONS

__all__ = ["nvrtc_unavailable", "ptx"]


def nvrtc_unavailable() -> str | None:
    """Why ``ptx`` cannot run here (None: it can)."""
    try:
        from cuda.bindings import nvrtc

        err, _major, _minor = nvrtc.nvrtcVersion()
        return None if err == nvrtc.nvrtcResult.NVRTC_SUCCESS else f"NVRTC: {err}"
    except Exception as e:  # noqa: BLE001 -- ImportError, library not found
        return f"NVRTC is not installed (pip install 'spgen[cuda]'): {type(e).__name__}: {e}"


def ptx(source: str, arch: str = "compute_90") -> str:
    """The PTX NVRTC makes of ``source`` with the back end's options for ``arch``."""
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
            size = check(nvrtc.nvrtcGetProgramLogSize(prog))
            log = b" " * size
            check(nvrtc.nvrtcGetProgramLog(prog, log))
            raise SpgenError(f"NVRTC failed: {log.decode(errors='replace')}")
        size = check(nvrtc.nvrtcGetPTXSize(prog))
        buf = b" " * size
        check(nvrtc.nvrtcGetPTX(prog, buf))
        return buf.decode().rstrip("\x00")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
