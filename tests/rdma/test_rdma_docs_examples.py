"""docs/rdma.md "Using it" runs as written: the build command, the cluster file, the Python
example and the C example with its compile command."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from spgen.cli import main

pytestmark = pytest.mark.xdist_group("rdma_cluster")
ROOT = Path(__file__).parents[2]


def _blocks() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "rdma.md").read_text()
    section = text[text.index("## Using it"):text.index("### Cluster file (JSON)")]
    return re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)


def test_rdma_docs_using_it_runs_as_written(tmp_path, monkeypatch) -> None:
    blocks = _blocks()
    assert [k for k, _ in blocks] == ["sh", "json", "python", "c", "sh"]
    monkeypatch.chdir(tmp_path)
    build = shlex.split(blocks[0][1], comments=True)
    assert build[:2] == ["spgen", "build"] and main(build[1:]) == 0
    (tmp_path / "cluster.json").write_text(blocks[1][1])
    py = subprocess.run([sys.executable, "-c", blocks[2][1]], capture_output=True, text=True, timeout=600, check=False)
    assert py.returncode == 0, py.stderr[-3000:]
    assert "cluster state at cycle" in py.stdout and "port 0: tx" in py.stdout
    (tmp_path / "hello.c").write_text(blocks[3][1])
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    cc = subprocess.run(["bash", "-c", blocks[4][1].replace("-I runtime/", f"-I {ROOT}/runtime/")],
                        capture_output=True, text=True, timeout=900, env=env, check=False)
    assert cc.returncode == 0, cc.stdout[-2000:] + cc.stderr[-2000:]
    assert "ok: hello from card 0 after" in cc.stdout
    assert "to card 9: RDMA: no route to the destination card (0x201)" in cc.stdout
