"""The test programs of the Verilog back end and the helpers the suites share."""
from pathlib import Path

import numpy as np
import spgen

__all__ = ["EXTERNS", "FTZ_PROGRAMS", "HERE", "PROGRAMS", "program_design"]

HERE = Path(__file__).parent
PROGRAMS = sorted((HERE / "programs").glob("*.spd"))
FTZ_PROGRAMS = ["f_addsub", "f_muldiv", "f_sqrt"]


def _ext_mac(a, b):
    return (a + b).astype(np.uint32), (a ^ b).astype(np.uint32)


# Python models of the external Verilog modules, for the reference evaluator.
EXTERNS = {"ext_mac": _ext_mac}


def program_design(path: Path, ftz: bool = False):
    d = spgen.compile(path, ftz=ftz)
    if ftz:
        d.graph.name += "_ftz"  # one build holds both variants: names must differ
    return d
