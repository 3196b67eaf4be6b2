"""One cluster simulated in one process and as 2 and 4 MPI ranks: identical results and cycle counts."""
from __future__ import annotations

import os
import subprocess

import pytest
from spgen.runtime import rdma

# OpenMPI comes with the project's system packages (scripts/ensure-system-packages.sh)
pytestmark = pytest.mark.xdist_group("rdma")


def _run(exe, desc, ranks: int) -> list[str]:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    proc = subprocess.run(["mpirun", "-np", str(ranks), "--oversubscribe", str(exe), str(desc), "300", "5"],
                          capture_output=True, text=True, check=False, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[-1] == f"ranks {ranks}"
    return lines[:-1]


_M = (1 << 64) - 1


def _mix(x: int) -> int:  # rdma_mpi.cpp's hash, for the same workload in this process
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & _M
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & _M
    return x ^ (x >> 33)


def _in_process(desc: str, max_words: int, seed: int) -> list[str]:
    """The rdma-mpi workload through the Python API, stepped cycle by cycle in one process."""
    cl = rdma.Cluster({"topology": "ring", "cards": 2})
    cl.sim = cl.ext.Cluster(desc)
    n = cl.sim.ncards
    handles = []
    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            h = _mix((seed * 1000003 + s * 64 + d) & _M)
            size = 4 * (1 + h % max_words)
            src, dst = (s * n + d) * max_words * 4, (1 << 24) + (s * n + d) * max_words * 4
            cl.sim.write(s, src, bytes((_mix((h + i) & _M) >> 24) & 0xFF for i in range(size)))
            if (s + d) & 1:
                handles.append((d, cl.sim.get(d, s, dst, src, size)))
            else:
                handles.append((s, cl.sim.put(s, d, src, dst, size)))
    lines = []
    for card, h in handles:
        assert cl.sim.wait(h, 10**7)
        state, code, issued, done = cl.sim.status(h)
        lines.append(f"op card {card} id {h & 0xFFFFFFFF} state {state} code {code} issued {issued} done {done}")
    return sorted(lines)


def test_rdma_mpi_ranks_match_single_process(tmp_path) -> None:
    exe = rdma.build_mpi_tool()
    desc = tmp_path / "torus.txt"
    desc.write_text(rdma.resolve({"topology": "torus", "dims": [2, 4], "line_rate_gbps": 100, "seed": 3,
                                  "faults": {"per": 1e-3, "down": [[1000, 4000]]}}))
    one = _run(exe, desc, 1)
    assert sum(ln.startswith("region ") for ln in one) == 56
    assert not any("CORRUPT" in ln for ln in one)
    ops = [ln for ln in one if ln.startswith("op ")]
    assert len(ops) == 56 and all(" state 1 code 0 " in ln for ln in ops)
    stats = next(ln for ln in one if ln.startswith("links "))
    assert " replays 0" not in stats  # the faults were exercised
    assert sorted(ops) == _in_process(desc.read_text(), 300, 5)
    assert _run(exe, desc, 4) == one
    assert _run(exe, desc, 2) == one
