"""Reconfiguring the simulated card: one open card loads core A, core B and A again, each
bit-exact with the emulator; DDR kept or cleared; AFU ID and shape checked; in-flight refused."""
from __future__ import annotations

import json
import shutil
import threading
import time

import numpy as np
import pytest
import spgen
from spgen import runtime
from spgen.cli import main

pytestmark = pytest.mark.xdist_group("runtime")
ROOT = runtime.shell_sources()[0].parents[1]
RECONF_NS = 1_390_000_000  # the published 1.39 s (docs/reference.md), the model's default
W = 64                     # jacobi5's default grid width, as built


@pytest.fixture(scope="module")
def builds(tmp_path_factory, loopback_lib):
    out = {}
    for core in ("exprmix", "jacobi5"):
        out[core] = tmp_path_factory.mktemp(core)
        assert main(["build", str(ROOT / "cores" / core / f"{core}.spd"), "-o", str(out[core])]) == 0
    return out


def _exprmix_in(n: int, seed: int) -> np.ndarray:
    design = spgen.compile(ROOT / "cores" / "exprmix" / "exprmix.spd")
    rng = np.random.default_rng(seed)
    x = np.zeros(n, dtype=design.input_dtype())
    for name in x.dtype.names:
        x[name] = (rng.normal(size=n) if x.dtype[name] == np.float32 else
                   rng.integers(-1000, 1000, n)).astype(x.dtype[name])
    return x


def _jacobi_in(rows: int, seed: int) -> np.ndarray:
    design = spgen.compile(ROOT / "cores" / "jacobi5" / "jacobi5.spd")
    rng = np.random.default_rng(seed)
    x = np.zeros(rows * W, dtype=design.input_dtype())
    x["u"] = rng.normal(size=len(x)).astype(np.float32)
    col, row = np.arange(len(x)) % W, np.arange(len(x)) // W
    x["attr"] = ((col == 0) | (col == W - 1) | (row == 0) | (row == rows - 1)).astype(np.uint32)
    return x


def _through(card, core: str, x: np.ndarray, regs: dict) -> None:
    """x streamed host -> core -> host on the card, compared bit for bit with the emulator."""
    design = spgen.compile(ROOT / "cores" / core / f"{core}.spd")
    ref = design.emulate(x, regs=regs)
    for name, value in regs.items():
        card.write_reg(name, value)
    out_words = len(ref.dtype.names)
    host_in, host_out = card.alloc(x.nbytes), card.alloc(len(x) * 4 * out_words)
    host_in[:] = x.view(np.uint8)
    card.dma(host_out, host_in, x.nbytes, "H2H")
    got = host_out.view(np.uint32).reshape(len(x), out_words)
    for i, name in enumerate(ref.dtype.names):
        assert np.array_equal(got[:, i], ref[name].view(np.uint32)), (core, name)


def test_one_card_loads_a_then_b_then_a(builds):
    """exprmix, jacobi5, exprmix on one open card: each bit-exact with the emulator, each
    load 1.39 s of simulated time, Regs, Params and record widths those of the AFU loaded."""
    with runtime.open(builds["exprmix"]) as card:
        _through(card, "exprmix", _exprmix_in(1500, 1), {"gain": 0.75})
        t0 = card.sim_stats()["now_ns"]
        assert card.reconfigure(builds["jacobi5"]) == RECONF_NS
        assert card.sim_stats()["now_ns"] - t0 >= RECONF_NS
        info = card.info
        assert (info["n_cores"], info["in_record_words"], info["out_record_words"]) == (1, 2, 2)
        assert card.core_param("W") == W and card.core_param("K") is None
        assert card.reg_type("w") == "f32" and card.read_reg("w") == np.float32(0.25)  # reset value
        with pytest.raises(runtime.AfuError) as ei:
            card.write_reg("gain", 1.0)  # exprmix's Reg is gone with its AFU
        assert ei.value.name == "UNKNOWN_REG"
        _through(card, "jacobi5", _jacobi_in(24, 2), {"w": 0.2})
        assert card.reconfigure(builds["exprmix"]) == RECONF_NS
        assert card.read_reg("gain") == np.float32(1.25)  # the Reg's build default again
        _through(card, "exprmix", _exprmix_in(900, 3), {"gain": -2.5})
        assert card.sim_stats()["bus_errors"] == 0


def test_ddr_is_cleared_or_kept(builds):
    """exprmix writes its output records into memory A and B; the loop-back AFU loaded with
    keep_ddr reads them back exactly (they pass through it unchanged); loaded without, the
    card's memories read zeros as fpgaconf leaves them."""
    x = _exprmix_in(500, 4)
    ref = spgen.compile(ROOT / "cores" / "exprmix" / "exprmix.spd").emulate(x)
    want = np.stack([ref[n].view(np.uint32) for n in ref.dtype.names], axis=1).view(np.uint8).ravel()
    with runtime.open(builds["exprmix"]) as card:
        host = card.alloc(x.nbytes)
        host[:] = x.view(np.uint8)
        for addr in (0x4000, (1 << 32) + 0x100):
            card.dma(addr, host, x.nbytes, "H2F")
        back = card.alloc(want.nbytes)
        card.reconfigure("loopback", keep_ddr=True)
        assert card.info["n_cores"] == 0
        for addr in (0x4000, (1 << 32) + 0x100):
            back[:] = 0
            card.dma(back, addr, want.nbytes, "F2H")
            assert np.array_equal(back, want), hex(addr)
        card.reconfigure("loopback")  # the published flow: DDR cleared
        for addr in (0x4000, (1 << 32) + 0x100):
            back[:] = 0xAA
            card.dma(back, addr, want.nbytes, "F2H")
            assert not back.any(), hex(addr)
        assert np.array_equal(host, x.view(np.uint8))  # host buffers stay the program's


def _tampered(src, dst, edit) -> str:
    shutil.copytree(src, dst)
    meta = dst / "hw" / "afu.json"
    doc = json.loads(meta.read_text())
    edit(doc)
    meta.write_text(json.dumps(doc))
    return str(dst)


def test_afu_id_mismatch_is_refused(builds, tmp_path):
    """A named AFU ID the build does not hold is refused before loading; an AFU whose ID or
    shape is not what afu.json says is refused after loading and the card refuses transfers
    until it holds one the program expects; opening such a build is refused too."""
    other = "12345678-9abc-4def-8123-456789abcdef"

    def uuid(doc):
        doc["afu-image"]["accelerator-clusters"][0]["accelerator-type-uuid"] = other

    def shape(doc):
        doc["spgen"]["in-record-words"] = 3

    wrong_id = _tampered(builds["exprmix"], tmp_path / "wrong_id", uuid)
    wrong_shape = _tampered(builds["exprmix"], tmp_path / "wrong_shape", shape)
    with runtime.open(builds["jacobi5"]) as card:
        shell_id = "48ae995a-649b-4c39-ac3c-f1e8beaefcca"
        with pytest.raises(runtime.AfuError, match=f"not loaded: .*{shell_id}.*expects {other}") as ei:
            card.reconfigure(builds["exprmix"], afu_id=other.upper())
        assert ei.value.name == "AFU_ID"
        assert card.info["in_record_words"] == 2  # still jacobi5, and it still works
        _through(card, "jacobi5", _jacobi_in(8, 5), {"w": 0.25})
        t0 = card.sim_stats()["now_ns"]
        with pytest.raises(runtime.AfuError, match=f"AFU has ID {shell_id}, the program expects {other}") as ei:
            card.reconfigure(wrong_id)
        assert ei.value.name == "AFU_ID" and card.sim_stats()["now_ns"] - t0 >= RECONF_NS
        buf = card.alloc(64)
        with pytest.raises(runtime.AfuError, match="refuses transfers and runs until") as ei:
            card.dma(buf, buf, 40, "H2H")
        assert ei.value.name == "AFU_ID"
        with pytest.raises(runtime.AfuError, match="5-word records in .* expects 1, 3 and 7") as ei:
            card.reconfigure(wrong_shape)
        assert ei.value.name == "AFU_ID"
        card.reconfigure(builds["exprmix"])
        _through(card, "exprmix", _exprmix_in(100, 6), {"gain": 1.0})
    for bad in (wrong_id, wrong_shape):
        with pytest.raises(runtime.AfuError) as ei:
            runtime.open(bad)
        assert ei.value.name == "AFU_ID"


def test_reconfiguring_during_transfers_is_refused(builds):
    """With a transfer in flight the card is not reprogrammed (BUSY) and the transfer
    completes intact; once it has, the card reconfigures."""
    x = _exprmix_in(4000, 7)
    with runtime.open(builds["exprmix"]) as card:
        host = card.alloc(x.nbytes)
        host[:] = x.view(np.uint8)
        req = card.dma_async(0x0, host, x.nbytes, "H2F")
        with pytest.raises(runtime.AfuError, match=r"1 transfer\(s\) in flight") as ei:
            card.reconfigure("loopback", keep_ddr=True)
        assert ei.value.name == "BUSY"
        assert req.wait()
        assert card.info["n_cores"] == 1  # exprmix still
        card.reconfigure("loopback", keep_ddr=True)
        ref = spgen.compile(ROOT / "cores" / "exprmix" / "exprmix.spd").emulate(x)
        back = card.alloc(len(x) * 28)
        card.dma(back, 0x0, back.nbytes, "F2H")
        got = back.view(np.uint32).reshape(len(x), 7)
        for i, name in enumerate(ref.dtype.names):
            assert np.array_equal(got[:, i], ref[name].view(np.uint32)), name


def test_reconfiguring_beside_a_transferring_thread_never_corrupts(builds):
    """One thread streams through the card while another swaps exprmix and jacobi5 in and
    out: every transfer is refused (BUSY) or completes bit-exact with the emulator for one
    of the two AFUs (the thread cannot know which one it met), and every reconfiguration
    happens or is refused (BUSY)."""
    ex = _exprmix_in(300, 8)   # 6000 bytes: whole records of both cores
    for name in ("n", "m"):    # small integers: as f32 bits, subnormals rather than NaNs
        ex[name] = np.arange(len(ex)) % 97
    inputs = [ex.view(np.uint8), _jacobi_in(10, 9).view(np.uint8)]  # 6000 and 5120 bytes
    designs = {c: spgen.compile(ROOT / "cores" / c / f"{c}.spd") for c in ("exprmix", "jacobi5")}
    outcomes = []  # per input: the output bytes of each core
    for raw in inputs:
        outs = []
        for d in designs.values():
            ref = d.emulate(raw.view(d.input_dtype()))
            outs.append(np.stack([ref[n].view(np.uint32) for n in ref.dtype.names], axis=1).view(np.uint8).ravel())
        outcomes.append(outs)
    with runtime.open(builds["exprmix"]) as card:
        bufs = []
        for raw in inputs:
            bufs.append((card.alloc(raw.nbytes), card.alloc(8400)))  # the most: exprmix on 6000 B
            bufs[-1][0][:] = raw
        stop, seen, errors = threading.Event(), {"ok": 0, "busy": 0}, []

        def stream() -> None:
            k = 0
            while not stop.is_set():
                k += 1
                host_in, host_out = bufs[k % 2]
                host_out[:] = 0
                try:
                    card.dma(host_out, host_in, host_in.nbytes, "H2H")
                except runtime.AfuError as e:
                    seen["busy"] += 1
                    if e.name != "BUSY":
                        errors.append(str(e))
                    time.sleep(0.001)
                    continue
                if not any(np.array_equal(host_out[:len(o)], o) and not host_out[len(o):].any()
                           for o in outcomes[k % 2]):
                    errors.append(f"input {k % 2}: output of neither AFU")
                seen["ok"] += 1
                time.sleep(0.001)

        mover = threading.Thread(target=stream)
        mover.start()
        loads, refused, t0 = 0, 0, time.monotonic()
        try:
            while loads < 6 and time.monotonic() - t0 < 120:
                try:
                    card.reconfigure(builds["jacobi5" if loads % 2 == 0 else "exprmix"])
                    loads += 1
                except runtime.AfuError as e:
                    assert e.name == "BUSY", e
                    refused += 1
                time.sleep(0.002)
        finally:
            stop.set()
            mover.join()
        assert not errors, errors[:3]
        assert loads == 6 and seen["ok"] > 0, (loads, refused, seen)


def test_reconfiguration_time_is_a_parameter(builds):
    with runtime.open("loopback", params={"reconf_s": 0.25}) as card:
        assert card.sim_params()["reconf_s"] == 0.25
        t0 = card.sim_stats()["now_ns"]
        assert card.reconfigure(builds["jacobi5"]) == 250_000_000
        assert 250_000_000 <= card.sim_stats()["now_ns"] - t0 < 250_100_000
    with pytest.raises(runtime.AfuError, match="reconf_s' needs a number >= 0"):
        runtime.open("loopback", params={"reconf_s": -1})


def test_conf_command(builds, capsys):
    a, b = str(builds["exprmix"]), str(builds["jacobi5"])
    assert main(["conf", a, b, a]) == 0
    out = capsys.readouterr().out
    loads = [line for line in out.splitlines() if line.startswith("loaded ")]
    assert len(loads) == 3 and "1 x jacobi5" in loads[1] and "2-word records in" in loads[1]
    for line in loads:
        assert "1.390 s simulated, DDR cleared (reconf_s=1.39; published fpgaconf: 1.39 s for a " \
               "95.5 MB bitstream, DDR cleared)" in line
        assert "AFU ID 48ae995a-649b-4c39-ac3c-f1e8beaefcca" in line
    assert main(["conf", b, "--reconf-s", "0.5", "--keep-ddr"]) == 0
    assert "0.500 s simulated, DDR kept (reconf_s=0.5;" in capsys.readouterr().out
    assert main(["conf", str(builds["jacobi5"] / "nowhere")]) == 1
    assert "spgen conf: error: no such directory" in capsys.readouterr().err
    assert main(["conf", b, "--afu-id", "12345678-9abc-4def-8123-456789abcdef"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("spgen conf: error: not loaded:") and "[AFU ID mismatch]" in err
    assert main(["conf", b, "--reconf-s", "-1"]) == 1
    assert "--reconf-s needs a time >= 0" in capsys.readouterr().err
