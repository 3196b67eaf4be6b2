"""`spgen bench rdma --quick`: the result file format and physically sensible figures."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.xdist_group("rdma")


def test_rdma_bench_quick_json(tmp_path) -> None:
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "spgen", "bench", "rdma", "--quick", "--json", str(out)],
                          capture_output=True, text=True, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "vs CIRCUS" in proc.stdout
    doc = json.loads(out.read_text())
    assert doc["benchmark"] == "rdma"
    recs = doc["records"]
    assert {r["test"] for r in recs} >= {"pingpong", "reduce", "faults", "link_down_10us"}
    for r in recs:
        assert all(k in r for k in doc["key"])
        assert r["integrity_errors"] == 0
        # nothing beats the wire: 64 payload bytes per 72 wire bytes
        assert 0 < r["gbps"] <= r["line_gbps"] * 64 / 72 + 1e-9
    pp = {(r["hops"], r["bytes"]): r for r in recs if r["test"] == "pingpong"}
    assert pp[(4, 16)]["latency_us"] > pp[(1, 16)]["latency_us"] > doc["link_latency_ns"] / 1000
    f = {r["per"]: r for r in recs if r["test"] == "faults"}
    assert f[0.01]["replays"] > 0 and f[0.01]["gbps"] < f[0.0]["gbps"]
    down = next(r for r in recs if r["test"] == "link_down_10us")
    assert down["gbps"] < f[0.0]["gbps"]
