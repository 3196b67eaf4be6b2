"""backend."""
