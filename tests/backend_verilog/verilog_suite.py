"""The test programs of the Verilog back end and the helpers the suites share."""
from pathlib import Path

import numpy as np
import spgen

__all__ = ["EXTERNS", "FTZ_PROGRAMS", "HARD_FP_PROGRAMS", "HERE", "PROGRAMS", "program_design"]

HERE = Path(__file__).parent
PROGRAMS = sorted((HERE / "programs").glob("*.spd"))
FTZ_PROGRAMS = ["f_addsub", "f_muldiv", "f_sqrt"]
# Built with f32 add, sub and mul in FP DSP blocks (--hard-fp) in the normal suite; the
# slow suite builds every program that has one of them.
HARD_FP_PROGRAMS = ["f_addsub", "f_muldiv", "jacobi", "shift_mixed"]


def _ext_mac(a, b):
    return (a + b).astype(np.uint32), (a ^ b).astype(np.uint32)


# Python models of the external Verilog modules, for the reference evaluator.
EXTERNS = {"ext_mac": _ext_mac}


def program_design(path: Path, ftz: bool = False, hard_fp: bool = False):
    d = spgen.compile(path, ftz=ftz, hard_fp=hard_fp)
    # one build holds every variant: names must differ
    if hard_fp:
        d.graph.name += "_hfp"
    elif ftz:
        d.graph.name += "_ftz"
    return d
