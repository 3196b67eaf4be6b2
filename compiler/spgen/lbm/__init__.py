"""Host helpers for the D2Q9 LBM core: grids, record streams, running N steps."""
from ._grid import (E, FLUID, MOVING_WALL, OPP, RECORD_DTYPE, WALL, WEIGHTS, cavity, channel,
                    check_grid, closed_box, from_records, initial_f, macroscopic, to_records)
from ._run import CORE_PATH, as_core_input, as_records, compile_core, run_emulator

__all__ = ["E", "FLUID", "MOVING_WALL", "OPP", "RECORD_DTYPE", "WALL", "WEIGHTS", "cavity",
           "channel", "check_grid", "closed_box", "from_records", "initial_f", "macroscopic",
           "to_records", "CORE_PATH", "as_core_input", "as_records", "compile_core",
           "run_emulator"]
