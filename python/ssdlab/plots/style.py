"""One look for every figure: sized for a paper's column, fonts that stay readable there.

Figures are :class:`matplotlib.figure.Figure` objects made directly (not through pyplot), so
drawing keeps no global state and needs no display; the style is applied per figure with
``rc_context``, never by changing matplotlib's defaults for the caller.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

#: One column of a two-column paper (IEEE, ACM: 3.3–3.5 in); two columns: 7 in.
COLUMN_IN = 3.5
WIDE_IN = 7.0
#: Fonts in points at that width: 8 pt matches a paper's figure text.
RC = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "legend.fontsize": 7, "xtick.labelsize": 7,
      "ytick.labelsize": 7, "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5, "lines.linewidth": 1.2,
      "figure.dpi": 100, "svg.fonttype": "none", "legend.frameon": False}
#: Formats ``save`` writes, by file suffix.
FORMATS = (".png", ".svg", ".pdf")


class PlotUnavailable(Exception):
    """matplotlib is not installed (the ``plot`` extra)."""


NEEDS = "plots need matplotlib: pip install 'ssdlab[plot]'"


@contextmanager
def style() -> Iterator[None]:
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable(NEEDS) from None
    with matplotlib.rc_context(RC):
        yield


def figure(width: float = COLUMN_IN, height: float = 2.4, rows: int = 1, cols: int = 1):
    """A constrained-layout figure and its axes (a list, row-major)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    return fig, [a for row in axes for a in row]


#: Raster resolution: 200 dpi keeps a column-wide figure (700 px) sharp in print and on screen.
DPI = 200


def save(fig, path: Path) -> None:
    fig.savefig(path, format=path.suffix.lstrip(".").lower(), dpi=DPI)


def colours(n: int) -> list:
    """The default cycle for up to 10 groups, a perceptually ordered map beyond."""
    import matplotlib

    if n <= 10:
        return [matplotlib.colormaps["tab10"](i) for i in range(n)]
    cmap = matplotlib.colormaps["viridis"]
    return [cmap(i / max(1, n - 1)) for i in range(n)]


def short_title(text: str, width: int = 60) -> str:
    """A title that fits its axes: long workload descriptions are cut at a word."""
    import textwrap

    return textwrap.shorten(text, width, placeholder=" …")
