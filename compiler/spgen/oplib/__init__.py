"""oplib."""
