"""The emulator tests' graphs and value vectors (tests/backend_llvm/llvm_graphs.py)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "backend_llvm"))
