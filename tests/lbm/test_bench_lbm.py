"""`spgen bench lbm`: argument errors, the stall fit, the resource estimate, and (slow) a real run."""
import json

import pytest
from spgen.cli import main
from spgen.commands._bench_lbm import PUBLISHED_RESOURCES, resource_estimate, stall_fit
from spgen.lbm import compile_core


@pytest.mark.parametrize("argv, msg", [
    (["--cascade", "0"], "depths must be 1..64"),
    (["--cascade", "a,b"], "expected depths"),
    (["--grid", "2x9"], "expected WxH"),
    (["--grid", "32"], "expected WxH"),
    (["--sizes", "-5"], "not a positive byte count"),
])
def test_bad_arguments_are_clear_errors(capsys, argv, msg):
    assert main(["bench", "lbm", "--no-progress", *argv]) == 1
    err = capsys.readouterr().err
    assert msg in err and "Traceback" not in err


def test_stall_fit_separates_startup_from_streaming_stalls():
    rows = [{"cascade": 2, "cells": n, "in_total_cycles": n + 90 + n // 100, "in_moved_cycles": n}
            for n in (1000, 4000, 16000)]
    (a, b), = stall_fit(rows).values()
    assert a == pytest.approx(90, abs=0.5) and b == pytest.approx(0.01, abs=1e-4)


def test_resource_estimate_scales_with_cascade_depth():
    report = compile_core(130).report
    rows = resource_estimate(report, [1, 2, 8], yosys=False)
    one = rows[0]
    assert one["delay_bits"] == report["delay_bits"]["minimised"]["total"] > 0
    assert one["fp_operators"] == 113            # fadd, fsub, fmul, fdiv of the core
    for r in rows:
        n = r["cascade"]
        assert r["ram_bits"] == n * one["ram_bits"] and r["operators"] == n * one["operators"]
        assert r["published"] == PUBLISHED_RESOURCES[n]


def test_resource_estimate_with_yosys_counts_gates():
    rows = resource_estimate(compile_core(16).report, [1, 4])
    assert rows[0]["yosys_operator_cells"] > rows[0]["yosys_operator_ffs"] > 0
    assert rows[1]["yosys_operator_cells"] == 4 * rows[0]["yosys_operator_cells"]


@pytest.mark.slow
def test_bench_lbm_runs_and_verifies(tmp_path, capsys):
    out = tmp_path / "b.json"
    rc = main(["bench", "lbm", "--cascade", "1", "--grid", "32x40", "--no-progress",
               "--json", str(out), "--plot", str(tmp_path / "b.png")])
    assert rc == 0
    data = json.loads(out.read_text())
    assert data["results"] and all(r["verified"] for r in data["results"])
    # armed runs: no input stalls at any size, effective GFLOPS = peak
    assert all(r["stall_rate_in"] <= 3e-4 and r["core_efficiency"] >= 0.999 for r in data["results"])
    assert (tmp_path / "b.png").stat().st_size > 10_000
    assert "bit-exact" in capsys.readouterr().out


@pytest.mark.slow
def test_run_card_equals_emulator():
    import numpy as np
    from spgen import SpgenError
    from spgen.commands._bench_lbm import _build
    from spgen.lbm import CORE_PATH, WALL, cavity, initial_f, run_card, run_emulator

    build = _build(CORE_PATH, 32, 1)     # the card `make demo` builds
    attr = cavity(32, 10)
    attr[4, 7] = WALL
    f = (initial_f(attr) * (1 + 0.02 * np.random.default_rng(0).random((9, 10, 32))))
    f = f.astype(np.float32)
    got, runs = run_card(build, f, attr, 5, omega=1.3, uw=(0.07, 0.01))
    want = run_emulator(compile_core(32), f, attr, 5, omega=1.3, uw=(0.07, 0.01))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)) and len(runs) == 3
    with pytest.raises(SpgenError, match="at least 2"):
        run_card(build, f, attr, 1)
