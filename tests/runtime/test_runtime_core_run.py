"""A real core on the simulated card: spgen build, Regs by name, run(), bit-exact with the emulator."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
import spgen
from spgen import runtime
from spgen.cli import main

pytestmark = pytest.mark.xdist_group("runtime")
ROOT = runtime.shell_sources()[0].parents[1]
B = 1 << 32


@pytest.fixture(scope="module")
def exprmix_build(tmp_path_factory, loopback_lib):
    out = tmp_path_factory.mktemp("exprmix")
    assert main(["build", str(ROOT / "cores" / "exprmix" / "exprmix.spd"), "-o", str(out)]) == 0
    return out


def test_exprmix_through_the_card_matches_emulator(exprmix_build):
    """5-word records in, 7-word records out: transfers and runs stream through the core."""
    design = spgen.compile(ROOT / "cores" / "exprmix" / "exprmix.spd")
    n = 3000
    rng = np.random.default_rng(5)
    names = [p.name for p in design.graph.inputs]
    types = [np.float32] * 3 + [np.int32, np.uint32]
    inp = np.zeros(n, dtype=list(zip(names, types)))
    for nm, ty in zip(names[:3], types):
        inp[nm] = rng.normal(size=n).astype(ty)
    inp[names[3]] = rng.integers(-1000, 1000, n)
    inp[names[4]] = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    gain = np.float32(0.75)
    ref = design.emulate(inp, regs={"gain": float(gain)})
    with runtime.open(exprmix_build) as card:
        info = card.info
        assert (info["n_cores"], info["in_record_words"], info["out_record_words"]) == (1, 5, 7)
        card.write_reg("gain", float(gain))
        assert card.read_reg("gain") == gain
        assert card.read_reg_bits("gain") == int(gain.view(np.uint32))
        with pytest.raises(runtime.AfuError) as ei:
            card.dma(0x1000, card.alloc(64), 64, "H2F")  # 64 B is not whole 20-byte records
        assert ei.value.name == "RECORD_WIDTH"
        host_in, host_out = card.alloc(n * 20), card.alloc(n * 28)
        host_in[:] = inp.view(np.uint8)
        card.dma(host_out, host_in, n * 20, "H2H")  # n records in, n records out
        got = host_out.view(np.uint32).reshape(n, 7)
        for i, nm in enumerate(ref.dtype.names):
            assert np.array_equal(got[:, i], ref[nm].view(np.uint32)), nm
        # A run streams n records A -> core -> B and counts them at the core's output.
        card.dma(0x1000, host_in, n * 20, "H2F")  # memory A now holds n output records
        res = card.run(0x1000, B + 0x2000, n * 7 // 5)
        assert res.moved_cycles == n * 7 // 5 and res.total_cycles >= res.moved_cycles
        assert 0 <= res.stall_rate < 1 and res.elapsed_ns > 0
        # An armed run: the TX read-ahead happens before it (prime_cycles), so the core's
        # input never waits; the output side counts the pipeline fill.
        assert res.in_moved_cycles == n * 7 // 5 and res.prime_cycles > 0
        assert res.stall_rate <= 3e-4 and res.out_stall_rate > res.stall_rate


def test_card_reports_its_core_params(exprmix_build):
    """`spgen build` bakes the core's Params into the card; integer ones read back, others
    are a clear error, unknown names and the loop-back card say nothing (None)."""
    assert json.loads((exprmix_build / "build.json").read_text())["core_params"] == {
        "K": 3, "H": 16, "HALF": 0.5}
    with runtime.open(exprmix_build) as card:
        assert card.core_param("K") == 3 and card.core_param("H") == 16
        assert card.core_param("W") is None
        with pytest.raises(runtime.AfuError, match="HALF' is 0.5, not an integer") as ei:
            card.core_param("HALF")
        assert ei.value.name == "INVALID_PARAM"
    with runtime.open("loopback") as card:
        assert card.core_param("K") is None


def _exprmix_through_card(card, inp):
    n = len(inp)
    host_in, host_out = card.alloc(n * 20), card.alloc(n * 28)
    host_in[:] = inp.view(np.uint8)
    card.dma(host_out, host_in, n * 20, "H2H")
    return host_out.view(np.uint32).reshape(n, 7).copy()


def test_registers_take_values_of_their_type(exprmix_build):
    """A float Reg gets its binary32 pattern, integers are range-checked, bools and values
    that do not fit are refused and leave the register as it was."""
    design = spgen.compile(ROOT / "cores" / "exprmix" / "exprmix.spd")
    inp = np.zeros(64, dtype=[(p.name, np.float32 if p.type.name == "F32" else
                               np.int32 if p.type.name == "I32" else np.uint32)
                              for p in design.graph.inputs])
    rng = np.random.default_rng(2)
    for nm in inp.dtype.names:
        inp[nm] = rng.integers(1, 50, len(inp)).astype(inp.dtype[nm])
    with runtime.open(exprmix_build) as card:
        assert (card.reg_type("gain"), card.reg_type("mask"), card.reg_type("bias")) == ("f32", "u32", "i32")
        assert card.reg_type("SCRATCH") == ""
        card.write_reg("gain", 1.7)
        card.write_reg("bias", -1)
        card.write_reg("mask", 0xFFFF_FFFF)
        assert card.read_reg_bits("gain") == int(np.float32(1.7).view(np.uint32))
        assert card.read_reg("gain") == np.float32(1.7)
        assert (card.read_reg("bias"), card.read_reg_bits("bias")) == (-1, 0xFFFF_FFFF)
        assert card.read_reg("mask") == 0xFFFF_FFFF
        got = _exprmix_through_card(card, inp)
        ref = design.emulate(inp, regs={"gain": 1.7, "bias": -1, "mask": 0xFFFF_FFFF})
        for i, nm in enumerate(ref.dtype.names):
            assert np.array_equal(got[:, i], ref[nm].view(np.uint32)), nm
        bad = [("bias", 2**40, "outside -2^31"), ("bias", 2.5, "not an integer"),
               ("mask", -1, "outside 0 .. 2^32-1"), ("gain", 1e39, "largest finite f32"),
               ("gain", True, "is a bool"), ("mask", True, "is a bool"), ("bias", "3", "expected a number"),
               ("mask", 2**200, "does not fit")]
        for reg, value, why in bad:
            with pytest.raises(runtime.AfuError, match=re.escape(why)) as ei:
                card.write_reg(reg, value)
            assert ei.value.name == "REG_VALUE", (reg, value)
        with pytest.raises(runtime.AfuError, match="0 .. 2\\^32-1") as ei:
            card.write_reg_bits("gain", 1 << 32)
        with pytest.raises(runtime.AfuError, match="0 .. 2\\^64-1"):
            card.write_reg("SCRATCH", -1)
        assert (card.read_reg("gain"), card.read_reg("bias"), card.read_reg("mask")) == (
            np.float32(1.7), -1, 0xFFFF_FFFF)
        card.write_reg_bits("gain", 0x3F00_0000)
        assert card.read_reg("gain") == 0.5


def test_copy_tools_refuse_a_card_with_cores(exprmix_build, runtime_build, card_env, capsys):
    """dma_roundtrip and `spgen bench dma` compare what comes back with what went: on a
    card with cores they say why they cannot, instead of reporting corruption."""
    import subprocess

    r = subprocess.run([str(runtime_build / "dma_roundtrip"), f"sim:{exprmix_build}", "4096"],
                       env=card_env, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 1 and "CORRUPTED" not in r.stdout
    assert "every transfer streams through them" in r.stderr and "loop-back build" in r.stderr
    assert main(["bench", "dma", "--target", str(exprmix_build), "--quick", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "every transfer streams through them" in err and "loop-back build" in err
    assert "whole number" not in err


def test_mistyped_build_folder_says_no_such_directory(tmp_path, runtime_build, card_env):
    import subprocess

    def roundtrip(uri):
        return subprocess.run([str(runtime_build / "dma_roundtrip"), uri], env=card_env,
                              capture_output=True, text=True, timeout=300, check=False)

    missing = tmp_path / "no_such_build"
    for uri in (f"sim:{missing}", str(missing)):
        r = roundtrip(uri)
        assert r.returncode == 1 and f"no such directory: {missing}" in r.stderr, r.stderr
    with pytest.raises(runtime.AfuError, match=f"no such directory: {re.escape(str(missing))}"):
        runtime.open(missing)
    assert f"open it as sim:{tmp_path}" in roundtrip(str(tmp_path)).stderr


def test_installed_package_builds_a_program_out_of_tree(exprmix_build, runtime_build, card_env,
                                                        tmp_path):
    """`cmake --install` of the runtime, then find_package(afushell) from a project of its
    own: the program links afushell::runtime and drives the exprmix card's typed Regs."""
    import subprocess

    def run(*cmd):
        r = subprocess.run([str(c) for c in cmd], env=card_env, capture_output=True, text=True,
                           timeout=600, check=False)
        assert r.returncode == 0, " ".join(map(str, cmd)) + "\n" + r.stdout[-3000:] + r.stderr[-3000:]
        return r.stdout

    prefix = tmp_path / "prefix"
    run("cmake", "--install", runtime_build, "--prefix", prefix)
    for f in ("include/afushell/afushell.h", "include/afushell/afushell.hpp",
              "include/afushell/sim/opae/types_enum.h", "include/afushell/rdma.h", "lib/libafushell.so",
              "lib/libopae-c-sim.so", "lib/libafushell-cluster.so",
              "lib/cmake/afushell/afushellConfig.cmake", "bin/afushell-info"):
        assert (prefix / f).exists(), f
    src = ROOT / "tests" / "runtime" / "installed"
    run("cmake", "-S", src, "-B", tmp_path / "build", f"-DCMAKE_PREFIX_PATH={prefix}")
    run("cmake", "--build", tmp_path / "build")
    out = run(tmp_path / "build" / "typed_regs", f"sim:{exprmix_build}")
    assert "typed registers ok: f32" in out
    assert "core Reg 'mask' (u32): -1 is outside 0 .. 2^32-1" in out
    assert "core Reg 'bias' (i32): 2.5 is not an integer" in out
