"""CSR map of the AFU shell: load shell/csr_map.json, check it, emit C/Verilog headers and docs."""
from __future__ import annotations

import functools
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from .._diagnostics import SpgenError
from .._paths import shell_dir

__all__ = [
    "CSR_MAP_PATH",
    "SHELL_DIR",
    "CsrMap",
    "Field",
    "Register",
    "card_clock_mhz",
    "load_csr_map",
    "render_c_header",
    "render_markdown",
    "render_verilog_header",
]

SHELL_DIR = shell_dir()
CSR_MAP_PATH = SHELL_DIR / "csr_map.json"
_ACCESS = {"ro": "read-only", "rw": "read/write", "wo": "write-only action (reads 0)",
           "w1c": "read; write 1 to clear a bit", "wc": "read; any write clears"}


@dataclass(frozen=True)
class Field:
    name: str
    lsb: int
    width: int
    description: str

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lsb


@dataclass(frozen=True)
class Register:
    block: str          # block name (fields are shared by every instance of a block)
    prefix: str         # instance prefix, e.g. "TX_"
    name: str           # register name inside the block
    address: int        # absolute byte address (first element for arrays)
    offset: int         # offset inside the block
    access: str
    reset: str
    description: str
    fields: tuple[Field, ...] = ()
    count: int = 1
    stride: int = 8

    @property
    def full_name(self) -> str:
        return f"{self.prefix}{self.name}"


@dataclass
class CsrMap:
    name: str
    version: tuple[int, int]
    mmio_bytes: int
    afu_id: uuid.UUID
    constants: list[tuple[str, int, str]]
    blocks: list[dict]
    registers: list[Register] = field(default_factory=list)

    @property
    def afu_id_l(self) -> int:
        return self.afu_id.int & ((1 << 64) - 1)

    @property
    def afu_id_h(self) -> int:
        return self.afu_id.int >> 64

    def reg(self, full_name: str) -> Register:
        for r in self.registers:
            if r.full_name == full_name:
                return r
        raise KeyError(full_name)

    def constant(self, name: str) -> int:
        for n, v, _ in self.constants:
            if n == name:
                return v
        raise KeyError(name)


def _int(v: object, what: str) -> int:
    try:
        return int(v, 0) if isinstance(v, str) else int(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise SpgenError(f"csr map: {what}: not an integer: {v!r}") from None


def load_csr_map(path: Path = CSR_MAP_PATH) -> CsrMap:
    """Read and check the map: 8-byte aligned, in range, no overlaps, fields inside 64 bits."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise SpgenError(f"csr map {path}: {e}") from None
    for key in ("name", "version", "mmio_bytes", "afu_id", "constants", "blocks"):
        if key not in doc:
            raise SpgenError(f"csr map {path}: missing key {key!r}")
    major, minor = (int(x) for x in str(doc["version"]).split("."))
    m = CsrMap(doc["name"], (major, minor), _int(doc["mmio_bytes"], "mmio_bytes"),
               uuid.UUID(doc["afu_id"]),
               [(c["name"], _int(c["value"], c["name"]), c["description"]) for c in doc["constants"]],
               doc["blocks"])
    used: dict[int, str] = {}
    for blk in doc["blocks"]:
        for inst in blk["instances"]:
            base = _int(inst["base"], f"{blk['name']} base")
            for r in blk["registers"]:
                if r["access"] not in _ACCESS:
                    raise SpgenError(f"csr map: {r['name']}: unknown access {r['access']!r}")
                off = _int(r["offset"], r["name"])
                fields = tuple(Field(f["name"], int(f["lsb"]), int(f["width"]), f["description"])
                               for f in r.get("fields", ()))
                bits = 0
                for f in fields:
                    if f.width < 1 or f.lsb + f.width > 64 or bits & f.mask:
                        raise SpgenError(f"csr map: {r['name']}.{f.name}: field outside 64 bits or overlapping")
                    bits |= f.mask
                reg = Register(blk["name"], inst["prefix"], r["name"], base + off, off, r["access"],
                               str(r.get("reset", "0x0")), r["description"], fields,
                               int(r.get("count", 1)), int(r.get("stride", 8)))
                for i in range(reg.count):
                    a = reg.address + i * reg.stride
                    if a % 8 or a >= m.mmio_bytes:
                        raise SpgenError(f"csr map: {reg.full_name}: address {a:#x} unaligned or out of range")
                    if a in used:
                        raise SpgenError(f"csr map: {reg.full_name} overlaps {used[a]} at {a:#x}")
                    used[a] = reg.full_name
                m.registers.append(reg)
    return m


def _c(n: int) -> str:
    return f"0x{n:X}ull" if n > 0xFFFF else f"0x{n:X}"


def render_c_header(m: CsrMap) -> str:
    p = m.name.upper()
    out = [(f"/* {p} CSR map v{m.version[0]}.{m.version[1]}: generated from shell/csr_map.json "
            "by shell/gen_csr.py; do not edit. */"),
           f"#ifndef {p}_CSR_H", f"#define {p}_CSR_H", "", "#include <stdint.h>", "",
           f"#define {p}_CSR_VERSION_MAJOR {m.version[0]}",
           f"#define {p}_CSR_VERSION_MINOR {m.version[1]}",
           f"#define {p}_MMIO_BYTES {_c(m.mmio_bytes)}",
           f'#define {p}_AFU_ID "{m.afu_id}"',
           f"#define {p}_AFU_ID_VALUE_L 0x{m.afu_id_l:016X}ull",
           f"#define {p}_AFU_ID_VALUE_H 0x{m.afu_id_h:016X}ull", ""]
    for n, v, d in m.constants:
        out.append(f"#define {p}_{n} {_c(v)}  /* {d} */")
    for blk in m.blocks:
        out += ["", f"/* {blk['name']}: {blk['description']} */"]
        insts = blk["instances"]
        if len(insts) > 1:
            for inst in insts:
                out.append(f"#define {p}_{inst['prefix']}BASE {_c(_int(inst['base'], 'base'))}")
        seen_fields: set[str] = set()
        for r in (r for r in m.registers if r.block == blk["name"]):
            if r.count > 1:
                out.append(f"#define {p}_{r.full_name}(i) ({_c(r.address)} + {r.stride} * (i))"
                           f"  /* {r.access}: {r.description} */")
                out.append(f"#define {p}_{r.full_name}_COUNT {r.count}")
            else:
                out.append(f"#define {p}_{r.full_name} {_c(r.address)}  /* {r.access} */")
            if len(insts) > 1 and r.name not in seen_fields:
                out.append(f"#define {p}_{blk['name']}_{r.name} {_c(r.offset)}  /* offset in block */")
            if r.name in seen_fields:
                continue
            seen_fields.add(r.name)
            fp = f"{blk['name']}_{r.name}" if len(insts) > 1 else r.full_name
            for f in r.fields:
                out.append(f"#define {p}_{fp}_{f.name}_SHIFT {f.lsb}")
                out.append(f"#define {p}_{fp}_{f.name}_MASK 0x{f.mask:X}ull")
    out += ["", "/* One in-memory descriptor for chaining: the six DESC_* words in register order. */",
            f"typedef struct {m.name}_desc {{",
            "    uint64_t src;     /* DESC_SRC */",
            "    uint64_t dst;     /* DESC_DST */",
            "    uint32_t len;     /* DESC_LEN.LENGTH */",
            "    uint32_t rsvd0;",
            "    uint32_t stride;  /* DESC_STRIDE.STRIDE */",
            "    uint32_t count;   /* DESC_STRIDE.COUNT */",
            "    uint64_t next;    /* DESC_NEXT */",
            "    uint32_t ctrl;    /* DESC_CTRL (GO ignored) */",
            "    uint32_t rsvd1;",
            "    uint64_t rsvd2[2];",
            f"}} {m.name}_desc_t;",
            "#if defined(__cplusplus)",
            f"static_assert(sizeof({m.name}_desc_t) == {p}_DESC_BYTES, \"descriptor is one beat\");",
            "#else",
            f"_Static_assert(sizeof({m.name}_desc_t) == {p}_DESC_BYTES, \"descriptor is one beat\");",
            "#endif", "", f"#endif /* {p}_CSR_H */", ""]
    return "\n".join(out)


def render_verilog_header(m: CsrMap) -> str:
    out = ["// CSR map generated from shell/csr_map.json by shell/gen_csr.py; do not edit.",
           "// Included inside module bodies: byte addresses, field positions, error codes.",
           "/* verilator lint_off UNUSEDPARAM */"]
    for n, v, _ in m.constants:
        if v < (1 << 31):
            out.append(f"localparam integer CSR_{n} = {v};")
    for r in m.registers:
        out.append(f"localparam [17:0] CSR_{r.full_name}_ADDR = 18'h{r.address:05x};")
    out.append(f"localparam integer CSR_CORE_REG_COUNT = {m.reg('CORE_REG').count};")
    seen: set[str] = set()
    for r in m.registers:
        key = f"{r.block}_{r.name}" if r.prefix.endswith("X_") else r.full_name
        if key in seen:
            continue
        seen.add(key)
        for f in r.fields:
            out.append(f"localparam integer CSR_{key}_{f.name}_LSB = {f.lsb};")
            out.append(f"localparam integer CSR_{key}_{f.name}_WIDTH = {f.width};")
    out.append(f"localparam [63:0] CSR_AFU_ID_L = 64'h{m.afu_id_l:016x};")
    out.append(f"localparam [63:0] CSR_AFU_ID_H = 64'h{m.afu_id_h:016x};")
    out.append(f"localparam [7:0] CSR_VERSION_MAJOR = 8'd{m.version[0]};")
    out.append(f"localparam [7:0] CSR_VERSION_MINOR = 8'd{m.version[1]};")
    out.append("/* verilator lint_on UNUSEDPARAM */")
    return "\n".join(out) + "\n"


def render_markdown(m: CsrMap) -> str:
    out = [f"# {m.name} CSR map v{m.version[0]}.{m.version[1]}", "",
           ("Every register of the AFU shell that a host reads or writes over MMIO: its "
            "offset, access and fields. Host programs use the names, not the offsets: "
            "`card.read_reg(\"CYCLES\")` in Python, `afuShellReadReg(h, \"CYCLES\", &v)` in C, "
            "the constants of `shell/include/afushell_csr.h` ([runtime](runtime.md), "
            "\"Registers\"); what the registers do is in [shell.md](shell.md)."), "",
           ("Generated from `shell/csr_map.json` by `shell/gen_csr.py`; do not edit."), "",
           (f"64-bit registers at 8-byte aligned byte offsets in a {m.mmio_bytes // 1024} KiB "
            f"MMIO space. AFU ID `{m.afu_id}`."), "",
           "Access: " + "; ".join(f"`{k}` {v}" for k, v in _ACCESS.items()) + ".", "",
           "## Constants", "", "| name | value | meaning |", "|---|---|---|"]
    # small values (codes, sizes, the clock) in decimal, addresses and masks in hex
    out += [f"| `{n}` | {v if v < 0x10000 else hex(v)} | {d} |" for n, v, d in m.constants]
    for blk in m.blocks:
        bases = ", ".join(f"`{i['prefix'] or blk['name']}` at {i['base']}" for i in blk["instances"])
        out += ["", f"## {blk['name']} ({bases})", "", blk["description"], "",
                "| offset | register | access | reset | description |", "|---|---|---|---|---|"]
        for r in blk["registers"]:
            off = _int(r["offset"], r["name"])
            name = r["name"] + ("(i)" if r.get("count", 1) > 1 else "")
            out.append(f"| {off:#05x} | `{name}` | {r['access']} | {r.get('reset', '0x0')} | {r['description']} |")
            for f in r.get("fields", ()):
                hi = f["lsb"] + f["width"] - 1
                bits = f"[{hi}:{f['lsb']}]" if f["width"] > 1 else f"[{f['lsb']}]"
                out.append(f"| | `.{f['name']}` {bits} | | | {f['description']} |")
    return "\n".join(out) + "\n"


@functools.cache
def card_clock_mhz() -> int:
    """The card's one clock (shell, cores, RDMA block), MHz: the map's ``CLOCK_MHZ``."""
    return load_csr_map().constant("CLOCK_MHZ")
