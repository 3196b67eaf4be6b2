"""Branch streams across cards and per-card builds: card 0 is built from core_a (a
Brch_Out of two ports), card 1 from core_b (a Brch_In of two ports, read one element
ahead); the cluster file names each card's build and binds the branch stream. Both cards'
outputs equal the emulator of the program that joins the two cores, bit for bit, clean and
under link faults and random host back-pressure; bad bindings and builds that do not fit
the cluster are refused with messages naming the card."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import spgen
from spgen import SpgenError
from spgen.cli import main
from spgen.runtime import rdma

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "branch_across_cards"  # core_a.spd, core_b.spd, both.spd, cluster.json
CORE_A, CORE_B = (EXAMPLE / "core_a.spd").read_text(), (EXAMPLE / "core_b.spd").read_text()


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> dict[str, Path]:
    """core_a and core_b on cards with 2 links each, and the loop-back card with 4 links that
    the runtime's tests share (its library)."""
    from spgen._afu_build import link_card

    d = tmp_path_factory.mktemp("branch_builds")
    out = {"a": d / "a", "b": d / "b", "l4": link_card()}
    assert main(["build", str(EXAMPLE / "core_a.spd"), "--links", "2", "-o", str(out["a"])]) == 0
    assert main(["build", str(EXAMPLE / "core_b.spd"), "--links", "2", "-o", str(out["b"])]) == 0
    return out


def _cluster(tmp_path: Path, spec: dict) -> rdma.Cluster:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(spec))
    return rdma.cluster(path)


def _inputs(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.zeros(n, dtype=[("x", np.float32), ("u", np.float32)])
    x["x"], x["u"] = rng.standard_normal(n), rng.standard_normal(n)
    return x


@pytest.mark.parametrize("faults,back_pressure", [
    (None, (0, 0)),
    ({"per": 0.02, "drop": 0.02, "down": [[2000, 8000]]}, (29, 300)),
])
def test_branch_stream_from_card_a_to_card_b_is_bit_exact(builds, tmp_path, faults, back_pressure) -> None:
    both = spgen.compile(EXAMPLE / "both.spd")
    cl = _cluster(tmp_path, {"topology": "ring", "dims": [2], "seed": 3,
                             "builds": {"0": str(builds["a"]), "1": str(builds["b"])},
                             "branches": [{"from": 0, "to": 1}], **({"faults": faults} if faults else {})})
    n = 1500
    x = _inputs(n, seed=4)
    a_in = np.zeros(n, dtype=[("x", np.float32)])
    b_in = np.zeros(n, dtype=[("u", np.float32)])
    a_in["x"], b_in["u"] = x["x"], x["u"]
    out, run = cl.run_cores({0: a_in, 1: b_in}, max_chunk=back_pressure[0], max_gap=back_pressure[1], seed=7)
    want = both.emulate(x)
    assert out[0].dtype.names == ("y",) and out[1].dtype.names == ("v",)
    assert np.array_equal(out[0]["y"].view(np.uint32), want["y"].view(np.uint32))
    assert np.array_equal(out[1]["v"].view(np.uint32), want["v"].view(np.uint32))
    # the branch stream crossed the link once: 2 words per element, all delivered
    assert run.stats[0]["stream_tx_words"] == run.stats[1]["stream_rx_words"] == 2 * n
    assert run.stats[1]["stream_tx_words"] == 0
    assert 0 < run.stream_words_per_cycle[0] <= 1
    if faults:
        s = cl.stats()
        assert s["dropped"] > 0 and s["corrupted"] > 0  # retransmission hid them


def test_card_b_drained_slowly_loses_nothing(builds, tmp_path) -> None:
    """Both hosts feed and drain in small chunks with long gaps: core_b stops now and then,
    its receive buffer holds what card 0 sends meanwhile, and every branch word arrives
    once. (The line-wide buffer, 4,096 words, holds more than these hosts ever leave
    between the cards, so card 0 is not held here; a consumer stalled until the credits run
    out: tests/rdma/test_rdma_rtl_stream.py.)"""
    both = spgen.compile(EXAMPLE / "both.spd")
    cl = _cluster(tmp_path, {"topology": "ring", "dims": [2],
                             "builds": {"0": str(builds["a"]), "1": str(builds["b"])},
                             "branches": [{"from": 0, "to": 1}]})
    n = 2000
    x = _inputs(n, seed=8)
    a_in = np.zeros(n, dtype=[("x", np.float32)])
    b_in = np.zeros(n, dtype=[("u", np.float32)])
    a_in["x"], b_in["u"] = x["x"], x["u"]
    out, run = cl.run_cores({0: a_in, 1: b_in}, max_chunk=64, max_gap=2000, seed=2)
    want = both.emulate(x)
    assert np.array_equal(out[1]["v"].view(np.uint32), want["v"].view(np.uint32))
    assert run.stats[0]["stream_tx_words"] == run.stats[1]["stream_rx_words"] == 2 * n


def test_per_card_builds_are_checked_against_the_cluster(builds, tmp_path) -> None:
    a, b, l4 = (str(builds[k]) for k in ("a", "b", "l4"))
    ring = {"topology": "ring", "dims": [2]}
    cases = [
        # link count: this topology needs 3 ports per card
        ({"topology": "custom", "cards": 2, "ports": 3, "links": [{"a": [0, 2], "b": [1, 2]}],
          "builds": {"0": l4, "1": b}, "branches": []},
         r"card 1 \(.*/b/sim/libafucard.so\): the card has 2 link ports, the cluster needs 3"),
        # a core's branch stream that nothing binds
        ({**ring, "builds": {"0": a, "1": b}}, r"card 0 .*its core's Brch_Out is not bound"),
        ({**ring, "builds": {"0": a, "1": b}, "branches": [{"from": 1, "to": 0}]},
         r"card 1 .* has no core with a Brch_Out to send"),
        ({**ring, "builds": {"0": a, "1": l4}, "branches": [{"from": 0, "to": 1}]},
         r"card 1 .* has no core with a Brch_In to receive"),
        # the file itself
        ({**ring, "builds": {"0": a}}, r"card 1 has no build"),
        ({**ring, "builds": {"2": a}, "card": a}, r"builds\[\"2\"\]: keys are card numbers 0..1"),
        ({**ring, "card": a, "branches": [{"from": 0, "to": 0}]}, r"branches\[0\]: a branch stream runs between two cards"),
        ({**ring, "card": a, "branches": [{"from": 0, "to": 1}, {"from": 0, "to": 1}]},
         r"branches\[1\]: card 0 already sends a branch stream"),
        ({**ring, "card": a, "branches": [{"from": 0, "to": 5}]}, r"branches\[0\]: card 5 is not in the cluster"),
        ({**ring, "card": a, "branches": [{"from": 0, "too": 1}]}, r"branches\[0\]: unknown key 'too'"),
        ({**ring, "branches": [{"from": 0, "to": 1}]}, r"'branches' .* need RTL cards"),
        ({"topology": "ring", "dims": [3], "absent": [2], "card": a, "branches": [{"from": 0, "to": 2}]},
         r"branches\[0\]: card 2 is absent"),
    ]
    for spec, msg in cases:
        with pytest.raises(SpgenError, match=msg):
            _cluster(tmp_path, spec)


def test_per_card_builds_mix_cores_and_loopback_cards(builds, tmp_path) -> None:
    """A ring of three cards, each its own build (two cores and a loop-back card): RDMA
    between them works beside the branch stream, whose cores stay exact, and a pipeline
    cannot take a stream endpoint that carries a branch stream."""
    both = spgen.compile(EXAMPLE / "both.spd")
    cl = _cluster(tmp_path, {"topology": "ring", "dims": [3],
                             "builds": {"0": str(builds["a"]), "1": str(builds["b"]), "2": str(builds["l4"])},
                             "branches": [{"from": 0, "to": 1}]})
    assert "brch_out_words=2" in cl.sim.card_info(0) and "brch_in_words=2" in cl.sim.card_info(1)
    assert "brch_" not in cl.sim.card_info(2)
    assert cl.card_summary(0) == "core_a x 1, 2 links, Brch_Out (2 words) -> card 1"
    assert cl.card_summary(1) == "core_b x 1, 2 links, Brch_In (2 words) <- card 0"
    assert cl.card_summary(2) == "loopback x 0, 4 links"
    data = bytes(range(256)) * 8
    cl[0].write(0x1000, data)
    cl[0].put(2, 0x1000, 0x2000, len(data))
    cl[2].put(1, 0x2000, 0x3000, len(data))
    assert cl[1].read(0x3000, len(data)) == data
    x = _inputs(300, seed=1)
    a_in = np.zeros(300, dtype=[("x", np.float32)])
    b_in = np.zeros(300, dtype=[("u", np.float32)])
    a_in["x"], b_in["u"] = x["x"], x["u"]
    out, _ = cl.run_cores({0: a_in, 1: b_in})
    assert np.array_equal(out[1]["v"].view(np.uint32), both.emulate(x)["v"].view(np.uint32))
    with pytest.raises(rdma.RDMAError, match="sends a branch stream"):
        cl.pipeline([0, 2], a_in)
    with pytest.raises(SpgenError, match="built without a core"):
        cl.run_cores({2: a_in})


def test_build_refuses_branch_cores_without_links_or_in_a_cascade(tmp_path, capsys) -> None:
    (tmp_path / "b.spd").write_text(CORE_B)
    assert main(["build", str(tmp_path / "b.spd"), "--no-sim", "-o", str(tmp_path / "x")]) != 0
    assert "core core_b has Brch_In: branch streams run between cards over links" in capsys.readouterr().err
    assert main(["build", str(tmp_path / "b.spd"), "--cascade", "2", "--links", "2", "--no-sim",
                 "-o", str(tmp_path / "y")]) != 0
    assert "runs alone on its card (--cascade 1, not 2)" in capsys.readouterr().err


def test_c_api_runs_both_cores(builds, tmp_path) -> None:
    """afuShellRDMARunCores from a C program linked only against libafushell: both cards'
    cores at once, random host chunks and gaps, 1 % flips and drops; bit for bit."""
    import subprocess

    from rdma_cards import compile_c_program

    exe = compile_c_program(Path(__file__).with_name("rdma_branch_run.c"), tmp_path / "rdma_branch_run")
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"topology": "ring", "dims": [2], "seed": 4, "faults": {"per": 0.01, "drop": 0.01},
                                "builds": {"0": str(builds["a"]), "1": str(builds["b"])},
                                "branches": [{"from": 0, "to": 1}]}))
    x = _inputs(1000, seed=6)
    for k in ("x", "u"):
        np.ascontiguousarray(x[k]).tofile(tmp_path / f"{k}.bin")
    r = subprocess.run([str(exe), str(path), *(str(tmp_path / f) for f in ("x.bin", "u.bin", "y.bin", "v.bin"))],
                       capture_output=True, text=True, timeout=600, check=False)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    want = spgen.compile(EXAMPLE / "both.spd").emulate(x)
    for k in ("y", "v"):
        assert np.array_equal(np.fromfile(tmp_path / f"{k}.bin", dtype=np.uint32), want[k].view(np.uint32))
    lines = r.stdout.splitlines()
    assert lines[0].split()[2:4] == ["2000", "0"] and lines[1].split()[2:4] == ["0", "2000"]
    assert lines[-1].startswith("ok ")


def test_docs_branch_example_runs_as_written(builds, tmp_path, monkeypatch) -> None:
    """docs/rdma.md "Branch streams across cards": the build commands, then the Python
    example with the example's cluster file, from a copy of the repository's layout."""
    import re
    import shlex
    import shutil
    import subprocess
    import sys

    text = (ROOT / "docs" / "rdma.md").read_text()
    section = text[text.index("### Branch streams across cards"):text.index("### A pipeline of cascades across cards")]
    blocks = re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)
    assert [k for k, _ in blocks] == ["sh", "json", "python"]
    assert json.loads(blocks[1][1]) == json.loads((EXAMPLE / "cluster.json").read_text())
    shutil.copytree(EXAMPLE, tmp_path / "examples" / "branch_across_cards")
    monkeypatch.chdir(tmp_path)
    for line in blocks[0][1].splitlines():
        argv = shlex.split(line, comments=True)
        if argv:
            assert argv[:2] == ["spgen", "build"] and main(argv[1:]) == 0  # cached: the fixture's builds
    py = subprocess.run([sys.executable, "-c", blocks[2][1]], capture_output=True, text=True, timeout=600, check=False)
    assert py.returncode == 0, py.stderr[-3000:]
    assert "words/cycle" in py.stdout
