"""Language server speed: time per edit of a 2,000-line `.spd` file, medians per kind of edit.

Usage: python benchmarks/lsp_bench.py [--lines 2000] [--json FILE]

Each edit goes through what `spgen lsp` runs for a didChange on its worker thread
(spgen.lsp's Document): the incremental parse, then the compiler's checks when they
fit the server's budget. "first answer" is the time to the first diagnostics (the
per-statement syntax errors, or the check's findings when it ran at once; for a check
deferred to the pause, the parse that hover, definitions and completion then use),
wall clock and CPU; "hover" a hover request right after the edit (it builds the
symbol index); "check" the compiler's check that the server runs once typing pauses
(on the tree already parsed, or the whole-file parse of a small file with a syntax
error), run after every edit here to measure it.
"""
from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from spgen.lsp._features import hover
from spgen.lsp._server import BUDGET_S
from spgen.lsp._workspace import Workspace

sys.path.insert(0, str(Path(__file__).parent))
from frontend_bench import generate  # the front end's benchmark programs
from machine import write_json


def one_module(lines: int) -> str:
    return generate(lines - 5)


def many_modules(lines: int, per: int = 50) -> str:
    """Modules of ``per`` lines each, as a library file would hold them (no two statements
    alike: a statement repeated word for word makes edits near it walk the whole file)."""
    out = []
    for i in range(lines // per):
        body = generate(per - 5).split("\n")[1:]  # without the comment line
        body = [ln + f"  # m{i}" if ln.endswith(";") else ln for ln in body]
        out.append("\n".join(body).replace("Name bench;", f"Name m{i};"))
    return "".join(out)


def edits(text: str) -> list[tuple[str, str]]:
    """(kind, new text) for a sequence of edits, each applied to the text before it."""
    out = []
    lines = text.split("\n")
    literal = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
    k = next(i for i in range(len(lines) // 2, len(lines))
             if lines[i].startswith("EQU") and literal.search(lines[i]))
    m = literal.search(lines[k])
    cur = lines[:]
    for n in range(20):  # typing digits into a literal in the middle: 0.5, 0.51, 0.512...
        digits = "1234567890"[:n % 10]
        cur[k] = lines[k][:m.end()] + digits + lines[k][m.end():]
        out.append(("type in a line", "\n".join(cur)))
    base = "\n".join(cur)
    stmt = "EQU ex, sx = s10 * 0.25 + s11;"
    at = base.rindex("EQU ")  # a new statement before the module's last one
    for n in range(1, len(stmt) + 1):
        out.append(("type a new statement", base[:at] + stmt[:n] + "\n" + base[at:]))
    base = out[-1][1]
    for n in range(10):  # Enter near the top: every statement below moves down a line
        at = base.index("\n", base.index("Param")) + 1
        base = base[:at] + "\n" + base[at:]
        out.append(("insert a line on top", base))
    return out


def measure(name: str, text: str, budget: float) -> list[dict]:
    with tempfile.TemporaryDirectory() as d:
        path = str(Path(d) / f"{name}.spd")
        Path(path).write_text(text)
        ws = Workspace()
        t0 = time.perf_counter()
        doc = ws.open(path, text)
        doc.run_check("check")
        opened = time.perf_counter() - t0
        rows: dict[str, list[dict]] = {}
        for kind, new in edits(text):
            t0, c0 = time.perf_counter(), time.thread_time()
            doc.update(new)
            parsed = time.perf_counter() - t0
            due = doc.due(budget)
            if due is not None:
                doc.run_check(due)
                doc.diagnostics()
            elif doc.view.parsed.errors:
                doc.fast_diagnostics()
            first = time.perf_counter() - t0
            first_cpu = time.thread_time() - c0
            t1, c1 = time.perf_counter(), time.thread_time()  # builds the index
            last = new.rstrip().rsplit("\n", 1)[-1]  # on the name the last EQU defines
            hover(ws, doc, new.rstrip().count("\n"), last.find(",") + 2)
            hover_s, hover_cpu = time.perf_counter() - t1, time.thread_time() - c1
            check_kind = doc.deferred()
            if due is None and check_kind is None:
                check_s = None  # not run: the per-statement syntax errors stand
            elif due is None:
                t1 = time.perf_counter()
                doc.run_check(check_kind)
                doc.diagnostics()
                check_s = time.perf_counter() - t1
            else:
                check_s = first - parsed
            rows.setdefault(kind, []).append({
                "parse_s": parsed, "first_answer_s": first, "first_answer_cpu_s": first_cpu,
                "hover_s": hover_s, "hover_cpu_s": hover_cpu, "check_s": check_s,
                "checked_at_once": due is not None, "syntax_error": bool(doc.view.parsed.errors),
                "reparsed_chunks": doc.view.parsed.reparsed})
    allr = [r for rs in rows.values() for r in rs]
    return [_summary(name, text, kind, rs, opened)
            for kind, rs in [*rows.items(), ("all", allr)]]


async def _over_stdio(text: str) -> dict:
    """`spgen lsp` in a subprocess, a statement typed one character at a time mid-file:
    per keystroke, the time from sending the change to its diagnostics arriving (the
    per-statement syntax errors, or their clearing), then a hover on the new statement
    (JSON-RPC both ways included)."""
    from lsprotocol import types as T
    from pytest_lsp import ClientServerConfig

    client = await ClientServerConfig([sys.executable, "-m", "spgen", "lsp"]).start()
    try:
        await client.initialize_session(T.InitializeParams(capabilities=T.ClientCapabilities()))
        with tempfile.TemporaryDirectory() as d:
            uri = Path(d, "stdio.spd").as_uri()
            client.text_document_did_open(T.DidOpenTextDocumentParams(
                T.TextDocumentItem(uri, "spd", 1, text)))
            k = len(text.split("\n")) // 2
            await client.text_document_hover_async(  # waits for the opening's analysis
                T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(k, 0)))
            stmt = "EQU ex, sx = s10 * 0.25 + s11;\n"
            diag_s, hover_s = [], []
            for i, ch in enumerate(stmt):
                client.diagnostics.pop(uri, None)
                t0 = time.perf_counter()
                client.text_document_did_change(T.DidChangeTextDocumentParams(
                    T.VersionedTextDocumentIdentifier(uri=uri, version=i + 2),
                    [T.TextDocumentContentChangePartial(
                        range=T.Range(T.Position(k, i), T.Position(k, i)), text=ch)]))
                while uri not in client.diagnostics:
                    await asyncio.sleep(0.0005)
                t1 = time.perf_counter()
                await client.text_document_hover_async(
                    T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(k, 9)))
                diag_s.append(t1 - t0)
                hover_s.append(time.perf_counter() - t1)
        return {"keystrokes": len(stmt), "median_change_to_diagnostics_s":
                statistics.median(diag_s), "median_then_hover_s": statistics.median(hover_s)}
    finally:
        await client.shutdown_session()


def _summary(name: str, text: str, kind: str, rs: list[dict], opened: float) -> dict:
    checks = [r["check_s"] for r in rs if r["check_s"] is not None]
    return {
        "file": name, "lines": text.count("\n") + 1, "edit": kind, "edits": len(rs),
        "open_s": opened,
        "median_parse_s": statistics.median(r["parse_s"] for r in rs),
        "median_first_answer_s": statistics.median(r["first_answer_s"] for r in rs),
        "median_first_answer_cpu_s": statistics.median(r["first_answer_cpu_s"] for r in rs),
        "median_hover_s": statistics.median(r["hover_s"] for r in rs),
        "median_hover_cpu_s": statistics.median(r["hover_cpu_s"] for r in rs),
        "median_check_s": statistics.median(checks) if checks else None,
        "checks_run": len(checks),
        "checked_at_once": sum(r["checked_at_once"] for r in rs),
        "with_syntax_error": sum(r["syntax_error"] for r in rs),
        "median_reparsed_chunks": statistics.median(r["reparsed_chunks"] for r in rs)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--budget-ms", type=float, default=BUDGET_S * 1000,
                    help="the server's check budget (initializationOptions checkBudgetMs)")
    ap.add_argument("--json", default=str(Path(__file__).parent / "lsp_bench_results.json"),
                    help="where to write the results")
    args = ap.parse_args(argv)
    budget = args.budget_ms / 1000
    lbm = (Path(__file__).parents[1] / "cores" / "lbm" / "lbm_d2q9.spd").read_text()
    rows = (measure("one_module", one_module(args.lines), budget)
            + measure("modules_of_50_lines", many_modules(args.lines), budget)
            + [r for r in measure("lbm_d2q9", lbm, budget) if r["edit"] == "all"])
    stdio = asyncio.run(_over_stdio(one_module(args.lines)))
    print(f"over stdio, {args.lines} lines, one module, {stdio['keystrokes']} keystrokes: "
          f"change to diagnostics {stdio['median_change_to_diagnostics_s'] * 1e3:.1f} ms, "
          f"then a hover {stdio['median_then_hover_s'] * 1e3:.1f} ms (medians)")
    head = (f"{'file':<20} {'lines':>5} {'edit':<21} {'n':>3} {'parse':>8} "
            f"{'first answer':>12} {'(CPU)':>8} {'hover':>8} {'(CPU)':>8} {'check':>8} {'checks':>6} "
            f"{'at once':>7} {'syntax err':>10}")
    print(head)

    def ms(x):
        return "-" if x is None else f"{x * 1e3:.1f} ms"

    for r in rows:
        print(f"{r['file']:<20} {r['lines']:>5} {r['edit']:<21} {r['edits']:>3} "
              f"{ms(r['median_parse_s']):>8} {ms(r['median_first_answer_s']):>12} "
              f"{ms(r['median_first_answer_cpu_s']):>8} {ms(r['median_hover_s']):>8} "
              f"{ms(r['median_hover_cpu_s']):>8} "
              f"{ms(r['median_check_s']):>8} {r['checks_run']:>6} "
              f"{r['checked_at_once']:>7} {r['with_syntax_error']:>10}")
    write_json(args.json, {"budget_s": budget, "unit": "seconds, medians per edit",
                           "results": rows, "stdio": stdio})
    return 0


if __name__ == "__main__":
    sys.exit(main())
