"""backend/llvm."""
