"""`spgen lsp`: the SPD language server on stdin/stdout, for editors (docs/editor.md)."""
from __future__ import annotations

import argparse

from .._diagnostics import SpgenError

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stdio", action="store_true",
                        help="talk LSP over stdin/stdout (the default and only transport)")
    parser.epilog = ("Started by an editor, not by hand: VS Code (editors/vscode) and Neovim "
                     "set it up as docs/editor.md shows.")


def run(args: argparse.Namespace) -> int:
    try:
        import pygls  # noqa: F401 -- checked here for a clear message

        from ..lsp import serve
    except ImportError as ex:
        raise SpgenError(f"the language server needs pygls ({ex}); install it with "
                         "`pip install 'spgen[lsp]'` or `pip install 'pygls>=2.1,<3'`") from None
    serve()
    return 0
