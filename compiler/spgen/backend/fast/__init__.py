"""Fast core model for card simulation: the core's port behaviour with the emulator's data."""
from ._model import FastCoreModel, FastModelUnsupported, fast_core_model, wrapper_verilog

__all__ = ["FastCoreModel", "FastModelUnsupported", "fast_core_model", "wrapper_verilog"]
