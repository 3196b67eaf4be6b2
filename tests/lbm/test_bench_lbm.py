"""`spgen bench lbm`: argument errors, the stall fit, and (slow) the resource report and a real run."""
import json

import pytest
from spgen.cli import main
from spgen.commands._bench_lbm import stall_fit
from spgen.fit import PUBLISHED_RESOURCES
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


@pytest.mark.slow
def test_bench_lbm_resources_maps_the_cascades(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["bench", "lbm", "--resources", "--cascade", "1,2", "--grid", "16x8",
                 "--no-progress", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    one, two = rows[0]["cores"], rows[1]["cores"]
    assert one["alms"] > 0 and two["alms"] >= 2 * one["alms"] - 100
    assert rows[1]["published"] == list(PUBLISHED_RESOURCES[2])
    assert "Cascades beside the published design" in capsys.readouterr().out


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
