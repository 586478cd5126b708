"""Figures of any ssdlab result: ``ssdlab plot KIND RESULTS``, and the report's figures.

A plot kind is one module of this package with ``NAME``, ``HELP``, ``applies(source, op)`` and
``draw(source, op) -> Figure``, plus one line in :data:`KINDS`. Kinds read a
:class:`~ssdlab.plots.source.Source` (what ``load`` makes of a file or a sweep store), so any
kind works on any result that has what it draws.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from ssdlab.plots import cache, ccdf, errors, fill, mapping, mcts, percentiles, qtable, series, slc, waf, wear
from ssdlab.plots.source import Source, SourceError, load, read_raw
from ssdlab.plots.style import FORMATS, NEEDS, PlotUnavailable, save, style

#: Every plot kind, in the order a report shows them.
KINDS = {k.NAME: k for k in (ccdf, percentiles, series, waf, wear, cache, mapping, errors, slc, fill, mcts, qtable)}

__all__ = ["KINDS", "FORMATS", "NEEDS", "PlotUnavailable", "Source", "SourceError", "available", "figure", "load",
           "plot"]


def available(src: Source, op: Optional[str] = None) -> list[str]:
    """The kinds that can draw ``src``."""
    return read_raw(src, lambda s: [name for name, k in KINDS.items() if k.applies(s, op)], "what a plot reads")


def figure(kind: str, src: Source, op: Optional[str] = None):
    """Draw ``kind`` of ``src`` (a matplotlib Figure). Raises ValueError if it does not apply."""
    k = KINDS[kind]
    if not read_raw(src, lambda s: k.applies(s, op), "what a plot reads"):
        raise ValueError(f"{kind}: {src.path} ({src.kind}) has nothing to draw as {kind}; "
                         f"it has: {', '.join(available(src, op)) or 'no plottable data'}")
    with style():
        return read_raw(src, lambda s: k.draw(s, op), f"what the {kind} plot draws")


def plot(kind: str, results: str | Path, out: str | Path, op: Optional[str] = None) -> Path:
    """Draw ``kind`` of the result at ``results`` into ``out`` (PNG, SVG or PDF, by suffix)."""
    out = Path(out)
    with style():
        fig = figure(kind, load(results), op)
        save(fig, out)
    return out
