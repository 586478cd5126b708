"""Helpers the plot kinds share: which groups have a value, a sweep's two-axis layout, labels."""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ssdlab.plots.source import Group, Source, short

#: The percentiles a figure shows, with their labels.
PERCENTILES = (("p50", "p50"), ("p99", "p99"), ("p99_9", "p99.9"), ("p99_99", "p99.99"))


def facets(src: Source) -> dict[Optional[str], list[Group]]:
    """Groups by facet, in order (one facet ``None`` when the source has none)."""
    out: dict[Optional[str], list[Group]] = {}
    for g in src.groups:
        out.setdefault(g.facet, []).append(g)
    return out


def with_scalar(groups: list[Group], key: str) -> list[Group]:
    return [g for g in groups if key in g.scalars and np.isfinite(g.scalars[key])]


def numeric(values: list[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def sweep_lines(src: Source) -> Optional[tuple[str, str]]:
    """For a sweep over two axes, one of them numeric: (x axis, line axis) — a grid reads best
    as lines against the numeric axis, one line per value of the other. None otherwise."""
    if src.kind != "sweep" or len(src.axes) != 2:
        return None
    a, b = src.axes
    vals = {ax: [g.keys.get(ax) for g in src.groups] for ax in (a, b)}
    if numeric(vals[b]):
        return b, a
    if numeric(vals[a]):
        return a, b
    return None


def draw_lines(ax, src: Source, x_axis: str, line_axis: str, key: str, colours: list, *,
               evenly: bool = False, label: Optional[Callable[[Any], str]] = None) -> None:
    """``key`` against ``x_axis``, one line per value of ``line_axis`` (means over seeds).
    ``evenly``: the x values at evenly spaced ticks (a doubling sweep that starts at 0);
    ``label``: a line's name from its value (default ``axis=value``)."""
    lines: dict[Any, list[Group]] = {}
    for g in src.groups:
        lines.setdefault(g.keys.get(line_axis), []).append(g)
    xs = sorted({g.keys[x_axis] for g in src.groups})
    at = {x: i for i, x in enumerate(xs)} if evenly else {x: x for x in xs}
    for (name, gs), c in zip(lines.items(), colours):
        gs = sorted(with_scalar(gs, key), key=lambda g: g.keys[x_axis])
        ax.plot([at[g.keys[x_axis]] for g in gs], [g.scalars[key] for g in gs], marker="o", ms=3, color=c,
                label=label(name) if label else f"{short(line_axis)}={name}")
    if evenly:
        ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    ax.set_xlabel(short(x_axis))


def path_label(value: Any) -> str:
    """A line's name from its value: a trace path by its file name."""
    text = str(value)
    return text.rsplit("/", 1)[-1] if "/" in text else text


def line_count(src: Source, line_axis: str) -> int:
    return len({str(g.keys.get(line_axis)) for g in src.groups})


def bar_labels(ax, labels: list[str]) -> None:
    """Group names under bars, turned when long or many."""
    turn = len(labels) > 4 or max((len(l) for l in labels), default=0) > 10
    ax.set_xticks(range(len(labels)), labels, rotation=30 if turn else 0, ha="right" if turn else "center")


def legend_outside(fig, ax) -> None:
    """One legend for a row of panels, right of them (inside the last panel it hides lines)."""
    handles, names = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, names, loc="outside right upper")
