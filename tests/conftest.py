"""Puts tests/ on sys.path so every suite can `from reference import evaluate`."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
