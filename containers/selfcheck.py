"""Quick self-check of an installed spgen (the container's %test): compile, emulate, DMA."""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def step_compile(src: Path, state: dict) -> str:
    import spgen

    design = spgen.compile(src / "cores" / "jacobi5" / "jacobi5.spd")
    text = design.verilog.text
    if f"module {design.name}" not in text:
        raise RuntimeError("generated Verilog lacks the core module")
    state["design"] = design
    return f"{design.name}: {len(design.graph.nodes)} IR nodes, {len(text.splitlines())} Verilog lines"


def step_emulate(src: Path, state: dict) -> str:
    sys.path.insert(0, str(src / "tests"))
    from reference import evaluate, nan_equal

    design = state["design"]
    n = 4096
    rng = np.random.default_rng(0)
    inputs = np.zeros(n, dtype=design.input_dtype())
    for name in inputs.dtype.names:
        if inputs.dtype[name].kind == "f":
            inputs[name] = rng.standard_normal(n).astype(np.float32)
        else:
            inputs[name] = rng.integers(0, 3, n)
    out = design.emulate(inputs)
    bits = {name: inputs[name].view(np.uint32) for name in inputs.dtype.names}
    want = evaluate(design.graph, n, bits, {})
    for o in design.graph.outputs:
        if not nan_equal(out[o.port.name].view(np.uint32), want[o.port.name], o.port.type):
            raise RuntimeError(f"emulated output {o.port.name} differs from the reference")
    return f"{n} elements, bit-exact with the numpy reference"


def step_dma(src: Path, state: dict) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "dma.json"
        cmd = [sys.executable, "-m", "spgen", "bench", "dma", "--quick", "--json", str(out)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd[2:])} exited {r.returncode}:\n"
                               f"{(r.stdout + r.stderr)[-2000:]}")
        import json

        records = json.loads(out.read_text())["records"]
        bad = [r for r in records if r.get("integrity_errors", 0)]
        if not records or bad:
            raise RuntimeError(f"{len(bad)} of {len(records)} transfer sizes arrived corrupted")
        kinds = sorted({r["type"] for r in records})
        return f"{len(records)} transfer sizes ({', '.join(kinds)}), data intact"


STEPS = [("compile a core", step_compile), ("emulate", step_emulate),
         ("DMA on the simulated card", step_dma)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prefix", default="/opt/spgen",
                        help="install prefix; the sources are under PREFIX/src")
    args = parser.parse_args(argv)
    src = Path(args.prefix) / "src"
    state: dict = {}
    failed = 0
    for name, fn in STEPS:
        t0 = time.perf_counter()
        try:
            what = fn(src, state)
            print(f"[ ok ] {name}: {what} ({time.perf_counter() - t0:.1f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 - report every step, then fail
            failed += 1
            print(f"[FAIL] {name}: {type(e).__name__}: {e}", flush=True)
            if name == "compile a core":
                break
    print("self-check " + ("passed" if not failed else f"FAILED ({failed} step(s))"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
