"""backend/verilog."""
