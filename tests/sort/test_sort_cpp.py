"""The C++ host side of the distributed sort (runtime/sort/include/afushell/sort.hpp): a
program linked against libafushell sorts on the network model and on RTL cards and checks
its result against std::stable_sort; a key type it cannot take does not compile."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from spgen.runtime._build import build_runtime

pytestmark = pytest.mark.xdist_group("sort")
ROOT = Path(__file__).resolve().parents[2]
INCLUDES = [f"-I{ROOT / d / 'include'}" for d in ("runtime/rdma", "runtime/sort", "runtime", "runtime/sim", "shell")]


@pytest.fixture(scope="module")
def sort_program(tmp_path_factory) -> Path:
    rt = build_runtime()
    exe = tmp_path_factory.mktemp("prog") / "sort_cluster"
    subprocess.run(["g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", str(ROOT / "runtime/sort/sort_cluster.cpp"),
                    *INCLUDES, f"-L{rt}", "-lafushell", f"-Wl,-rpath,{rt}", "-o", str(exe)], check=True)
    return exe


def _run(exe: Path, tmp_path: Path, spec: dict, *args: str) -> str:
    f = tmp_path / "cluster.json"
    f.write_text(json.dumps(spec))
    out = subprocess.run([str(exe), str(f), *args], capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return out.stdout


@pytest.mark.parametrize("cards", [2, 4])
def test_cpp_model(sort_program: Path, tmp_path: Path, cards: int) -> None:
    spec = {"topology": "fullmesh", "cards": cards, "faults": {"per": 0.01, "drop": 0.005}}
    out = _run(sort_program, tmp_path, spec, "20011", "u32", "3")
    assert "sorted: 20011 keys of 4 bytes, 0 wrong" in out and "scatter         network" in out
    assert "sorted: 7001 keys of 8 bytes, 0 wrong" in _run(sort_program, tmp_path, spec, "7001", "u64")
    assert "sorted: 1 keys" in _run(sort_program, tmp_path, spec, "1")
    for values in ("64", "1"):  # few key values: bins split evenly between the cards
        out = _run(sort_program, tmp_path, spec, "10007", "u32", "5", values)
        assert "sorted: 10007 keys of 4 bytes, 0 wrong" in out
        per_card = [int(x) for x in out.split("cards:")[1].split("\n")[0].split()]
        assert max(per_card) - min(per_card) <= 1


def test_cpp_absent_cards(sort_program: Path, tmp_path: Path) -> None:
    """distributed_sort over the present cards of a line of 3 whose last card is absent."""
    out = _run(sort_program, tmp_path, {"topology": "mesh", "dims": [3], "absent": [2]}, "999", "u32")
    assert "sorted: 999 keys of 4 bytes, 0 wrong" in out
    per_card = [int(x) for x in out.split("cards:")[1].split("\n")[0].split()]
    assert len(per_card) == 3 and per_card[2] == 0 and sum(per_card) == 999


def test_cpp_rtl_cards(sort_program: Path, tmp_path: Path, tmp_path_factory) -> None:
    """On RTL cards with the counting core, counting on the cards and on the host; cards
    without the core are refused with the reason."""
    from spgen.cli import main

    cards = tmp_path_factory.mktemp("cards")
    core = ROOT / "cores" / "sort" / "sort_rank.spd"
    assert main(["build", str(core), "--links", "4", "--op-timeout", "100000", "-o", str(cards / "rank4")]) == 0
    assert main(["build", "--loopback", "--links", "4", "--op-timeout", "100000", "-o", str(cards / "link4")]) == 0
    spec = {"topology": "fullmesh", "cards": 3, "card": str(cards / "rank4"), "faults": {"per": 0.01}}
    out = _run(sort_program, tmp_path, spec, "3001", "u32", "1", "0", "--count-on-cards")
    assert "sorted: 3001 keys of 4 bytes, 0 wrong" in out and "local counting  card" in out
    assert "sorted: 3001 keys" in _run(sort_program, tmp_path, spec, "3001", "u32", "2", "64", "--count-on-cards")
    assert "sorted: 3001 keys" in _run(sort_program, tmp_path, spec, "3001", "u32")
    f = tmp_path / "plain.json"
    f.write_text(json.dumps({"topology": "fullmesh", "cards": 2, "card": str(cards / "link4")}))
    bad = subprocess.run([str(sort_program), str(f), "100", "u32", "1", "0", "--count-on-cards"], capture_output=True,
                         text=True, timeout=300, check=False)
    assert bad.returncode == 1 and "the cards do not carry the counting core" in bad.stderr
    bad = subprocess.run([str(sort_program), str(f), "100", "u32", "1", "0", "--move-on-cards"], capture_output=True,
                         text=True, timeout=300, check=False)
    assert bad.returncode == 1 and "the cards carry no scatter writer" in bad.stderr


def test_cpp_moved_by_cards(sort_program: Path, tmp_path: Path, tmp_path_factory) -> None:
    """distributed_sort_on_cards on cards with the scatter writer: every key and payload
    moved by the cards, for the whole range, 64 values, one value, a narrow range and fewer
    keys than cards, uint64 keys, with faults, and with the key range known; cards without the writer and
    keys outside the known range are refused with the reason."""
    from spgen.cli import main

    card = tmp_path_factory.mktemp("cards") / "scatter4"
    assert main(["build", "--loopback", "--links", "4", "--sort-scatter", "--op-timeout", "100000",
                 "-o", str(card)]) == 0
    spec = {"topology": "fullmesh", "cards": 3, "card": str(card), "faults": {"per": 0.01}}
    for args in (("3001", "u32", "1", "0"), ("3001", "u32", "2", "64"), ("3001", "u32", "2", "1"), ("2", "u32"),
                 ("3001", "u32", "3", "40000"), ("3001", "u32", "4", "300")):   # 300 values: one 9-bit digit,
        # counted by destination in the grouping pass, which reads the range pass's copy in bank B
        out = _run(sort_program, tmp_path, spec, *args, "--move-on-cards")
        assert f"sorted: {args[0]} keys of 4 bytes, 0 wrong" in out and "group by card   card" in out
        assert "host" not in out.replace("prefix sums     host", "")
    out = _run(sort_program, tmp_path, spec, "3001", "u64", "5", "0", "--move-on-cards")   # uint64 keys with payloads
    assert "sorted: 3001 keys of 8 bytes, 0 wrong" in out and "local counting  card" in out
    # the range known: no range pass and no range exchange, and with 64 values no histogram
    # pass (one grouping pass into bins of fixed capacity); keys outside it are refused
    out = _run(sort_program, tmp_path, spec, "3001", "u32", "2", "64", "--key-range=1000,1063", "--move-on-cards")
    assert "sorted: 3001 keys of 4 bytes, 0 wrong" in out
    assert "range exchange" not in out and "histogram" not in out and "group by card   card" in out
    f = tmp_path / "cluster.json"
    narrow = subprocess.run([str(sort_program), str(f), "3001", "u32", "2", "64", "--key-range=1000,1030",
                             "--move-on-cards"], capture_output=True, text=True, timeout=300, check=False)
    assert narrow.returncode == 1 and "outside key_range 1000..1030" in narrow.stderr
    f = tmp_path / "rank.json"
    f.write_text(json.dumps({"topology": "fullmesh", "cards": 2}))
    bad = subprocess.run([str(sort_program), str(f), "100", "u32", "1", "0", "--move-on-cards"], capture_output=True,
                         text=True, timeout=300, check=False)
    assert bad.returncode == 1 and "the network model has no cards to move keys on" in bad.stderr


def test_cpp_refuses_other_key_types(tmp_path: Path) -> None:
    src = tmp_path / "bad.cpp"
    src.write_text("#include <afushell/sort.hpp>\nint main() { std::vector<int> o;\n"
                   "  return afushell::distributed_sort<int>(nullptr, nullptr, nullptr, 0, o, nullptr).code; }\n")
    out = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", *INCLUDES, str(src)], capture_output=True, text=True,
                         check=False)
    assert out.returncode != 0 and "takes uint32_t or uint64_t keys" in out.stderr
