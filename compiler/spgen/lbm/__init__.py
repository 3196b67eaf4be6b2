"""Host helpers for the D2Q9 LBM core: grids, record streams, running N steps."""
from ._cards import MODES, CardsResult, run_cards
from ._cards_slabs import slab_layout
from ._grid import (
                    cavity,
                    channel,
                    check_grid,
                    closed_box,
                    from_records,
                    initial_f,
                    macroscopic,
                    to_records,
)
from ._layout import FLUID, MOVING_WALL, OPP, RECORD_BYTES, RECORD_DTYPE, WALL, WEIGHTS, E
from ._run import CORE_PATH, as_core_input, as_records, compile_core, run_card, run_emulator

__all__ = [
                    "CORE_PATH",
                    "FLUID",
                    "MODES",
                    "MOVING_WALL",
                    "OPP",
                    "RECORD_BYTES",
                    "RECORD_DTYPE",
                    "WALL",
                    "WEIGHTS",
                    "CardsResult",
                    "E",
                    "as_core_input",
                    "as_records",
                    "cavity",
                    "channel",
                    "check_grid",
                    "closed_box",
                    "compile_core",
                    "from_records",
                    "initial_f",
                    "macroscopic",
                    "run_card",
                    "run_cards",
                    "run_emulator",
                    "slab_layout",
                    "to_records",
]
