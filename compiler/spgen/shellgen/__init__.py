"""AFU shell generation: CSR map headers, core wrapper, hardware project files."""
from ._csr import (CSR_MAP_PATH, SHELL_DIR, CsrMap, Field, Register, load_csr_map,
                   render_c_header, render_markdown, render_verilog_header)

__all__ = ["CSR_MAP_PATH", "SHELL_DIR", "CsrMap", "Field", "Register", "load_csr_map",
           "render_c_header", "render_markdown", "render_verilog_header"]
