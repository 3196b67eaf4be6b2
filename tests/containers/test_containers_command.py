"""`spgen container build|check|compare` through the real command line."""
from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
from spgen.cli import main
from spgen.commands._container import bind_args, compare_results

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def _dma(records):
    return {"benchmark": "dma", "key": ["type", "size"], "records": records}


def test_compare_prints_percent_per_key(tmp_path, capsys):
    a = _write(tmp_path / "bare.json", _dma([
        {"type": "H2F", "size": 4096, "gbps": 2.0, "time_s": 1e-6},
        {"type": "F2H", "size": 4096, "gbps": 4.0, "time_s": 2e-6},
        {"type": "F2F", "size": 64, "gbps": 1.0, "time_s": 5e-7}]))
    b = _write(tmp_path / "sif.json", _dma([
        {"type": "H2F", "size": 4096, "gbps": 1.8, "time_s": 1.1e-6},
        {"type": "F2H", "size": 4096, "gbps": 4.0, "time_s": 2e-6},
        {"type": "H2H", "size": 64, "gbps": 0.5, "time_s": 1e-6}]))
    assert main(["container", "compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("type=H2F, size=4096  gbps"))
    assert line.split()[-1] == "-10.00"
    line = next(ln for ln in out.splitlines() if ln.startswith("type=H2F, size=4096  time_s"))
    assert line.split()[-1] == "+10.00"
    assert "only in A: type=F2F, size=64" in out
    assert "only in B: type=H2H, size=64" in out
    assert "largest |difference| of gbps: 10.00 %" in out
    assert main(["container", "compare", str(a), str(b), "--fields", "gbps"]) == 0
    out = capsys.readouterr().out
    assert "gbps" in out and "time_s" not in out
    assert main(["container", "compare", str(a), str(b), "--fields", "nope"]) == 1
    assert "no numeric field nope" in capsys.readouterr().err
    # With a tolerance the same files fail (10 % > 5 %, and records on one side only).
    assert main(["container", "compare", str(a), str(b), "--tolerance", "5"]) == 1


def test_compare_bare_lists_and_explicit_key(tmp_path, capsys):
    a = _write(tmp_path / "a.json", [{"core": "lbm", "cells": 1000, "mlups": 50.0},
                                     {"core": "jacobi", "cells": 1000, "mlups": 200.0}])
    b = _write(tmp_path / "b.json", [{"core": "jacobi", "cells": 1000, "mlups": 190.0},
                                     {"core": "lbm", "cells": 1000, "mlups": 55.0}])
    assert main(["container", "compare", str(a), str(b), "--tolerance", "12"]) == 0
    out = capsys.readouterr().out
    assert "core=lbm  " in out and "+10.00" in out and "-5.00" in out
    # With --key the numeric "cells" identifies records instead of being compared.
    assert main(["container", "compare", str(a), str(b), "--key", "core,cells"]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("core=")]
    assert len(rows) == 2
    assert {re.split(r"\s{2,}", ln)[1] for ln in rows} == {"mlups"}
    assert rows[0].startswith("core=lbm, cells=1000")


def test_compare_zero_and_equal_values():
    res = compare_results([{"k": "x", "v": 0.0, "w": 3}], [{"k": "x", "v": 1.0, "w": 3}], ["k"])
    by_field = {r["field"]: r["pct"] for r in res["rows"]}
    assert by_field["w"] == 0.0
    assert by_field["v"] != by_field["v"]  # NaN: no percentage of a zero baseline


@pytest.mark.parametrize("content,message", [
    ("{not json", "not JSON"),
    ('{"records": 3}', "expected a list of records"),
    ('{"key": "type", "records": []}', "\"key\" must be a list"),
    ('[{"size": 1, "v": 2}, {"size": 1, "v": 3}]', "two records with key size=1"),
])
def test_compare_rejects_bad_files_clearly(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    good = _write(tmp_path / "good.json", [{"size": 1, "v": 2}])
    assert main(["container", "compare", str(bad), str(good)]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_compare_missing_file(tmp_path, capsys):
    assert main(["container", "compare", str(tmp_path / "no.json"), str(tmp_path / "no2.json")]) == 1
    assert "cannot read" in capsys.readouterr().err


def _fake_runtime(bin_dir: Path, name: str, version: str, log: Path) -> None:
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    script.write_text(f"""#!/bin/sh
if [ "$1" = "--version" ]; then echo "{name} version {version}"; exit 0; fi
echo "args: $*" > {log}
echo "cwd: $(pwd)" >> {log}
find . -type f | sort >> {log}
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_build_says_exactly_what_is_missing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    # No runtime: `build` falls back on the built-in builder, which lacks its tools here.
    assert main(["container", "build", "--repo", str(ROOT)]) == 1
    err = capsys.readouterr().err
    assert "missing tool(s) debootstrap, mksquashfs, siftool" in err and "Apptainer" in err
    assert main(["container", "build", "--repo", str(ROOT), "--builder", "apptainer"]) == 1
    err = capsys.readouterr().err
    assert "neither `apptainer` nor `singularity` is on PATH" in err
    assert "Apptainer >= 1.2" in err and "SingularityCE >= 4.0" in err
    assert main(["container", "check"]) == 1
    out = capsys.readouterr().out
    assert "MISSING" in out and "built-in builder" in out and "unavailable" in out


def test_build_rejects_an_old_runtime(tmp_path, monkeypatch, capsys):
    _fake_runtime(tmp_path / "bin", "singularity", "3.8.7", tmp_path / "log")
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + "/usr/bin:/bin")
    assert main(["container", "build", "--repo", str(ROOT)]) == 1
    assert "need singularity >= 4.0" in capsys.readouterr().err
    assert not (tmp_path / "log").exists()


def test_build_stages_a_clean_copy_and_runs_the_runtime(tmp_path, monkeypatch, capsys):
    log = tmp_path / "log"
    _fake_runtime(tmp_path / "bin", "apptainer", "1.3.4", log)
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    out = tmp_path / "x.sif"
    assert main(["container", "build", "--repo", str(ROOT), "--opae", "-o", str(out),
                 "--build-arg", "DEBIAN_TAG=12.9-slim"]) == 0
    text = log.read_text()
    args = text.splitlines()[0]
    assert "build" in args and "--build-arg DEBIAN_TAG=12.9-slim" in args
    assert "--build-arg OPAE=1" in args and args.endswith(f"{out} containers/spgen.def")
    files = set(text.splitlines()[2:])
    assert "./containers/spgen.def" in files and "./setup.py" in files
    assert "./compiler/spgen/passes/__init__.py" in files
    assert not any(f.startswith(("./.venv/", "./.git/")) for f in files)
    assert "staged" in capsys.readouterr().out
    assert main(["container", "check"]) == 0
    assert "apptainer version 1.3.4" in capsys.readouterr().out


def test_build_arg_syntax_and_bind_args(capsys):
    assert main(["container", "build", "--repo", str(ROOT), "--build-arg", "oops"]) == 1
    assert "NAME=VALUE" in capsys.readouterr().err
    assert bind_args(["/dev/intel-fpga-port.0", "/dev/intel-fpga-fme.0"]) == [
        "--bind", "/dev/intel-fpga-port.0", "--bind", "/dev/intel-fpga-fme.0"]


def test_run_binds_devices_and_passes_arguments(tmp_path, monkeypatch, capsys):
    import spgen.commands._container as C

    log = tmp_path / "log"
    _fake_runtime(tmp_path / "bin", "apptainer", "1.3.4", log)
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    monkeypatch.setattr(C, "fpga_devices", lambda: ["/dev/intel-fpga-port.0"])
    image = tmp_path / "s.sif"
    assert main(["container", "run", "--image", str(image), "--", "bench", "dma"]) == 1
    assert "not found" in capsys.readouterr().err
    image.write_bytes(b"sif")
    assert main(["container", "run", "--image", str(image), "--", "bench", "dma", "--quick"]) == 0
    args = log.read_text().splitlines()[0]
    assert args == f"args: run --bind /dev/intel-fpga-port.0 {image} bench dma --quick"
