"""Helpers for driving `spgen lsp` over stdio with pytest-lsp's client."""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "spgen", "lsp"])
ROOT = Path(__file__).resolve().parents[2]


async def start(client: LanguageClient, **options) -> None:
    await client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(), root_uri=ROOT.as_uri(),
        initialization_options=options))


async def wait_diagnostics(client: LanguageClient, uri: str, timeout: float = 20.0) -> list:
    """The next diagnostics published for ``uri`` (call ``client.diagnostics.pop`` before)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while uri not in client.diagnostics:
        if loop.time() > end:
            raise TimeoutError(f"no diagnostics for {uri}")
        await asyncio.sleep(0.005)
    return list(client.diagnostics[uri])


async def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> list:
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri, "spd", 1, path.read_text() if text is None else text)))
    return await wait_diagnostics(client, uri)


def change_doc(client: LanguageClient, uri: str, version: int, text: str,
               at: T.Range | None = None) -> None:
    """Edit the document: ``text`` replaces all of it, or the range ``at``. The diagnostics
    received before are dropped, so that ``wait_diagnostics`` waits for the edit's."""
    client.diagnostics.pop(uri, None)
    change = (T.TextDocumentContentChangeWholeDocument(text=text) if at is None
              else T.TextDocumentContentChangePartial(range=at, text=text))
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))


def close_doc(client: LanguageClient, path: Path) -> None:
    client.text_document_did_close(T.DidCloseTextDocumentParams(
        T.TextDocumentIdentifier(path.as_uri())))


def doc_id(path: Path) -> T.TextDocumentIdentifier:
    return T.TextDocumentIdentifier(path.as_uri())


def range_text(text: str, r: T.Range) -> str:
    """The text a range covers (ASCII documents: characters are code units)."""
    lines = text.split("\n")
    if r.start.line == r.end.line:
        return lines[r.start.line][r.start.character:r.end.character]
    parts = [lines[r.start.line][r.start.character:]] + lines[r.start.line + 1:r.end.line]
    return "\n".join(parts + [lines[r.end.line][:r.end.character]])


def position_of(text: str, needle: str, nth: int = 0, offset: int = 0) -> T.Position:
    """The position of the ``nth`` occurrence of ``needle``, ``offset`` characters in."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += offset
    line = text.count("\n", 0, i)
    return T.Position(line, i - (text.rfind("\n", 0, i) + 1))
