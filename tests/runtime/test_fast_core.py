"""The fast core model (`spgen build --core-model fast`) against the RTL card: same output
bytes and the same run counters under random memory back-pressure, for cores and cascades."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import spgen
from lockstep_card import LockstepCard
from spgen import runtime
from spgen.cli import main

pytestmark = pytest.mark.xdist_group("runtime")
ROOT = runtime.shell_sources()[0].parents[1]
B = 1 << 32
PROGRAMS = ROOT / "tests" / "backend_verilog" / "programs"

# One stream per run must fit in the shell's descriptor limits and stay quick in RTL.
N_RECORDS = 700
REG_SETTLE = 200  # cycles between the Reg writes and the run (over any Reg-only chain)


def _build(tmp: Path, prog: Path, cascade: int, model: str, params=(), hard_fp=False) -> Path:
    out = tmp / (f"{prog.stem}_c{cascade}_{model}" + ("_hfp" if hard_fp else ""))
    args = ["build", str(prog), "--cascade", str(cascade), "--core-model", model, "-o", str(out)]
    args += ["--hard-fp"] if hard_fp else []
    for p in params:
        args += ["-P", p]
    assert main(args) == 0
    return out


def _inputs(design, n: int, rng) -> np.ndarray:
    x = np.zeros(n, dtype=design.input_dtype())
    for name in x.dtype.names:
        if x.dtype[name] == np.float32:
            x[name] = rng.normal(0, 4, n).astype(np.float32)
        else:
            x[name] = rng.integers(-50, 50, n).astype(x.dtype[name])
    for name in x.dtype.names:      # stencil cores: a border of non-fluid tags
        if name == "attr":
            x[name] = (rng.random(n) < 0.2).astype(np.uint32)
    return x


def _session(build: Path, design, seed: int) -> tuple[list, np.ndarray, dict]:
    """Two runs through the cores (a started one, then an armed one over its output) under
    random memory back-pressure: every counter, the cycle each finished, the bytes out;
    with the input records and the Reg values (bits) it used."""
    rng = np.random.default_rng(seed)
    x = _inputs(design, N_RECORDS, rng)
    in_b, out_b = x.itemsize, 4 * len(design.output_dtype().names)
    card = LockstepCard(build / "sim" / "libafucard.so", seed, busy=rng.uniform(0.2, 0.9),
                        gap=rng.uniform(0.0, 0.6))
    seen: list = []
    regs = {r.name: r.default for r in design.graph.regs}
    try:
        for i, r in enumerate(design.graph.regs):
            if str(r.type) == "f32":
                regs[r.name] = int(np.float32(rng.uniform(0.1, 0.9)).view(np.uint32))
                card.write(0x800 + 8 * i, regs[r.name])
        # Values computed from Regs alone (static_regs: sqrt(a*a + b*b) / b) run free in the
        # RTL core and are valid that operator chain's latency after a Reg write; a host
        # takes far longer to set up a run, this test's memory does not.
        for _ in range(REG_SETTLE):
            card.step()
        card.mem[:x.nbytes] = x.view(np.uint8)
        runs = [(0, 0x200000, False)] + ([(0x200000, 0x400000, True)] if in_b == out_b else [])
        for src, dst, arm in runs:
            res = card.run(src, dst, N_RECORDS * in_b, N_RECORDS * out_b, N_RECORDS,
                           pieces=int(rng.integers(1, 5)), arm=arm)
            seen.append((res, card.cycle, bytes(card.mem[dst:dst + N_RECORDS * out_b])))
    finally:
        card.close()
    return seen, x, regs


def _same_bits(a: bytes, b: bytes, design) -> bool:
    """Equal bytes, except that an f32 NaN equals every other NaN (SPD.md): the emulator
    computes on x86, whose NaNs from invalid operations have another sign than the RTL's."""
    if a == b:
        return True
    dt = design.output_dtype()
    x = np.frombuffer(a, dtype=np.uint32).reshape(-1, len(dt.names))
    y = np.frombuffer(b, dtype=np.uint32).reshape(-1, len(dt.names))
    f32 = np.array([dt[n] == np.float32 for n in dt.names])
    nan = lambda w: ((w & 0x7F800000) == 0x7F800000) & ((w & 0x7FFFFF) != 0)
    both = nan(x) & nan(y) & f32
    return bool(np.array_equal(np.where(both, 0, x), np.where(both, 0, y)))


def _emulated(design, x: np.ndarray, regs: dict, cascade: int, runs: int) -> list[bytes]:
    """What the emulator gives for the session's runs (the second over the first's output)."""
    view = {"f32": np.float32, "i32": np.int32, "u32": np.uint32}
    reg_values = {r.name: np.uint32(regs[r.name]).view(view[str(r.type)]).item()
                  for r in design.graph.regs}
    out = []
    for _ in range(runs):
        y = design.emulate(x, regs=reg_values, steps=cascade)
        out.append(y.tobytes())
        x = np.frombuffer(y.tobytes(), dtype=design.input_dtype())
    return out


def _compare(prog: Path, cascade: int, tmp: Path, seeds=(1, 2), params=(),
             hard_fp=False) -> None:
    """The fast card equals the RTL card; with ``hard_fp`` both also equal the emulator
    (in --ftz mode, the DSP blocks' arithmetic)."""
    design = spgen.compile(prog, params=dict(p.split("=") for p in params) or None,
                           hard_fp=hard_fp)
    fast = _build(tmp, prog, cascade, "fast", params, hard_fp)
    assert json.loads((fast / "build.json").read_text())["core_model"] == "fast"
    rtl = _build(tmp, prog, cascade, "rtl", params, hard_fp)
    for seed in seeds:
        (a, x, regs), (b, _, _) = _session(fast, design, seed), _session(rtl, design, seed)
        assert len(a) == len(b) > 0
        if hard_fp:
            for i, want in enumerate(_emulated(design, x, regs, cascade, len(b))):
                assert _same_bits(b[i][2], want, design), \
                    f"{prog.stem} cascade {cascade} seed {seed} run {i}: RTL card != emulator"
        for i, ((ra, ca, da), (rb, cb, db)) in enumerate(zip(a, b)):
            where = f"{prog.stem} cascade {cascade} seed {seed} run {i}"
            assert ra == rb, f"{where}: counters {ra} vs {rb}"
            assert ca == cb, where
            assert _same_bits(da, db, design), f"{where}: output bytes differ"
            assert ra["rx_error"] == 0 and ra["in_moved"] == N_RECORDS


@pytest.mark.parametrize("prog,cascade", [
    (ROOT / "cores" / "exprmix" / "exprmix.spd", 1),
    (ROOT / "cores" / "jacobi5" / "jacobi5.spd", 2),
])
def test_fast_card_equals_rtl_card(prog, cascade, tmp_path, loopback_lib):
    _compare(prog, cascade, tmp_path)


@pytest.mark.parametrize("prog,cascade", [
    (ROOT / "cores" / "exprmix" / "exprmix.spd", 1),
    (ROOT / "cores" / "jacobi5" / "jacobi5.spd", 2),
])
def test_hard_fp_cards_equal_emulator(prog, cascade, tmp_path, loopback_lib):
    _compare(prog, cascade, tmp_path, seeds=(6,), hard_fp=True)


def test_external_verilog_falls_back_to_rtl(tmp_path, capsys):
    out = tmp_path / "ext"
    assert main(["build", str(PROGRAMS / "ext_verilog.spd"), "--core-model", "fast", "--no-sim",
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "core ext_verilog: no fast model" in err and "external Verilog (ext_mac)" in err
    assert "simulates the RTL core instead" in err
    assert json.loads((out / "build.json").read_text())["core_model"] == "rtl"
    assert not (out / "sim" / "ext_verilog_fast.v").exists()


ALL = sorted((ROOT / "cores").glob("*/*.spd")) + sorted(PROGRAMS.glob("*.spd"))


@pytest.mark.slow
@pytest.mark.parametrize("cascade", [1, 2, 4])
@pytest.mark.parametrize("prog", ALL, ids=[p.stem for p in ALL])
def test_fast_card_equals_rtl_card_everywhere(prog, cascade, tmp_path, capsys, loopback_lib):
    """Every core and test program at cascades of 1, 2 and 4: the same as the RTL card,
    or the build says why not (the shell's limits, or the fast model's fallback)."""
    from spgen.shellgen import core_interface

    d = spgen.compile(prog)
    args = ["build", str(prog), "--cascade", str(cascade), "--core-model", "fast", "--no-sim",
            "-o", str(tmp_path / "check")]
    iface = core_interface(d.verilog.report)
    if iface.brch_in_words or iface.brch_out_words:  # branch streams leave a card over links only
        assert main(args) == 1 and "branch streams" in capsys.readouterr().err
        return
    if cascade > 1 and iface.in_words != iface.out_words:
        assert main(args) == 1 and "a cascade needs equal" in capsys.readouterr().err
        return
    if any(n.op == "extern" for n in d.graph.nodes):
        assert main(args) == 0 and "no fast model" in capsys.readouterr().err
        assert json.loads((tmp_path / "check" / "build.json").read_text())["core_model"] == "rtl"
        return
    _compare(prog, cascade, tmp_path, seeds=(3,))
    if any(n.op in ("fadd", "fsub", "fmul") for n in d.graph.nodes):
        _compare(prog, cascade, tmp_path, seeds=(3,), hard_fp=True)


def test_card_shortcuts_change_no_cycle(tmp_path, monkeypatch):
    """The card library's evaluation shortcuts (one evaluation per cycle for a model whose
    outputs are registered, the scheduler called directly; runtime/sim/card/afu_card.cpp)
    give the same cycles, counters and bytes as evaluating every call through eval()."""
    prog = ROOT / "cores" / "exprmix" / "exprmix.spd"
    design = spgen.compile(prog)
    for model in ("fast", "rtl"):
        build = _build(tmp_path, prog, 1, model)
        info = (build / "sim" / "libafucard.so").read_bytes()
        assert b"registered_outputs=1" in info, f"{model}: the shortcut is not built in"
        for seed in (4, 5):
            monkeypatch.delenv("SPGEN_CARD_EVAL", raising=False)
            short = _session(build, design, seed)[0]
            monkeypatch.setenv("SPGEN_CARD_EVAL", "plain")
            plain = _session(build, design, seed)[0]
            assert short == plain, f"{model} seed {seed}"


@pytest.mark.parametrize("verilog,registered", [
    ("assign y = a + q; always @(posedge clk) q <= rst ? 8'd0 : a;", False),   # a -> y
    ("wire [7:0] t = a ^ q; always @(posedge clk) q <= rst ? 8'd0 : t; assign y = q;", True),
    ("always @(negedge clk) q <= a; assign y = q;", False),                    # another event
    ("always @(posedge clk or posedge rst) q <= rst ? 8'd0 : a; assign y = q;", False),
])
def test_registered_outputs_detected(verilog, registered, tmp_path):
    """The build allows the one-evaluation shortcut only for models whose outputs change
    at the rising clock edge alone."""
    import subprocess

    from spgen._tools import verilator_bin, verilator_env
    from spgen.runtime._build import registered_outputs

    src = tmp_path / "afu_top.v"
    src.write_text("module afu_top(input clk, input rst, input [7:0] a, output [7:0] y);\n"
                   f"  reg [7:0] q;\n  {verilog}\nendmodule\n")
    subprocess.run([str(verilator_bin()), "--cc", "--prefix", "Vafu_top", "--Mdir", str(tmp_path / "obj"),
                    "-Wno-fatal", str(src)], check=True, env=verilator_env(), capture_output=True)
    assert registered_outputs(tmp_path / "obj") is registered


def test_cards_close_in_any_order(tmp_path):
    """Two fast cards of one library closed in the reverse order of opening: each model's
    scopes unregister from its own Verilator context (this hung on a freed one)."""
    import subprocess
    import sys

    build = _build(tmp_path, ROOT / "cores" / "exprmix" / "exprmix.spd", 1, "fast")
    code = ("import sys; from spgen import runtime; a = runtime.open(sys.argv[1]); "
            "b = runtime.open(sys.argv[1]); b.close(); a.close(); print('closed')")
    out = subprocess.run([sys.executable, "-c", code, str(build)], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0 and "closed" in out.stdout, out.stderr[-2000:]


def test_profile_guided_build(tmp_path):
    """A fast card is compiled guided by the profile of a training run: the library it
    ships is the optimised one, not the instrumented one (no gcov counters, which would
    slow every cycle and write profile files at exit); a training run that cannot run
    reports an SpgenError, after which _compile_card builds the card without a profile."""
    import subprocess

    from spgen._diagnostics import SpgenError
    from spgen.runtime import _build as b

    lib = _build(tmp_path, ROOT / "cores" / "exprmix" / "exprmix.spd", 1, "fast") / "sim" / "libafucard.so"
    syms = subprocess.run(["nm", "-D", str(lib)], capture_output=True, text=True, check=True).stdout
    assert "spg_afu_eval" in syms and "gcov" not in syms
    card = ROOT / "runtime" / "sim" / "card"
    with pytest.raises(SpgenError, match="training run"):
        b._train(tmp_path / "missing.so", card / "train_card.cpp", ROOT / "shell" / "include",
                 ["5", "7", "1"], ROOT / "runtime" / "sim")
