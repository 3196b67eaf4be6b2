"""Verilog back end: schedule the IR, emit one self-contained pipelined core, simulate it."""
from ._core import REG_STRIDE, VerilogCore, csr_header, generate
from ._latency import check_instance_latencies, module_latency
from ._sim import Bundle, build, lint, simulate

__all__ = ["REG_STRIDE", "Bundle", "VerilogCore", "build", "check_instance_latencies",
           "csr_header", "generate", "lint", "module_latency", "simulate"]
