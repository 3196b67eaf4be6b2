"""Streams and puts between RTL cards of a cluster split over MPI ranks (`rdma-mpi-stream`)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from .._card import CLOCK_MHZ
from ._errors import SpgenError

__all__ = ["fnv1a64", "parse_output", "put_gbps", "run_mpi_stream", "stream_gbps", "stream_input"]

_M1, _M2 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53)


def stream_input(step: int, words: int) -> np.ndarray:
    """The u32 words the tool writes for its step number `step` (its argv index), as
    runtime/rdma/rdma_mpi_stream.cpp makes them: x = mix(step * 2^32 + i), its low half with
    the f32 exponent field 126 + (x >> 32) % 4 (f32 numbers of magnitude 0.5 .. 16, varied u32
    words)."""
    x = (np.uint64(step) << np.uint64(32)) + np.arange(words, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x ^= x >> np.uint64(33)
        x *= _M1
        x ^= x >> np.uint64(33)
        x *= _M2
        x ^= x >> np.uint64(33)
    exp = (np.uint64(126) + (x >> np.uint64(32)) % np.uint64(4)) << np.uint64(23)
    return ((x & np.uint64(0x807FFFFF)) | exp).astype(np.uint32)


def fnv1a64(data: bytes) -> int:
    """FNV-1a, 64 bits: the tool's checksum of what arrived."""
    h = 1469598103934665603
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


_PUT = re.compile(r"put (\d+)->(\d+): (\d+) B, hops (\d+), code (\d+) issued (\d+) started (\d+) card_done (\d+) "
                  r"done (\d+), wrong bytes (\d+)")
_STREAM = re.compile(r"stream ([\d-]+): (\d+) records of (\d+) B, hops([\d ]*), started (\d+) done (\d+) cycles (\d+), "
                     r"output ([0-9a-f]+), first-core moved/total([\d/ ]+), link words([\d ]*), stream errors (\d+), "
                     r"DMA error (\d+)")
_SPEED = re.compile(r"^(\S+): (\d+) ranks, (\d+) cards: (\d+) cycles in ([\d.]+) s = (\d+) card-cycles/s, "
                    r"peak RSS ([\d.]+) MiB \(all ranks\), ([\d.]+) MiB \(largest rank\)", re.MULTILINE)


def _ints(s: str) -> list[int]:
    return [int(v) for v in s.split()]


def run_mpi_stream(cluster: dict, steps: list[str], *, ranks: int = 1, timeout_s: float | None = None) -> dict:
    """Runs `rdma-mpi-stream` on `cluster` (a cluster file's dict, RTL cards) in `ranks` MPI
    processes with the given steps (``put:SRC:DST:BYTES``, ``stream:C0-C1-..:RECORDS``).
    Returns ``stdout`` (identical for every rank count), ``steps`` (one dict per step, in
    order, with its cycles and counters), ``speed`` (per step and ``all``: wall time,
    card-cycles per second, peak RSS of all ranks and of the largest) and ``end_cycle``."""
    from ..lbm._cards_mpi import mpirun_env
    from .rdma import build_mpi_stream_tool

    if not shutil.which("mpirun"):
        raise SpgenError("MPI ranks need OpenMPI's mpirun: apt-get install libopenmpi-dev openmpi-bin")
    exe = build_mpi_stream_tool()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "cluster.json"
        path.write_text(json.dumps(cluster))
        cmd = ["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "none", str(exe), str(path), *steps]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=mpirun_env(), timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired as e:
            raise SpgenError(f"rdma-mpi-stream: not done after {timeout_s:g} s") from e
    if p.returncode != 0:
        raise SpgenError("rdma-mpi-stream failed:\n" + (p.stdout + p.stderr)[-3000:])
    return parse_output(p.stdout, p.stderr, len(steps))


def parse_output(stdout: str, stderr: str, steps: int) -> dict:
    """run_mpi_stream's result from the tool's stdout and stderr (of a run elsewhere, too)."""
    out: list[dict] = []
    for line in stdout.splitlines():
        if m := _PUT.fullmatch(line):
            v = [int(g) for g in m.groups()]
            out.append(dict(zip(("src", "dst", "bytes", "hops", "code", "issued", "started", "card_done", "done",
                                 "wrong_bytes"), v), kind="put"))
        elif m := _STREAM.fullmatch(line):
            g = m.groups()
            moved_total = [tuple(int(x) for x in t.split("/")) for t in g[8].split()]
            out.append({"kind": "stream", "chain": [int(c) for c in g[0].split("-")], "records": int(g[1]),
                        "record_bytes": int(g[2]), "hops": _ints(g[3]), "started": int(g[4]), "done": int(g[5]),
                        "cycles": int(g[6]), "output_fnv": int(g[7], 16), "in_moved": [a for a, _ in moved_total],
                        "in_total": [b for _, b in moved_total], "link_words": _ints(g[9]),
                        "stream_errors": int(g[10]), "dma_error": int(g[11])})
    if len(out) != steps:
        raise SpgenError("rdma-mpi-stream: unexpected output:\n" + stdout[-3000:])
    speed = {m.group(1): {"ranks": int(m.group(2)), "cards": int(m.group(3)), "cycles": int(m.group(4)),
                          "wall_s": float(m.group(5)), "card_cycles_per_s": int(m.group(6)),
                          "rss_mib_all": float(m.group(7)), "rss_mib_largest": float(m.group(8))}
             for m in _SPEED.finditer(stderr)}
    end = re.search(r"^end cycle (\d+)$", stdout, re.MULTILINE)
    return {"stdout": stdout, "steps": out, "speed": speed, "end_cycle": int(end.group(1)) if end else None}


def put_gbps(small: dict, big: dict, mhz: float = CLOCK_MHZ) -> float:
    """Payload Gb/s of puts from the difference of two sizes (on the card: the command reaching
    it to its completion), so the fixed costs cancel."""
    cycles = (big["card_done"] - big["started"]) - (small["card_done"] - small["started"])
    return (big["bytes"] - small["bytes"]) * 8 * mhz / 1000 / cycles


def stream_gbps(small: dict, big: dict, mhz: float = CLOCK_MHZ) -> tuple[float, float]:
    """Payload Gb/s of a stream from the difference of two record counts (the last card's RX
    engine busy from its descriptor to the last byte), and the fixed cycles the smaller run
    spent beyond its records at that rate (fill, hops, the first card's read-ahead)."""
    bits = 8 * small["record_bytes"]
    gbps = (big["records"] - small["records"]) * bits * mhz / 1000 / (big["cycles"] - small["cycles"])
    return gbps, small["cycles"] - small["records"] * bits * mhz / 1000 / gbps
