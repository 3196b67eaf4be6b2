"""The command line's verb table: a missing dependency names itself, a broken spgen module is loud."""
import importlib

import pytest
from spgen import cli

_real_import = importlib.import_module


def _import_failing(verb, missing):
    def fake(name, *a, **k):
        if name == f"spgen.commands._{verb}":
            raise ModuleNotFoundError(f"No module named '{missing}'", name=missing)
        return _real_import(name, *a, **k)
    return fake


def test_every_verb_is_listed():
    """Every verb of the table imports in the test environment and appears in the help."""
    helptext = cli.build_parser().format_help()
    for verb in cli._COMMANDS:
        assert verb in helptext


def test_missing_third_party_package_gives_a_clear_error(monkeypatch, capsys):
    monkeypatch.setattr(cli.importlib, "import_module", _import_failing("lsp", "pygls"))
    assert cli.main(["lsp", "--stdio"]) == 1
    err = capsys.readouterr().err
    assert "spgen lsp: error:" in err and "'pygls'" in err and "pip install" in err
    # the other verbs are untouched
    assert "compile" in cli.build_parser().format_help()


def test_broken_spgen_module_is_not_hidden(monkeypatch):
    monkeypatch.setattr(cli.importlib, "import_module",
                        _import_failing("compile", "spgen.backend._gone"))
    with pytest.raises(ModuleNotFoundError, match="spgen.backend._gone"):
        cli.build_parser()
