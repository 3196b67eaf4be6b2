"""Puts tests/ on sys.path so every suite can `from reference import evaluate`.

It also puts the FPU back in IEEE mode before every test: lbmpy's kernels are built
with -ffast-math, and loading one sets DAZ/FTZ for the whole worker process, which
would make numpy (and so every float32 reference) flush subnormals in later tests.
"""
import sys
from pathlib import Path

import pytest
from spgen._fpenv import reset_fp_env

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _ieee_float_mode():
    reset_fp_env()
    yield
