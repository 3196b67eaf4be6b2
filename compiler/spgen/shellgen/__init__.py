"""AFU shell generation: CSR map headers, core wrapper, hardware project files."""
from ._check import check_project, lint_verilog
from ._csr import (
                   CSR_MAP_PATH,
                   SHELL_DIR,
                   CsrMap,
                   Field,
                   Register,
                   card_clock_mhz,
                   load_csr_map,
                   render_c_header,
                   render_markdown,
                   render_verilog_header,
)
from ._generated import write_generated
from ._project import Project, afu_top_ports, write_project
from ._wrapper import CoreInterface, core_interface, cores_wrapper

__all__ = [
                   "CSR_MAP_PATH",
                   "SHELL_DIR",
                   "CoreInterface",
                   "CsrMap",
                   "Field",
                   "Project",
                   "Register",
                   "afu_top_ports",
                   "card_clock_mhz",
                   "check_project",
                   "core_interface",
                   "cores_wrapper",
                   "lint_verilog",
                   "load_csr_map",
                   "render_c_header",
                   "render_markdown",
                   "render_verilog_header",
                   "write_generated",
                   "write_project",
]
