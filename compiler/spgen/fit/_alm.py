"""Mapped cell counts to Arria 10 resources: ALMs (a stated packing rule), M20K, bits, DSPs."""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields

__all__ = ["M20K_BITS", "PAC_AFU", "Resources", "m20k_blocks", "resources"]

M20K_BITS = 20 * 1024
# M20K aspect ratios (depth, width) a memory may be cut into.
_M20K_MODES = ((512, 40), (1024, 20), (2048, 10), (4096, 5), (8192, 2), (16384, 1))
# The Intel PAC's AFU region (Arria 10 GX 1150 less the FIM), the budget spgen's RTL fits in.
PAC_AFU = {"alms": 381_213, "bram_bits": 55_562_240, "m20k": 55_562_240 // M20K_BITS,
           "dsps": 1_518}


def m20k_blocks(width: int, depth: int) -> int:
    """M20K blocks for a width x depth memory: the best aspect ratio, whole blocks."""
    return min(-(-depth // d) * -(-width // w) for d, w in _M20K_MODES)


@dataclass
class Resources:
    """Resources of one unit or of a sum of them (ALMs packed per unit, then summed)."""

    alms: int = 0
    logic_alms: int = 0     # LUTs packed into ALMs (the rule in resources())
    ff_alms: int = 0        # registers / 4
    mlab_alms: int = 0      # ALMs used as LUT RAM
    lut6: int = 0
    lut5: int = 0
    lut4: int = 0
    lut_small: int = 0      # 1..3 inputs, inverters included
    arith: int = 0          # carry-chain LUT halves
    ffs: int = 0
    m20k: int = 0
    bram_bits: int = 0      # logical bits of the memories placed in M20K
    mlab_bits: int = 0
    dsps: float = 0         # 27x27 (or two 18x19) blocks, hard FP included
    hard_fp: int = 0        # of which hard floating-point DSPs (black boxes, no ALMs)

    def __add__(self, other: Resources) -> Resources:
        return Resources(**{f.name: getattr(self, f.name) + getattr(other, f.name)
                            for f in fields(self)})

    def __mul__(self, n: int) -> Resources:
        return Resources(**{f.name: getattr(self, f.name) * n for f in fields(self)})

    __rmul__ = __mul__

    def __sub__(self, other: Resources) -> Resources:
        return self + other * -1

    def to_json(self) -> dict:
        d = asdict(self)
        d["dsps"] = int(-(-d["dsps"] // 1))
        return d


def resources(cells: dict[str, int], memories: list[dict]) -> Resources:
    """Resources of one mapped unit.

    Packing (docs/fit.md): a 6-input LUT fills an ALM; a 5-input LUT takes an ALM and may
    share it with one LUT of at most 3 inputs (8 distinct inputs at most, whatever they
    share); 4-input and the remaining small LUTs pair two to an ALM; two carry-chain
    halves make an ALM; an ALM holds 4 registers, so ALMs >= registers / 4, and registers
    are assumed to pack with the logic (the larger of the two counts); a LUT-RAM column
    of 32 x 1 bits is half an ALM (an MLAB: 10 ALMs, 32 x 20)."""
    c = cells.get
    lut6, lut5, lut4 = c("MISTRAL_ALUT6", 0), c("MISTRAL_ALUT5", 0), c("MISTRAL_ALUT4", 0)
    small = c("MISTRAL_ALUT3", 0) + c("MISTRAL_ALUT2", 0) + c("MISTRAL_ALUT_LUT1", 0) \
        + c("MISTRAL_NOT", 0)
    arith, ffs, mlab = c("MISTRAL_ALUT_ARITH", 0), c("MISTRAL_FF", 0), c("MISTRAL_MLAB", 0)
    left = max(0, small - lut5)
    logic = lut6 + lut5 + -(-(lut4 + left) // 2) + -(-arith // 2)
    ff_alms = -(-ffs // 4)
    mlab_alms = -(-mlab // 2)
    dsps = c("MISTRAL_MUL27X27", 0) + 0.5 * (c("MISTRAL_MUL18X18", 0) + c("MISTRAL_MUL9X9", 0))
    return Resources(
        alms=max(logic, ff_alms) + mlab_alms, logic_alms=logic, ff_alms=ff_alms,
        mlab_alms=mlab_alms, lut6=lut6, lut5=lut5, lut4=lut4, lut_small=small, arith=arith,
        ffs=ffs, m20k=c("altsyncram", 0),
        bram_bits=sum(m["width"] * m["depth"] for m in memories if m["kind"] == "m20k"),
        mlab_bits=sum(m["width"] * m["depth"] for m in memories if m["kind"] == "mlab"),
        dsps=dsps)

