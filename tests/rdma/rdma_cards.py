"""What the RDMA cluster tests share: the loop-back cards with link ports they run on."""
from __future__ import annotations

from pathlib import Path

import pytest
from spgen.cli import main


def build_link_card(tmp_path_factory: pytest.TempPathFactory, links: int) -> Path:
    """A loop-back card with `links` link ports, built into a folder of this session;
    operations time out after 100,000 cycles (0.5 ms)."""
    out = tmp_path_factory.mktemp("cards") / f"link{links}"
    assert main(["build", "--loopback", "--links", str(links), "--op-timeout", "100000", "-o", str(out)]) == 0
    return out


def compile_c_program(source: Path, exe: Path) -> Path:
    """A C program of the RDMA tests (afushell/rdma.h, afushell/afushell.h) compiled with
    warnings as errors and linked against the runtime library only."""
    import subprocess

    from spgen.runtime._build import build_runtime, repo_root

    rt, runtime = build_runtime(), repo_root() / "runtime"
    incs = [runtime / "include", runtime / "rdma" / "include", runtime / "sim" / "include"]
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", str(source), *[f"-I{d}" for d in incs],
                    f"-L{rt}", "-lafushell", f"-Wl,-rpath,{rt}", "-o", str(exe)], check=True)
    return exe
