"""The plots of the benchmarks: one look for all of them (log2 size or card axes, grid,
small legends, 120 dpi PNG), drawn without a display."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

__all__ = ["finish_axes", "pyplot", "save"]


def pyplot():
    """matplotlib.pyplot drawing to files (the Agg backend: no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def finish_axes(panels: Iterable[tuple[object, str, str]], xlabel: str, legend: int = 7) -> None:
    """Each (axes, title, y label) panel: log2 x axis named `xlabel`, grid and legend."""
    for ax, title, unit in panels:
        ax.set_xscale("log", base=2)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=legend)


def save(fig, path: Path) -> None:
    """Lays out `fig`, writes it to `path` as PNG and frees it."""
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot().close(fig)
