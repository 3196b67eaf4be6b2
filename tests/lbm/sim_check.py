"""Verilator simulation against the emulator, shared by the core simulation tests."""
import numpy as np
from spgen.lbm import as_core_input, initial_f, to_records

__all__ = ["bits", "cascade_check", "feed_back", "perturbed_input"]


def bits(a: np.ndarray, nan_equal: bool = False) -> np.ndarray:
    """Every field's bits; with `nan_equal` every f32 NaN as one pattern (the contract makes
    all NaNs equal: x86, under the emulator, sets the sign of the NaNs it creates, the
    hard floating-point blocks do not)."""
    out = []
    for n in a.dtype.names:
        w = a[n].view(np.uint32)
        if nan_equal and a.dtype[n] == np.float32:
            w = np.where(np.isnan(a[n]), np.uint32(0x7FC00000), w)
        out.append(w)
    return np.stack(out)


def feed_back(design, out: np.ndarray) -> np.ndarray:
    """Outputs as the next application's inputs, ports paired by position."""
    x = np.empty(len(out), dtype=design.input_dtype())
    for src, dst in zip(out.dtype.names, x.dtype.names):
        x[dst] = out[src]
    return x


def cascade_check(design, x, regs, stall_seed=None, nan_equal: bool = False) -> np.ndarray:
    """Cascades of 1..4 (each output fed back as the next input): simulation == emulation
    at every depth; returns the last output as input."""
    for depth in range(1, 5):
        em = design.emulate(x, regs=regs)
        sim = design.simulate(x, regs=regs, stall_seed=stall_seed)
        assert np.array_equal(bits(em, nan_equal), bits(sim, nan_equal)), \
            f"{design.name} cascade depth {depth}"
        assert design.last_sim["elements"] == len(x)
        x = feed_back(design, sim)
    return x


def perturbed_input(design, attr: np.ndarray, seed: int, normal: bool = True):
    """The equilibrium populations of the cells `attr`, perturbed by 10 % noise (normal,
    else uniform): (populations, the core's input)."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal if normal else rng.random
    f0 = (initial_f(attr) * (1 + 0.1 * noise((9,) + attr.shape))).astype(np.float32)
    return f0, as_core_input(design, to_records(f0, attr))
