"""Puts tests/lbm on sys.path so the tests can import the numpy reference model."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
