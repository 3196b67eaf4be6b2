"""benchmarks/sort_plan_cpu.py: the sort's plan (afushell/sort_plan.h) compiled for a PicoRV32
and run in Verilator gives every card the host's plan (the testbench compares them piece by
piece and exits 1 on a difference), and its figures reach the table and the JSON."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "sort_plan_cpu.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=900, check=False)


def test_processor_plans_as_the_host(tmp_path):
    cases = ("random uint32", "zipf uint32", "64 values", "256 values")
    out = _run("--cards", "1,3,8", "--keys", "5000", "--cases", ",".join(cases), "--json", str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    rows = json.loads((tmp_path / "r.json").read_text())["rows"]
    assert [(r["case"], r["cards"]) for r in rows] == [(c, n) for c in cases for n in (1, 3, 8)]
    for r in rows:
        assert r["same"] and r["exact"] == r["case"].endswith("values")
        # a piece per destination without exact; every card's plan was read back
        assert r["pieces"] >= (r["cards"] ** 2 if not r["exact"] else r["cards"])
        assert r["cpu_cycles"] > r["cpu_instructions"] > 0 and r["host_us_one_card"] > 0
    assert "| 64 values | 3 | yes |" in out.stdout
    # every bin of every card holds keys: the most pieces, 256 + 7 a card at most
    assert 8 * 256 <= next(r["pieces"] for r in rows if r["case"] == "256 values" and r["cards"] == 8) <= 8 * 263


def test_bad_arguments_are_named():
    out = _run("--cards", "9")
    assert out.returncode == 2 and "--cards takes counts from 1 to 8" in out.stderr
    out = _run("--cases", "sorted")
    assert out.returncode == 2 and "unknown case 'sorted'" in out.stderr
