"""Hover, go to definition, references, completion and symbols of `spgen lsp` on the cores,
and a file typed character by character never crashing it."""
import asyncio

import pytest
import pytest_lsp
from lsp_client import (
    ROOT,
    SERVER,
    change_doc,
    doc_id,
    open_doc,
    position_of,
    range_text,
    start,
    wait_diagnostics,
)
from lsprotocol import types as T
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

LBM = ROOT / "cores" / "lbm" / "lbm_d2q9.spd"
PULL = ROOT / "cores" / "lbm" / "d2q9_pull.spd"
JACOBI = ROOT / "cores" / "jacobi5" / "jacobi5.spd"


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient):
    await start(lsp_client, checkBudgetMs=100000, debounceMs=0)
    for p in (LBM, JACOBI):
        assert await open_doc(lsp_client, p) == []
    yield
    await lsp_client.shutdown_session()


async def _hover(client, path, needle, nth=0, offset=0) -> str:
    pos = position_of(path.read_text(), needle, nth, offset)
    h = await client.text_document_hover_async(T.HoverParams(doc_id(path), pos))
    assert h is not None, needle
    return h.contents.value


async def test_hover_output_port_shows_type_kind_place_and_stage(client):
    text = await _hover(client, LBM, "f0_o = fluid")
    assert text.startswith("**f0_o** : f32")
    assert "output port 0 of Main_Out" in text and "label `o0`" in text
    assert "defined at lbm_d2q9.spd:23:9" in text
    assert "pipeline stage: tick " in text and " of 213" in text  # the core's latency


async def test_hover_types_come_from_the_compiler(client):
    assert (await _hover(client, LBM, "fluid =")).startswith("**fluid** : bool")
    assert (await _hover(client, LBM, "attr:u32", offset=1)).startswith("**attr** : u32")
    assert "integer = 64" in await _hover(client, LBM, "W = 64")
    omega = await _hover(client, LBM, "omega);")
    assert omega.startswith("**omega** : f32") and "Reg" in omega
    assert "defined at lbm_d2q9.spd:12:5" in omega
    fin = await _hover(client, LBM, "fin4", nth=1)
    assert fin.startswith("**fin4** : f32") and "HDL `st` (`d2q9_pull`)" in fin


async def test_hover_on_an_expression_gives_its_op_type_and_tick(client):
    text = await _hover(client, LBM, "?", nth=0)
    assert "`?:` conditional" in text and ": f32 (IR op `select`)" in text
    assert "pipeline stage: tick" in text
    text = await _hover(client, LBM, "& 3")
    assert "operator `&`" in text and ": u32 (IR op `and`)" in text
    # jacobi5: the four shifted neighbours are summed in a chain of adds
    text = await _hover(client, JACOBI, "shift(u, 1)")
    assert "shift(x, d [, fill])" in text and ": f32 (IR op `shift`)" in text


async def test_hover_module_and_keyword(client):
    text = await _hover(client, LBM, "d2q9_pull(")
    assert "module d2q9_pull(" in text and "Params: W" in text
    assert "EQU label, name" in await _hover(client, LBM, "EQU k0")


async def test_definition_of_signal_port_param_and_module(client):
    lbm = LBM.read_text()

    async def where(needle, nth=0, offset=0):
        res = await client.text_document_definition_async(T.DefinitionParams(
            doc_id(LBM), position_of(lbm, needle, nth, offset)))
        (loc,) = res
        return loc.uri, loc.range

    uri, r = await where("fin4", nth=1)  # used by the collision HDL
    assert uri == LBM.as_uri() and r.start == position_of(lbm, "fin4")
    uri, r = await where("fluid ?")
    assert r.start == position_of(lbm, "fluid =")
    uri, r = await where("(attr);", offset=1)  # DRCT source: the input port
    assert r.start == position_of(lbm, "attr:u32")
    uri, r = await where("W];", offset=0)  # the value W: this module's Param
    assert r.start == position_of(lbm, "W = 64")
    uri, r = await where("[W=", offset=1)  # the name W: the callee's Param
    assert uri == PULL.as_uri() and r.start == position_of(PULL.read_text(), "W = ")
    uri, r = await where("d2q9_pull(")
    assert uri == PULL.as_uri()
    assert range_text(PULL.read_text(), r) == "d2q9_pull"
    uri, r = await where('"d2q9_pull.spd"', offset=2)
    assert uri == PULL.as_uri() and r.start == T.Position(0, 0)
    # an output port's declaration leads to the statement that defines it
    uri, r = await where("f3_o")
    assert r.start == position_of(lbm, "f3_o = ")


async def test_references_of_a_signal_and_of_a_module(client):
    lbm = LBM.read_text()
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc_id(LBM), position=position_of(lbm, "fluid ="),
        context=T.ReferenceContext(include_declaration=True)))
    assert len(refs) == 10  # the definition and nine uses
    assert {r.range.start.line for r in refs} == set(range(21, 31))
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc_id(LBM), position=position_of(lbm, "fluid ="),
        context=T.ReferenceContext(include_declaration=False)))
    assert len(refs) == 9
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc_id(LBM), position=position_of(lbm, "d2q9_collide("),
        context=T.ReferenceContext(include_declaration=True)))
    uris = sorted(r.uri for r in refs)
    assert uris == sorted([LBM.as_uri(), (ROOT / "cores/lbm/d2q9_collide.spd").as_uri()])


async def _complete(client, path, text, pos) -> dict[str, T.CompletionItem]:
    path.write_text(text)
    await open_doc(client, path, text)
    res = await client.text_document_completion_async(T.CompletionParams(doc_id(path), pos))
    return {i.label: i for i in res.items}


async def test_completion_offers_names_in_scope(client, tmp_path):
    text = ("Name other;\nMain_In {Mi::zz};\nMain_Out {Mo::zo};\nEQU e, zo = zz;\n"
            "Name m;\nMain_In {Mi::a, n:i32};\nMain_Out {Mo::y};\nParam W = 4;\n"
            "Reg w = 0.5;\nEQU e1, s = a * w;\nEQU e2, y = s + \n")
    end = T.Position(10, len("EQU e2, y = s + "))
    items = await _complete(client, tmp_path / "c.spd", text, end)
    assert {"a", "n", "W", "w", "s", "sqrt", "shift"} <= set(items)
    assert "zz" not in items and "EQU" not in items  # another module's names; no keywords
    assert items["W"].kind == T.CompletionItemKind.Constant
    assert items["sqrt"].kind == T.CompletionItemKind.Function
    # a statement's start: keywords
    done = text.replace("s + \n", "s + a;\n")
    items = await _complete(client, tmp_path / "c.spd", done, T.Position(11, 0))
    assert {"EQU", "HDL", "DRCT", "Param", "Reg", "Name"} <= set(items)
    # a port's type
    text2 = "Name m;\nMain_In {Mi::a:\n"
    items = await _complete(client, tmp_path / "t.spd", text2, T.Position(1, 16))
    assert set(items) == {"f32", "i32", "u32", "bool"}


async def test_completion_of_modules_and_their_params_in_hdl(client, tmp_path):
    sub = "Name sub;\nMain_In {Mi::p};\nMain_Out {Mo::r};\nParam G = 2;\nEQU e, r = p * G;\n"
    line = "HDL h, auto, (y) = "
    text = sub + "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\n" + line
    items = await _complete(client, tmp_path / "h.spd", text, T.Position(8, len(line)))
    assert set(items) == {"sub", "m"}
    line2 = "HDL h, auto, (y) = sub(a) ["
    text2 = sub + "Name m;\nMain_In {Mi::a};\nMain_Out {Mo::y};\n" + line2
    items = await _complete(client, tmp_path / "h2.spd", text2, T.Position(8, len(line2)))
    assert set(items) == {"G"}


async def test_document_symbols(client):
    res = await client.text_document_document_symbol_async(
        T.DocumentSymbolParams(doc_id(LBM)))
    (mod,) = res
    assert mod.name == "lbm_d2q9" and mod.kind == T.SymbolKind.Module
    names = [c.name for c in mod.children]
    assert names[:10] == ["f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "attr"]
    assert {"W", "omega", "fin0", "g8", "fluid", "f0_o", "attr_o"} <= set(names)
    kinds = {c.name: c.kind for c in mod.children}
    assert kinds["W"] == T.SymbolKind.Constant and kinds["f0_o"] == T.SymbolKind.Field
    lbm = LBM.read_text()
    fluid = next(c for c in mod.children if c.name == "fluid")
    assert range_text(lbm, fluid.range) == "EQU k0, fluid = (attr & 3) == 0;"
    assert range_text(lbm, fluid.selection_range) == "fluid"


async def test_typing_a_file_character_by_character_never_crashes(client, tmp_path):
    path = tmp_path / "typed.spd"
    final = JACOBI.read_text() + "EQU e3, extra = shift(u, W + 1) * (w - 0.5) ? v : s;\n"
    uri = path.as_uri()
    await open_doc(client, path, "")
    seen_errors = 0
    step = 3
    for k in range(step, len(final) + step, step):
        text = final[:k]
        change_doc(client, uri, k, text)
        diags = await wait_diagnostics(client, uri)
        assert not any("internal error" in d.message for d in diags), diags
        seen_errors += bool(diags)
        if k % 30 == 0:  # the other requests keep answering on half-typed text
            end = T.Position(text.count("\n"), len(text.split("\n")[-1]))
            await client.text_document_hover_async(T.HoverParams(doc_id(path), end))
            await client.text_document_completion_async(T.CompletionParams(doc_id(path), end))
            await client.text_document_document_symbol_async(
                T.DocumentSymbolParams(doc_id(path)))
    assert seen_errors > 20
    # the finished text has one error: '?' needs a bool, not f32
    msgs = [d.message for d in diags if d.severity == T.DiagnosticSeverity.Error]
    assert msgs == ["the condition of '?:' must be bool, got f32"]


async def test_incremental_edits_keep_ranges_right(client, tmp_path):
    path = tmp_path / "inc.spd"
    text = JACOBI.read_text()
    uri = path.as_uri()
    await open_doc(client, path, text)
    # insert two lines at the top, then break an expression further down
    change_doc(client, uri, 2, "# one\n# two\n", at=T.Range(T.Position(0, 0), T.Position(0, 0)))
    assert await wait_diagnostics(client, uri) == []
    line = 2 + text.split("\n").index(next(x for x in text.split("\n") if x.startswith("EQU e2")))
    change_doc(client, uri, 3, "e9", at=T.Range(T.Position(line, 4), T.Position(line, 6)))
    assert await wait_diagnostics(client, uri) == []
    h = await client.text_document_hover_async(T.HoverParams(doc_id(path), T.Position(line, 9)))
    assert h.contents.value.startswith("**v** : f32") and f"inc.spd:{line + 1}:" in \
        h.contents.value


async def test_slow_checks_are_debounced(tmp_path):
    """With no time for checks on the keystroke, syntax errors still come at once and the
    compiler's own diagnostics after the pause."""
    from lsp_client import SERVER as cfg

    client = await cfg.start()
    try:
        await start(client, checkBudgetMs=0, debounceMs=50)
        path = tmp_path / "slow.spd"
        text = JACOBI.read_text()
        uri = path.as_uri()
        assert await open_doc(client, path, text) == []  # the first check always runs
        change_doc(client, uri, 2, text + "EQU e9, z = u +;\n")
        first = await wait_diagnostics(client, uri)
        assert [d.message[:30] for d in first] == ["syntax error: mismatched input"]
        change_doc(client, uri, 3, text + "EQU e9, z = u + q;\n")
        later = await wait_diagnostics(client, uri)
        if later == []:  # the syntax error cleared at once; the check follows the pause
            client.diagnostics.pop(uri, None)
            later = await wait_diagnostics(client, uri)
        assert [d.message for d in later if d.severity == T.DiagnosticSeverity.Error] == [
            "undefined signal 'q'"]
        await asyncio.sleep(0)
    finally:
        await client.shutdown_session()


async def test_a_request_right_after_an_edit_sees_the_edit(client, tmp_path):
    path = tmp_path / "quick.spd"
    text = JACOBI.read_text()
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        path.as_uri(), "spd", 1, text)))
    # no waiting for the diagnostics: the hover queues behind the opening's analysis
    h = await client.text_document_hover_async(T.HoverParams(doc_id(path),
                                                             position_of(text, "s  =")))
    assert h is not None and h.contents.value.startswith("**s** : f32")
    change_doc(client, path.as_uri(), 2, text.replace("s  =", "sum  =").replace("w * s", "w * sum"))
    h = await client.text_document_hover_async(T.HoverParams(doc_id(path),
                                                             position_of(text, "s  =")))
    assert h.contents.value.startswith("**sum** : f32")
