"""`spgen build`: project files generated consistently and checked; bad input gives clear errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from spgen import SpgenError
from spgen.cli import main
from spgen.shellgen import check_project, core_interface, cores_wrapper, load_csr_map, write_project

ROOT = Path(__file__).resolve().parents[2]


def test_build_jacobi_cascade(tmp_path, capsys):
    out = tmp_path / "b"
    assert main(["build", str(ROOT / "cores/jacobi5/jacobi5.spd"), "--cascade", "3", "--no-sim",
                 "-o", str(out)]) == 0
    summary = json.loads((out / "build.json").read_text())
    assert summary["params"]["N_CORES"] == 3 and summary["params"]["RECORD_WORDS"] == 2
    assert any("lint" in c for c in summary["checks"]) and any("Tcl" in c for c in summary["checks"])
    afu = json.loads((out / "hw/afu.json").read_text())
    assert afu["afu-image"]["accelerator-clusters"][0]["accelerator-type-uuid"] == str(load_csr_map().afu_id)
    assert afu["spgen"]["regs"] == [{"name": "w", "index": 0, "offset": 0x800, "default": 0x3E800000}]
    wrapper = (out / "rtl/afu_cores.v").read_text()
    assert wrapper.count("jacobi5 core") == 3
    assert "ok  verilator" in capsys.readouterr().out


def test_build_relative_output_folder(tmp_path, monkeypatch):
    """A relative -o works although the tools run inside the build folder."""
    monkeypatch.chdir(tmp_path)
    assert main(["build", str(ROOT / "cores/exprmix/exprmix.spd"), "--no-sim", "-o", "rel/b"]) == 0
    assert (tmp_path / "rel/b/lint.vlt").is_file() and (tmp_path / "rel/b/build.json").is_file()


def test_build_loopback(tmp_path):
    assert main(["build", "--loopback", "--no-sim", "-o", str(tmp_path / "lb")]) == 0
    assert json.loads((tmp_path / "lb/build.json").read_text())["params"]["N_CORES"] == 0


@pytest.mark.parametrize("argv, msg", [
    (["build", "-o", "X"], "either PROG.spd or --loopback"),
    (["build", "--loopback", "--cascade", "0", "-o", "X"], "--cascade 0"),
])
def test_build_bad_arguments(tmp_path, capsys, argv, msg):
    argv = [a if a != "X" else str(tmp_path / "x") for a in argv]
    assert main(argv) == 1
    assert msg in capsys.readouterr().err


def test_branch_streams_one_core_per_card_with_links(tmp_path):
    """A core's branch streams leave the card over links (docs/rdma.md): one core per card,
    and only on a card built with links; the wrapper wires them to afu_cores' bi_/bo_ ports."""
    core = core_interface({"name": "c", "ports": {"s_data": [{"name": "a"}], "m_data": [{"name": "b"}],
                                                 "s_brch_data": [{"name": "h0"}, {"name": "h1"}]}})
    assert (core.brch_in_words, core.brch_out_words, core.brch_in_ports) == (2, 0, ("h0", "h1"))
    text = cores_wrapper(core, 1)
    assert ".s_brch_data (bi_data)" in text and "m_brch" not in text and "assign bo_valid = 1'b0;" in text
    with pytest.raises(SpgenError, match="branch streams"):
        cores_wrapper(core, 2)
    with pytest.raises(SpgenError, match="--links N"):
        write_project(tmp_path, core, "", 1)


def test_cascade_needs_equal_records():
    core = core_interface({"name": "c", "ports": {"s_data": [{"name": "a"}] * 2,
                                                 "m_data": [{"name": "b"}]}, "registers": []})
    with pytest.raises(SpgenError, match="equal input and output"):
        cores_wrapper(core, 2)
    assert "c core0" in cores_wrapper(core, 1)


@pytest.mark.parametrize("path, old, new, error", [
    ("hw/afu_system.tcl", "afu.tx_rd emif_b.s0", "afu.tx_rdx emif_b.s0", "no interface tx_rdx"),
    ("rtl/shell/shell_fifo.v", "endmodule", "    wire lint_bait;\nendmodule", "lint"),
])
def test_broken_project_is_reported(tmp_path, path, old, new, error):
    p = write_project(tmp_path, None, None, 0)
    f = tmp_path / path
    text = f.read_text()
    assert old in text  # the damage is really done
    f.write_text(text.replace(old, new))
    with pytest.raises(SpgenError, match=error):
        check_project(p)



def test_lint_remembered_by_content(tmp_path, monkeypatch):
    """A passing lint is not run again for the same files (in another folder); a changed
    file is linted again, and a failing lint is never remembered."""
    import subprocess

    monkeypatch.setenv("SPGEN_CACHE", str(tmp_path / "cache"))
    check_project(write_project(tmp_path / "a", None, None, 0))
    lints = []
    real = subprocess.run
    monkeypatch.setattr(subprocess, "run",
                        lambda cmd, **kw: (lints.append(cmd) if "--lint-only" in cmd else None) or real(cmd, **kw))
    b = write_project(tmp_path / "b", None, None, 0)
    check_project(b)
    assert lints == []
    f = tmp_path / "b/rtl/shell/shell_fifo.v"
    f.write_text(f.read_text().replace("endmodule", "    wire lint_bait;\nendmodule"))
    for _ in range(2):
        with pytest.raises(SpgenError, match="lint"):
            check_project(b)
    assert len(lints) == 2
