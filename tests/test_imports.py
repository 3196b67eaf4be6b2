"""The package's import graph: no module imports another that (directly or not) imports it."""
import sys
from pathlib import Path

import grimp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compiler"))


def _cycles(graph) -> list[tuple[str, str]]:
    """Every direct import m -> n with a chain back from n to m, as a sorted pair."""
    return sorted({tuple(sorted((m, n))) for m in graph.modules
                   for n in graph.find_modules_directly_imported_by(m)
                   if graph.chain_exists(importer=n, imported=m)})


def test_no_import_cycles():
    """Imports only under TYPE_CHECKING count too: a circle for the type checker is one for
    the reader."""
    graph = grimp.build_graph("spgen", exclude_type_checking_imports=False)
    assert len(graph.modules) > 100          # the whole package was found
    assert _cycles(graph) == []


def test_cycle_finder_finds_one():
    """The finder itself: a graph with a circle gives that circle."""
    g = grimp.ImportGraph()
    for m in ("p", "p.a", "p.b", "p.c"):
        g.add_module(m)
    g.add_import(importer="p.a", imported="p.b")
    g.add_import(importer="p.b", imported="p.c")
    g.add_import(importer="p.c", imported="p.a")
    assert _cycles(g) == [("p.a", "p.b"), ("p.a", "p.c"), ("p.b", "p.c")]


def test_only_the_entry_point_imports_the_command_line():
    """Builders, runners and the demo are library calls (`spgen.build`...), not `cli.main`."""
    graph = grimp.build_graph("spgen")
    assert graph.find_modules_that_directly_import("spgen.cli") == {"spgen.__main__"}
