"""`spgen emulate` on the command line: results, cascades, and clear errors."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import spgen
from reference import evaluate, mismatches
from spgen import _streams
from spgen.cli import main

ROOT = Path(__file__).parent.parent.parent
JACOBI = str(ROOT / "cores/jacobi5/jacobi5.spd")


def _grid(tmp_path: Path, n: int) -> Path:
    rng = np.random.default_rng(0)
    a = np.zeros(n, dtype=[("u", "<f4"), ("attr", "<u4")])
    a["u"] = rng.random(n, dtype=np.float32)
    a["attr"] = rng.random(n) < 0.2
    p = tmp_path / "in.npy"
    np.save(p, a)
    return p


def test_cli_emulate_steps_and_regs(tmp_path, capsys):
    inp = _grid(tmp_path, 32 * 40)
    out = tmp_path / "out.npy"
    rc = main(["emulate", JACOBI, "-i", str(inp), "-o", str(out), "-P", "W=32",
               "--reg", "w=0.2", "--steps", "3", "--threads", "2"])
    assert rc == 0
    assert "1280 elements x 3 step(s)" in capsys.readouterr().err
    got = np.load(out)
    g = spgen.compile(JACOBI, params={"W": 32}).graph
    arr = np.load(inp)
    cur = {"u": arr["u"].view(np.uint32), "attr": arr["attr"]}
    regs = _streams.parse_regs(g, {"w": "0.2"})
    for _ in range(3):
        o = evaluate(g, len(arr), cur, regs)
        cur = {"u": o["v"], "attr": o["attr_o"]}
    assert got.dtype.names == ("v", "attr_o")
    assert mismatches(got["v"].view(np.uint32), o["v"], "f32").size == 0


@pytest.mark.parametrize("extra, msg", [
    (["--reg", "nope=1"], "unknown register 'nope'"),
    (["--reg", "w"], "--reg expects NAME=VALUE"),
    (["--reg", "w=abc"], "register 'w': bad f32 value"),
    (["--steps", "0"], "--steps must be at least 1"),
    (["--threads", "0"], "--threads must be at least 1"),
])
def test_cli_option_errors(tmp_path, capsys, extra, msg):
    inp = _grid(tmp_path, 64)
    rc = main(["emulate", JACOBI, "-i", str(inp), "-o", str(tmp_path / "o.npy")] + extra)
    assert rc == 1
    assert msg in capsys.readouterr().err


def test_cli_bad_input_file(tmp_path, capsys):
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros(5, dtype=[("u", "<f8"), ("attr", "<u4")]))
    assert main(["emulate", JACOBI, "-i", str(bad), "-o", str(tmp_path / "o.npy")]) == 1
    assert "input field 'u' has dtype float64, expected float32" in capsys.readouterr().err
    assert main(["emulate", JACOBI, "-i", str(tmp_path / "missing.npy"), "-o", "x.npy"]) == 1
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "junk.npy").write_bytes(b"not numpy")
    assert main(["emulate", JACOBI, "-i", str(tmp_path / "junk.npy"), "-o", "x.npy"]) == 1
    assert "not a readable .npy file" in capsys.readouterr().err


def test_cli_branch_stream_file(tmp_path, capsys):
    prog = str(Path(__file__).parent / "programs/brch_regs.spd")
    d = spgen.compile(prog)
    n = 50
    rng = np.random.default_rng(3)
    main_arr = np.zeros(n, dtype=_streams.input_dtype(d.graph, "main"))
    main_arr["u"] = rng.random(n, dtype=np.float32)
    main_arr["id"] = rng.integers(0, 8, n)
    brch = np.zeros(n, dtype=_streams.input_dtype(d.graph, "brch"))
    brch["h"] = rng.random(n, dtype=np.float32)
    np.save(tmp_path / "m.npy", main_arr)
    np.save(tmp_path / "b.npy", brch)
    out = tmp_path / "o.npy"
    assert main(["emulate", prog, "-i", str(tmp_path / "m.npy"), "--brch-input",
                 str(tmp_path / "b.npy"), "-o", str(out), "--reg", "m=1", "-q"]) == 0
    assert capsys.readouterr().err == ""
    got = np.load(out)
    want = d.emulate({"main": main_arr, "brch": brch}, regs={"m": 1})
    assert got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()
    # a branch stream of another length is refused, as by spgen sim
    np.save(tmp_path / "b2.npy", brch[:10])
    assert main(["emulate", prog, "-i", str(tmp_path / "m.npy"), "--brch-input",
                 str(tmp_path / "b2.npy"), "-o", str(out)]) == 1
    assert "streams differ in length" in capsys.readouterr().err
