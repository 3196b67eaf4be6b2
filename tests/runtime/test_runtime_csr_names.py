"""Every register of shell/csr_map.json by name, from Python, C and C++ (the runtime's name
table is generated from the map by shell/gen_csr.py)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from spgen import runtime
from spgen.runtime import AfuError
from spgen.shellgen import SHELL_DIR, load_csr_map

pytestmark = pytest.mark.xdist_group("runtime")
DATA = Path(__file__).with_name("data")
ROOT = SHELL_DIR.parent


def _map_names() -> dict[str, int]:
    """NAME -> address for every register of the map; array elements as NAME<i>."""
    out = {}
    for r in load_csr_map().registers:
        if r.count == 1:
            out[r.full_name] = r.address
        else:
            out.update({f"{r.full_name}{i}": r.address + i * r.stride for i in range(r.count)})
    return out


def test_python_reads_every_register_by_name(card) -> None:
    names = _map_names()
    assert names["CORE_PRIME_CYCLES"] == 0x438 and "RDMA_ROUTE63" in names and "SORT_CYCLES" in names
    for name, addr in names.items():
        assert card.reg_offset(name) == addr, name
        card.read_reg_bits(name)
    assert card.read_reg_bits("CORE_PRIME_CYCLES") == card.read_reg_bits(0x438)
    for wrong in ("CORE_REG256", "RDMA_ROUTE64", "RDMA_ROUTE01", "DFH0", "CORE_PRIME"):
        with pytest.raises(AfuError, match="no register named") as e:
            card.reg_offset(wrong)
        assert e.value.name == "UNKNOWN_REG"


@pytest.mark.parametrize("lang", ["c", "cpp"])
def test_c_and_cpp_read_every_register_by_name(lang, runtime_build, card_env, tmp_path) -> None:
    exe = tmp_path / f"walk_{lang}"
    cc = ["gcc", "-std=c99"] if lang == "c" else ["g++", "-std=c++17"]
    subprocess.run([*cc, "-Wall", "-Wextra", "-Werror", str(DATA / f"csr_walk.{lang}"),
                    f"-I{ROOT / 'runtime' / 'include'}", f"-I{ROOT / 'runtime' / 'sim' / 'include'}",
                    f"-I{SHELL_DIR / 'include'}",
                    f"-L{runtime_build}", "-lafushell", f"-Wl,-rpath,{runtime_build}", "-o", str(exe)],
                   check=True)
    r = subprocess.run([str(exe)], env=card_env, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    got = {n: int(a, 16) for n, a in (ln.split() for ln in r.stdout.splitlines())}
    assert got == _map_names()


def test_name_table_is_generated_from_the_map() -> None:
    text = (SHELL_DIR / "include" / "afushell_csr_names.h").read_text()
    assert "generated from shell/csr_map.json by shell/gen_csr.py" in text
    assert '{"CORE_PRIME_CYCLES", 0x438u, 1u, 0u, "ro"}' in text
    assert runtime.Card.reg_offset.__doc__
