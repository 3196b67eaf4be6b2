"""The VS Code extension: valid JSON, files that exist, and a TextMate grammar whose regexes
compile and highlight the keywords of the cores (run by a small TextMate matcher here)."""
import json
import re
import shutil
import subprocess
from pathlib import Path

from spgen.frontend._generated.SPDLexer import SPDLexer
from spgen.frontend._values import ARITY

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "editors" / "vscode"
GRAMMAR = json.loads((EXT / "syntaxes" / "spd.tmLanguage.json").read_text())
KEYWORDS = [n[1:-1] for n in SPDLexer.literalNames if n.startswith("'") and n[1].isalpha()]


def _rules(patterns):
    """The grammar's rules in order, includes resolved."""
    out = []
    for p in patterns:
        if "include" in p:
            out += _rules(GRAMMAR["repository"][p["include"].lstrip("#")]["patterns"])
        else:
            out.append(p)
    return out


RULES = _rules(GRAMMAR["patterns"])


def highlight(line: str) -> list[tuple[str, str]]:
    """(text, scope) of each scoped piece of one line, as a TextMate engine assigns them:
    at each position the earliest match wins, the first rule on a tie."""
    out, pos = [], 0
    while pos < len(line):
        best = None
        for r in RULES:
            m = re.compile(r.get("match") or r["begin"]).search(line, pos)
            if m and m.end() > m.start() and (best is None or m.start() < best[1].start()):
                best = (r, m)
        if best is None:
            break
        r, m = best
        if "begin" in r:  # strings: to the closing quote or the end of the line
            e = re.compile(r["end"]).search(line, m.end())
            out.append((line[m.start():e.end()], r["name"]))
            pos = e.end()
            continue
        if "name" in r:
            out.append((m.group(), r["name"]))
        for k, cap in sorted(r.get("captures", {}).items()):
            if m.group(int(k)):
                out.append((m.group(int(k)), cap["name"]))
        pos = m.end()
    return out


def scopes_of(text: str) -> dict[str, set[str]]:
    got: dict[str, set[str]] = {}
    for line in text.splitlines():
        for piece, scope in highlight(line):
            got.setdefault(piece, set()).add(scope)
    return got


def test_json_files_are_valid_and_point_at_existing_files():
    pkg = json.loads((EXT / "package.json").read_text())
    json.loads((EXT / "language-configuration.json").read_text())
    (lang,) = pkg["contributes"]["languages"]
    assert lang["extensions"] == [".spd"] and (EXT / lang["configuration"]).is_file()
    (gram,) = pkg["contributes"]["grammars"]
    assert gram["scopeName"] == GRAMMAR["scopeName"] == "source.spd"
    assert (EXT / gram["path"]).resolve() == (EXT / "syntaxes" / "spd.tmLanguage.json")
    assert (EXT / pkg["main"]).is_file()
    assert "vscode-languageclient" in pkg["dependencies"]
    assert pkg["contributes"]["configuration"]["properties"]["spd.server.command"][
        "default"] == ["spgen", "lsp"]


def test_every_regex_compiles():
    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k in ("match", "begin", "end"):
                    re.compile(v)
                    yield v
                else:
                    yield from walk(v)
        elif isinstance(x, list):
            for v in x:
                yield from walk(v)
    assert len(list(walk(GRAMMAR))) > 20
    cfg = json.loads((EXT / "language-configuration.json").read_text())
    assert re.fullmatch(cfg["wordPattern"], "f0_o") and re.fullmatch(cfg["wordPattern"], "1.5e3")


def test_every_keyword_and_function_is_highlighted():
    for k in KEYWORDS:
        scopes = dict(highlight(f"{k} x"))
        assert k in scopes and scopes[k].split(".")[0] in ("keyword", "storage"), k
    for f in ARITY:
        assert (f, "support.function.builtin.spd") in highlight(f"EQU e, y = {f}(a);"), f


def test_the_lbm_core_is_highlighted():
    got = scopes_of((ROOT / "cores" / "lbm" / "lbm_d2q9.spd").read_text())
    assert got["Include"] == {"keyword.control.import.spd"}
    assert got['"d2q9_pull.spd"'] == {"string.quoted.double.spd"}
    assert got["Name"] == {"keyword.other.module.spd"}
    assert got["lbm_d2q9"] == {"entity.name.type.module.spd"}
    assert got["Main_In"] == got["Main_Out"] == {"storage.type.stream.spd"}
    assert got["Param"] == got["Reg"] == {"storage.type.spd"}
    assert got["EQU"] == got["HDL"] == got["DRCT"] == {"keyword.other.statement.spd"}
    assert got["o0"] == {"entity.name.label.spd"}
    assert got["f0_o"] >= {"variable.other.definition.spd"}
    assert got["d2q9_pull"] == {"entity.name.function.module.spd"}
    assert got["auto"] == {"constant.language.latency.spd"}
    assert got["u32"] == {"support.type.spd"}
    assert got["64"] == {"constant.numeric.integer.decimal.spd"}
    assert got["1.0"] == {"constant.numeric.float.spd"}
    assert "comment.line.number-sign.spd" in got[
        "# Non-fluid cells pass through unchanged."]
    assert got["?"] == {"keyword.operator.spd"}


def test_numbers_and_functions_of_exprmix():
    got = scopes_of((ROOT / "cores" / "exprmix" / "exprmix.spd").read_text())
    assert {"sqrt", "shift", "min", "fbits"} <= {k for k, v in got.items()
                                                 if "support.function.builtin.spd" in v}
    assert any("hexadecimal" in s for v in got.values() for s in v)


def test_extension_script_is_valid_javascript():
    js = (EXT / "extension.js").read_text()
    assert 'require("vscode-languageclient/node")' in js and '["spgen", "lsp"]' in js
    node = shutil.which("node")   # installed by scripts/ensure-system-packages.sh
    assert node, "node is missing: run scripts/ensure-system-packages.sh"
    r = subprocess.run([node, "--check", str(EXT / "extension.js")], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0, r.stderr
