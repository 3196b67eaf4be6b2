"""Shared fixture: every test program compiled and built into ONE Verilator model."""
import pytest
from spgen.backend.verilog import build, generate
from verilog_suite import FTZ_PROGRAMS, HARD_FP_PROGRAMS, HERE, PROGRAMS, program_design


@pytest.fixture(scope="session")
def suite():
    """(designs, cores, bundle) keyed by program name (``<name>_ftz`` for --ftz variants,
    ``<name>_hfp`` for --hard-fp ones)."""
    designs = {p.stem: program_design(p) for p in PROGRAMS}
    designs.update({f"{s}_ftz": program_design(HERE / "programs" / f"{s}.spd", True)
                    for s in FTZ_PROGRAMS})
    designs.update({f"{s}_hfp": program_design(HERE / "programs" / f"{s}.spd", hard_fp=True)
                    for s in HARD_FP_PROGRAMS})
    cores = {k: generate(d.graph, ftz=d.ftz, hard_fp=d.hard_fp) for k, d in designs.items()}
    bundle = build(list(cores.values()))
    return designs, cores, bundle
