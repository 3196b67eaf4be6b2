"""The emulator benchmark script: the goal table over several runs, and a smoke run."""
from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
import emulate_bench as eb


def _row(run, impl, steps, m):
    return {"core": "lbm_d2q9", "grid": 256, "impl": impl, "threads": 1, "steps": steps,
            "melem_s": m, "melem_cpu_s": m, "melem_cpu_s_best": m, "run": run}


def test_goal_table_gives_medians_ranges_and_runs_met():
    rows = []
    for run, (e, x) in enumerate([(110, 100), (90, 100), (120, 100)]):  # ratios 1.1, 0.9, 1.2
        rows += [_row(run, "spgen emulate", 16, e), _row(run, "lbmpy", 16, x),
                 _row(run, "spgen emulate", 1, 100), _row(run, "lbmpy", 1, 100)]
    lines = eb._versus(rows).splitlines()
    by_steps = {int(line.split("|")[3]): line for line in lines[2:]}
    assert "| 1.10 | 0.90-1.20 | 2 of 3 | met |" in by_steps[16]
    # one step: equal speed meets the goal (at least as fast); cascades must be faster
    assert "| 1.00 | 1.00-1.00 | 3 of 3 | met |" in by_steps[1]
    one = eb._versus([r for r in rows if r["run"] == 1])
    assert "| 0.90 | not met |" in one and "range" not in one


def test_smoke_run_writes_every_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(eb, "bandwidth_gbs", lambda threads: (10.0, 10.0))
    monkeypatch.setattr(eb, "_measure", functools.partial(eb._measure, min_s=0.0, budget_s=0.5))
    out = tmp_path / "bench.json"
    assert eb.main(["--only", "jacobi", "--grids", "64", "--steps", "1,2", "--threads", "1",
                    "--reps", "1", "--runs", "2", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    emu = [r for r in rows if r["impl"] == "spgen emulate"]
    assert sorted((r["run"], r["steps"]) for r in emu) == [(0, 1), (0, 2), (1, 1), (1, 2)]
    assert all(r["melem_s"] > 0 for r in rows)
    assert "Run 2 of 2" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        eb.main(["--runs", "0"])
