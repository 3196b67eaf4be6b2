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


def test_no_back_end_imports_another_back_ends_private_modules():
    """What several back ends share (the streaming plan) lives in `spgen.backend` itself;
    one back end uses another only through its package's public names."""
    graph = grimp.build_graph("spgen")
    crossing = []
    for m in graph.modules:
        if m.count(".") < 2 or not m.startswith("spgen.backend."):
            continue
        own = m.split(".")[2]
        for n in graph.find_modules_directly_imported_by(m):
            parts = n.split(".")
            if (n.startswith("spgen.backend.") and len(parts) > 3 and parts[2] != own
                    and any(p.startswith("_") for p in parts[3:])):
                crossing.append((m, n))
    assert crossing == []
