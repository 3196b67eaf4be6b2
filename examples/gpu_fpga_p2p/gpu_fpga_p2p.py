"""GPU -> FPGA -> GPU with no CPU in the data path: the card pulls a block from GPU memory
and pushes the result back, building its own descriptors (card-initiated DMA), beside the
CPU-staged path. With CuPy and an NVIDIA GPU the blocks are real GPU memory; otherwise the
simulated card's peer device stands in for the GPU.

    python examples/gpu_fpga_p2p/gpu_fpga_p2p.py [--size BYTES] [--simulated-gpu]
"""
from __future__ import annotations

import argparse

import numpy as np
from spgen import runtime

FPGA_A, FPGA_B = 0x0, 1 << 32


def gpu_buffers(card, n: int, simulated: bool):
    """Source (filled with a pattern) and destination peer buffers, and a reader for the latter."""
    pattern = (np.arange(n // 4, dtype=np.uint64) * 2654435761 & 0xFFFFFFFF).astype(np.uint32)
    if not simulated:
        from spgen.backend.cuda import cuda_unavailable

        if cuda_unavailable() is None:
            import cupy as cp

            src = cp.asarray(pattern)        # made by the GPU's copy engine, in GPU memory
            dst = cp.zeros_like(src)
            cp.cuda.Device().synchronize()
            return card.peer_register(src), card.peer_register(dst), lambda: cp.asnumpy(dst), pattern, "GPU"
    src, dst = card.peer_alloc(n), card.peer_alloc(n)
    src.write(pattern)
    return src, dst, lambda: dst.read().view(np.uint32), pattern, "simulated GPU"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1 << 20, help="bytes per block (a multiple of 4)")
    ap.add_argument("--simulated-gpu", action="store_true", help="simulated peer memory even with a GPU")
    args = ap.parse_args()
    n = args.size
    if n <= 0 or n % 4:
        raise SystemExit(f"--size {n}: a positive multiple of 4 bytes")
    with runtime.open("loopback") as card:
        src, dst, read_dst, want, what = gpu_buffers(card, n, args.simulated_gpu)
        ns = 1000 / card.sim_params()["clock_mhz"]
        pull = card.card_dma(FPGA_A, src, n, "P2F")     # GPU -> FPGA memory A, issued by the card
        card.dma(FPGA_B, FPGA_A, n, "F2F")               # stands in for a core on a loop-back card
        push = card.card_dma(dst, FPGA_B, n, "F2P")      # FPGA memory B -> GPU, issued by the card
        ok = np.array_equal(read_dst(), want)
        staged = card.peer_staged(FPGA_A, src, n, "P2F")
        print(f"{what}: {n} B GPU->FPGA {pull.last_cycles * ns / 1e3:.2f} us "
              f"({n / (pull.last_cycles * ns):.2f} GB/s), FPGA->GPU {push.last_cycles * ns / 1e3:.2f} us "
              f"({n / (push.last_cycles * ns):.2f} GB/s); CPU-staged GPU->FPGA {staged / 1e3:.2f} us; "
              f"round trip {'intact' if ok else 'CORRUPTED'}")
        if not ok:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
