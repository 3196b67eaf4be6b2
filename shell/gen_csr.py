"""Regenerate the CSR headers and docs from shell/csr_map.json (`--check`: fail if stale)."""
from __future__ import annotations

import sys

from spgen.shellgen import (
    SHELL_DIR,
    CsrMap,
    load_csr_map,
    render_c_header,
    render_markdown,
    render_verilog_header,
    write_generated,
)


def render_name_table(m: CsrMap) -> str:
    """Every register by name (C and C++): what the runtime resolves "CORE_PRIME_CYCLES" or
    "RDMA_ROUTE5" with, and what programs walk to list the registers and their fields."""
    p = m.name.upper()
    out = [(f"/* {p} register names: generated from shell/csr_map.json by shell/gen_csr.py; "
            "do not edit. */"),
           f"#ifndef {p}_CSR_NAMES_H", f"#define {p}_CSR_NAMES_H", "", "#include <stdint.h>", "",
           "/* A register, or an array of `count` registers `stride` bytes apart named NAME0,",
           " * NAME1, ...; access is ro, rw, wo (reads 0), w1c or wc. */",
           f"typedef struct {m.name}_csr_reg {{",
           "    const char *name;", "    uint32_t address;", "    uint32_t count;",
           "    uint32_t stride;", "    const char *access;", f"}} {m.name}_csr_reg_t;", "",
           "/* A bit field of a register (`reg` as the register table names it). */",
           f"typedef struct {m.name}_csr_field {{",
           "    const char *reg;", "    const char *name;", "    uint32_t lsb;", "    uint32_t width;",
           f"}} {m.name}_csr_field_t;", "",
           f"static const {m.name}_csr_reg_t {m.name}_csr_regs[] = {{"]
    out += [f'    {{"{r.full_name}", 0x{r.address:X}u, {r.count}u, {r.stride if r.count > 1 else 0}u, '
            f'"{r.access}"}},' for r in m.registers]
    out += ["};", f"#define {p}_CSR_REG_COUNT (sizeof {m.name}_csr_regs / sizeof {m.name}_csr_regs[0])",
            "", f"static const {m.name}_csr_field_t {m.name}_csr_fields[] = {{"]
    out += [f'    {{"{r.full_name}", "{f.name}", {f.lsb}u, {f.width}u}},'
            for r in m.registers for f in r.fields]
    out += ["};", f"#define {p}_CSR_FIELD_COUNT (sizeof {m.name}_csr_fields / sizeof {m.name}_csr_fields[0])",
            "", f"#endif /* {p}_CSR_NAMES_H */", ""]
    return "\n".join(out)


OUTPUTS = {
    SHELL_DIR / "include" / "afushell_csr.h": render_c_header,
    SHELL_DIR / "include" / "afushell_csr_names.h": render_name_table,
    SHELL_DIR / "afushell_csr.vh": render_verilog_header,
    SHELL_DIR.parent / "docs" / "shell_csr.md": render_markdown,
}


def main(argv: list[str]) -> int:
    m = load_csr_map()
    return write_generated({path: render(m) for path, render in OUTPUTS.items()}, argv,
                           "python shell/gen_csr.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
