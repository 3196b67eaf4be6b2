"""House style: the Python sources are clean under ruff (pyproject.toml holds its settings)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "compiler", "tests", "benchmarks",
                        "examples", "containers"], cwd=ROOT, capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
