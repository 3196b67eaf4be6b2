"""benchmarks/card_sim_speed.py: its table from result files, and (slow suite) a real run
of two depths handled side by side (--jobs) with the shortcuts on and off."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "card_sim_speed.py"


def _run(*args: str, timeout: int = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, check=False)


def test_merge_prints_one_table(tmp_path):
    results = ROOT / "benchmarks" / "results" / "card_sim_speed.json"
    out = _run("--merge", str(results), "--json", str(tmp_path / "m.json"))
    assert out.returncode == 0, out.stderr
    rows = [ln for ln in out.stdout.splitlines() if ln.startswith("| 12 |")]
    assert any("| fast |" in r for r in rows) and "vs before" in out.stdout
    merged = json.loads((tmp_path / "m.json").read_text())
    assert {r["model"] for r in merged["results"]} >= {"fast", "fast:plain", "fast:base"}


@pytest.mark.slow
def test_two_depths_at_once(tmp_path):
    out = _run("--cascade", "1,2", "--models", "fast,fast:plain", "--runs", "1", "--jobs", "2",
               "--json", str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stdout + out.stderr
    rows = json.loads((tmp_path / "r.json").read_text())["results"]
    assert sorted((r["cascade"], r["model"]) for r in rows) == [
        (1, "fast"), (1, "fast:plain"), (2, "fast"), (2, "fast:plain")]
    assert all(r["verified"] for r in rows)  # bit for bit against the emulator
    assert len({r["cpu"] for r in rows}) == min(2, len(os.sched_getaffinity(0)))
