"""`spgen bench dma --quick`: table, JSON and plot from a short sweep."""
from __future__ import annotations

import json

import pytest
from spgen.cli import main

pytestmark = pytest.mark.xdist_group("runtime")


def test_bench_dma_quick(loopback_lib, tmp_path, capsys):
    out, png = tmp_path / "dma.json", tmp_path / "dma.png"
    assert main(["bench", "dma", "--quick", "--no-progress", "--json", str(out), "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "published (Intel PAC)" in text and "M cycles/s" in text
    doc = json.loads(out.read_text())
    assert doc["benchmark"] == "dma" and doc["key"] == ["type", "bytes"]
    recs = doc["records"]
    assert {r["type"] for r in recs} == {"F2F", "H2F", "F2H", "H2H"}
    assert all(r["integrity_errors"] == 0 and r["reps"] == 2 for r in recs)
    for t in ("F2F", "H2F", "F2H", "H2H"):
        rs = sorted((r for r in recs if r["type"] == t), key=lambda r: r["bytes"])
        assert rs[-1]["gbps"] > rs[0]["gbps"] * 10  # bigger transfers amortise latency
        assert all(abs(r["gbps"] - r["bytes"] / r["mean_ns"]) < 1e-9 for r in rs)
    assert doc["cycles_per_s"] > 0
    assert png.stat().st_size > 1000


def test_bench_dma_rejects_bad_sizes(capsys):
    assert main(["bench", "dma", "--sizes", "6"]) == 1
    assert "multiple of 4" in capsys.readouterr().err
