"""The pygls server: LSP messages in, analysis on one worker thread, results out."""
from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import sys
import threading
import traceback

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from .._fpenv import reset_fp_env
from ._features import (
    OutlineSymbol,
    completion,
    definition,
    hover,
    outline,
    references,
)
from ._workspace import Diag, Document, Workspace

__all__ = ["SpdServer", "create_server", "serve"]

log = logging.getLogger("spgen.lsp")

# A check that took longer than this last time is not run on the keystroke itself but
# after the typing pauses for DEBOUNCE_S (initializationOptions may change both).
BUDGET_S = 0.05
DEBOUNCE_S = 0.3
# The parser recurses per nesting level (up to 256 levels, then a diagnostic), as in
# the front end: the worker thread gets a large stack and the recursion limit to match.
_STACK_BYTES = 512 << 20
_RECURSION_LIMIT = 60_000

_SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
             "note": T.DiagnosticSeverity.Information}
_COMPLETION_KIND = {"keyword": T.CompletionItemKind.Keyword,
                    "function": T.CompletionItemKind.Function,
                    "module": T.CompletionItemKind.Module,
                    "type": T.CompletionItemKind.TypeParameter,
                    "variable": T.CompletionItemKind.Variable,
                    "constant": T.CompletionItemKind.Constant,
                    "field": T.CompletionItemKind.Field}
_SYMBOL_KIND = {"module": T.SymbolKind.Module, "field": T.SymbolKind.Field,
                "constant": T.SymbolKind.Constant, "variable": T.SymbolKind.Variable}


def _worker() -> concurrent.futures.ThreadPoolExecutor:
    old = threading.stack_size()
    try:
        threading.stack_size(_STACK_BYTES)
    except (ValueError, RuntimeError):
        pass  # no big stacks here: deep input meets RecursionError sooner, still caught
    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="spgen-lsp")
    pool.submit(lambda: None).result()  # start the thread while the stack size holds
    threading.stack_size(old)
    return pool


class SpdServer(LanguageServer):
    """The `.spd` language server: one Workspace, touched only by the worker thread."""

    def __init__(self):
        super().__init__("spgen-lsp", __version__)
        self.ws = Workspace()
        self.pool = _worker()
        self.budget_s = BUDGET_S
        self.debounce_s = DEBOUNCE_S
        self.versions: dict[str, int] = {}  # uri -> the latest version seen
        self.pending: dict[str, asyncio.Task] = {}

    async def on_worker(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    # ---- positions -------------------------------------------------------------------
    def _lines(self, path: str) -> list[str]:
        v = self.ws.view(path)
        return v.lines if v is not None else []

    def to_range(self, lines: list[str], r: tuple[int, int, int, int]) -> T.Range:
        codec = self.workspace.position_codec

        def pos(line, col):
            text = lines[line] if 0 <= line < len(lines) else ""
            return T.Position(line, codec.client_num_units(text[:col]) if not text.isascii()
                              else col)

        return T.Range(pos(r[0], r[1]), pos(r[2], r[3]))

    def from_position(self, uri: str, p: T.Position) -> tuple[int, int]:
        doc = self.workspace.get_text_document(uri)
        sp = self.workspace.position_codec.position_from_client_units(doc.lines, p)
        return sp.line, sp.character

    # ---- diagnostics -------------------------------------------------------------------
    def lsp_diagnostics(self, diags: list[Diag], lines: list[str]) -> list[T.Diagnostic]:
        """On the worker: related places in other files need their (cached) text."""
        out = []
        for d in diags:
            related = [T.DiagnosticRelatedInformation(
                T.Location(_uri(path), self.to_range(self._lines(path), rng)), msg)
                for path, rng, msg in d.related]
            out.append(T.Diagnostic(
                range=self.to_range(lines, d.range), message=d.message,
                severity=_SEVERITY[d.severity], source="spgen",
                related_information=related or None,
                tags=[T.DiagnosticTag.Unnecessary] if d.unused else None))
        return out

    def publish(self, uri: str, version: int | None, diags: list[T.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version))

    async def analyze(self, uri: str, version: int | None, text: str) -> None:
        """Parse and index at once; check at once when it is cheap, else after a pause."""
        self.versions[uri] = version
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        path = to_fs_path(uri) or uri

        def fast():
            doc = self.ws.docs.get(_real(path))
            if doc is None:
                doc = self.ws.open(path, text)
            else:
                doc.update(text)
            kind = doc.due(self.budget_s)
            shown, doc.showing_syntax = doc.showing_syntax, False
            if kind is not None:
                doc.run_check(kind)
                return self.lsp_diagnostics(doc.diagnostics(), doc.view.lines), False
            later = doc.deferred() is not None
            if doc.view.parsed.errors:
                doc.showing_syntax = True
                return self.lsp_diagnostics(doc.fast_diagnostics(), doc.view.lines), later
            # syntax errors fixed: clear them now; the check's findings follow the pause
            return ([] if shown else None), later

        diags, later = await self.on_worker(
            _guard(fast, path, lambda d: (self.lsp_diagnostics(d, []), False)))
        if diags is not None:
            self.publish(uri, version, diags)
        if later:
            self.pending[uri] = asyncio.ensure_future(self._later(uri, version, path))

    async def _later(self, uri: str, version: int | None, path: str) -> None:
        await asyncio.sleep(self.debounce_s)
        if self.versions.get(uri) != version:
            return

        def full():
            doc = self.ws.docs.get(_real(path))
            kind = doc.deferred() if doc is not None else None
            if kind is None:
                return None
            doc.run_check(kind)
            return self.lsp_diagnostics(doc.diagnostics(), doc.view.lines)

        diags = await self.on_worker(_guard(full, path, lambda d: self.lsp_diagnostics(d, [])))
        if diags is not None and self.versions.get(uri) == version:
            self.publish(uri, version, diags)

    def doc(self, uri: str) -> Document | None:
        return self.ws.docs.get(_real(to_fs_path(uri) or uri))


def _real(path: str) -> str:
    return os.path.realpath(path)


def _uri(path: str) -> str:
    return from_fs_path(path) or path


def _guard(fn, path: str, on_error):
    """``fn`` with any exception logged and shown as one diagnostic, never a crash."""
    def run():
        try:
            return fn()
        except Exception as ex:  # noqa: BLE001 -- a bug must not take the editor's server down
            log.error("spgen lsp: internal error on %s:\n%s", path, traceback.format_exc())
            msg = f"spgen lsp: internal error ({type(ex).__name__}: {ex}); see the server log"
            return on_error([Diag("error", msg, (0, 0, 0, 0))])
    return run


def create_server() -> SpdServer:
    ls = SpdServer()

    @ls.feature(T.INITIALIZE)
    def initialize(ls: SpdServer, params: T.InitializeParams):
        opts = params.initialization_options or {}
        if isinstance(opts, dict):
            ls.budget_s = float(opts.get("checkBudgetMs", ls.budget_s * 1000)) / 1000
            ls.debounce_s = float(opts.get("debounceMs", ls.debounce_s * 1000)) / 1000

    @ls.feature(T.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: SpdServer, params: T.DidOpenTextDocumentParams):
        td = params.text_document
        await ls.analyze(td.uri, td.version, td.text)

    @ls.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: SpdServer, params: T.DidChangeTextDocumentParams):
        td = params.text_document
        doc = ls.workspace.get_text_document(td.uri)
        await ls.analyze(td.uri, td.version, doc.source)

    @ls.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: SpdServer, params: T.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        ls.versions.pop(uri, None)
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        await ls.on_worker(ls.ws.close, to_fs_path(uri) or uri)
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    async def query(ls: SpdServer, uri: str, fn, default):
        def run():  # on the worker, so it sees the document as of the edits before it
            doc = ls.doc(uri)
            return default if doc is None or doc.view is None else fn(doc)
        try:
            return await ls.on_worker(run)
        except Exception:  # noqa: BLE001 -- answer nothing rather than fail the request
            log.error("spgen lsp: request failed on %s:\n%s", uri, traceback.format_exc())
            return default

    @ls.feature(T.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: SpdServer, params: T.HoverParams):
        line, col = ls.from_position(params.text_document.uri, params.position)

        def run(doc):
            h = hover(ls.ws, doc, line, col)
            if h is None:
                return None
            return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, h[0]),
                           ls.to_range(doc.view.lines, h[1]))
        return await query(ls, params.text_document.uri, run, None)

    def locations(locs) -> list[T.Location]:
        return [T.Location(_uri(p), ls.to_range(ls._lines(p), r)) for p, r in locs]

    @ls.feature(T.TEXT_DOCUMENT_DEFINITION)
    async def on_definition(ls: SpdServer, params: T.DefinitionParams):
        line, col = ls.from_position(params.text_document.uri, params.position)
        return await query(ls, params.text_document.uri,
                           lambda doc: locations(definition(ls.ws, doc, line, col)), None)

    @ls.feature(T.TEXT_DOCUMENT_REFERENCES)
    async def on_references(ls: SpdServer, params: T.ReferenceParams):
        line, col = ls.from_position(params.text_document.uri, params.position)
        incl = params.context.include_declaration
        return await query(ls, params.text_document.uri,
                           lambda doc: locations(references(ls.ws, doc, line, col, incl)), [])

    @ls.feature(T.TEXT_DOCUMENT_COMPLETION,
                T.CompletionOptions(trigger_characters=[":", "(", ",", "[", "="]))
    async def on_completion(ls: SpdServer, params: T.CompletionParams):
        line, col = ls.from_position(params.text_document.uri, params.position)

        def run(doc):
            items = [T.CompletionItem(label=i.label, kind=_COMPLETION_KIND[i.kind],
                                      detail=i.detail or None)
                     for i in completion(ls.ws, doc, line, col)]
            return T.CompletionList(is_incomplete=False, items=items)
        return await query(ls, params.text_document.uri, run, None)

    @ls.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def on_symbols(ls: SpdServer, params: T.DocumentSymbolParams):
        def conv(lines, o: OutlineSymbol) -> T.DocumentSymbol:
            return T.DocumentSymbol(
                name=o.name, kind=_SYMBOL_KIND[o.kind], detail=o.detail,
                range=ls.to_range(lines, o.range),
                selection_range=ls.to_range(lines, o.selection),
                children=[conv(lines, c) for c in o.children] or None)
        return await query(ls, params.text_document.uri,
                           lambda doc: [conv(doc.view.lines, o) for o in outline(doc)], [])

    return ls


def serve() -> None:
    """Serve LSP over stdin/stdout (logs go to stderr)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    reset_fp_env()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), _RECURSION_LIMIT))
    create_server().start_io()
