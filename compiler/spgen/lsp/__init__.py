"""The SPD language server (`spgen lsp`): diagnostics, hover, definitions, completion, symbols."""
from __future__ import annotations

__all__ = ["serve"]


def serve() -> None:
    """Serve the Language Server Protocol on stdin/stdout until the client exits."""
    from ._server import serve as _serve

    _serve()
