"""The cached mapping table (DFTL's CMT, ``ftl.mapping = "cached"``): read and write hit ratios,
mean and p99 response time against a sweep's CMT size (log axis; one line per value of the
other axis, a trace by its file name), and below them the WAF split — host, data GC,
translation, translation GC — stacked per size, one panel per line. Compared runs without a
size axis are bars. A run alone has nothing over time to show (the mapping has no series)."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

import numpy as np

from ssdlab.plots import common
from ssdlab.plots.source import Group, Source, short
from ssdlab.plots.style import WIDE_IN, colours, figure, short_title

NAME = "mapping"
HELP = ("cached mapping table: hit ratios, mean and p99 response, WAF split (a sweep: per CMT size); "
        "compared runs as bars")
#: The WAF's parts as the result splits it (they sum to the run's WAF), bottom to top: (scalar, label).
WAF_PARTS = (("mapping.waf.host", "host"), ("mapping.waf.data_gc", "data GC"),
             ("mapping.waf.translation", "translation"), ("mapping.waf.translation_gc", "translation GC"))
#: One colour per part, apart from the lines' (tab10's first ones): greys for the data, warm for translation.
PART_COLOURS = ("#595959", "#b3b3b3", "#d62728", "#f2a07b")
#: Hit ratios and the lookups they are of: a ratio of no lookups (a trace without reads) is not drawn.
RATIOS = (("mapping.read_hit_ratio", "mapping.read_lookups", "read hit ratio"),
          ("mapping.write_hit_ratio", "mapping.write_lookups", "write hit ratio"))


def metrics(op: str) -> list[tuple[str, str]]:
    """The line panels, (scalar, y label), in reading order: hit ratios, then response times."""
    what = "response" if op == "all" else op
    return [(k, label) for k, _, label in RATIOS] + [(f"latency_us.{op}.mean", f"mean {what} (µs)"),
                                                   (f"latency_us.{op}.p99", f"p99 {what} (µs)")]


def applies(src: Source, op: Optional[str] = None) -> bool:
    """A comparison (a sweep, two or more groups) of which some ran the cached map."""
    return len(src.groups) > 1 and any("mapping.waf.translation" in g.scalars for g in src.groups)


def _view(src: Source) -> Source:
    """``src`` without hit ratios of no lookups (a copy: the source is shared with other kinds)."""
    def clean(g: Group) -> Group:
        drop = {k for k, n, _ in RATIOS if g.scalars.get(n, 1) == 0}
        return replace(g, scalars={k: v for k, v in g.scalars.items() if k not in drop}) if drop else g
    return replace(src, groups=[clean(g) for g in src.groups if "mapping.waf.translation" in g.scalars])


def size_axis(src: Source) -> Optional[tuple[str, Optional[str]]]:
    """(x axis, line axis or None) of a sweep over the CMT's size (``set.ftl.cmt_entries`` or
    ``cmt_bytes``) and at most one other axis; None otherwise."""
    if src.kind != "sweep" or not 1 <= len(src.axes) <= 2:
        return None
    for a in src.axes:
        if short(a) in ("cmt_entries", "cmt_bytes") and common.numeric([g.keys.get(a) for g in src.groups]):
            return a, next((b for b in src.axes if b != a), None)
    return None


def draw(src: Source, op: Optional[str] = None):
    op = op or src.op
    view = _view(src)
    found = size_axis(view)
    if found:
        return _draw_sweep(view, op, found[0], found[1], log=True)
    lines = common.sweep_lines(view)
    if lines:
        return _draw_sweep(view, op, lines[0], lines[1], log=False)
    return _draw_bars(view, op)


def _lines(src: Source, line_axis: Optional[str]) -> list:
    """The line axis's values in the order :func:`common.draw_lines` gives them colours."""
    return list(dict.fromkeys(g.keys.get(line_axis) if line_axis else None for g in src.groups))


def _draw_sweep(src: Source, op: str, x_axis: str, line_axis: Optional[str], log: bool):
    """Top: the four line panels (2 × 2); below: one stacked WAF panel per line, sizes evenly spaced."""
    from matplotlib.figure import Figure

    names = _lines(src, line_axis)
    cols = colours(len(names))
    per_row = min(len(names), 4)
    rows = -(-len(names) // per_row)
    fig = Figure(figsize=(WIDE_IN, 4.4 + 1.9 * rows), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[4.4, 1.9 * rows])
    axes = [a for row in top.subplots(2, 2, squeeze=False) for a in row]
    xs = sorted({g.keys[x_axis] for g in src.groups})
    axis = line_axis or "__none__"  # one line of every group when nothing else varies
    for ax, (k, label) in zip(axes, metrics(op)):
        common.draw_lines(ax, src, x_axis, axis, k, cols,
                          label=lambda v: common.path_label(v) if line_axis else "all runs")
        ax.set_ylabel(label)
        values = [g.scalars[k] for g in common.with_scalar(src.groups, k)]
        if not values:  # a ratio of no lookups: a workload without reads (or writes)
            ax.text(0.5, 0.5, f"no {label.split()[0]}s", transform=ax.transAxes, ha="center", va="center")
        if k.startswith("latency_us."):
            _latency_scale(ax, values)
        else:
            ax.set_ylim(bottom=0, top=1.02)
        if log:
            _log_x(ax, xs)
        ax.set_xlabel(_axis_label(x_axis))
    if line_axis:
        handles, labels = axes[0].get_legend_handles_labels()
        top.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 3))
    waf_axes = [a for row in bottom.subplots(rows, per_row, squeeze=False, sharey=True) for a in row]
    highest, at = 0.0, {x: i for i, x in enumerate(xs)}
    for ax, name, c in zip(waf_axes, names, cols):
        gs = sorted((g for g in src.groups if not line_axis or g.keys.get(line_axis) == name),
                    key=lambda g: g.keys[x_axis])
        highest = max(highest, _stack(ax, [at[g.keys[x_axis]] for g in gs], gs))
        ax.set_xticks(range(len(xs)), [_size(x, compact=True) for x in xs])
        ax.set_xlabel(_axis_label(x_axis, compact=any(x >= 10_000 for x in xs)))
        ax.set_title(common.path_label(name) if line_axis else "WAF split", color=c)
    for ax in waf_axes[len(names):]:
        ax.set_visible(False)
    waf_axes[0].set_ylim(0, _waf_top(highest))  # shared by every WAF panel
    for ax in waf_axes[::per_row]:
        ax.set_ylabel("WAF")
    _parts_legend(bottom, waf_axes[0])
    fig.suptitle(short_title(src.title, 120), fontsize=8)
    return fig


def _stack(ax, xs: list, groups: list[Group], width: float = 0.7) -> float:
    """The WAF parts of ``groups`` stacked at ``xs``, the total written above each bar; the
    highest total."""
    base = np.zeros(len(groups))
    for (k, label), c in zip(WAF_PARTS, PART_COLOURS):
        v = np.array([g.scalars.get(k, 0.0) for g in groups])
        ax.bar(xs, v, width, bottom=base, color=c, label=label)
        base += v
    for x, total in zip(xs, base):
        ax.annotate(f"{total:.1f}", (x, total), xytext=(0, 1), textcoords="offset points", ha="center",
                    va="bottom", fontsize=6)
    ax.set_axisbelow(True)
    ax.grid(axis="x", visible=False)
    return float(base.max(initial=0))


def _waf_top(highest: float) -> float:
    """Room above the highest bar for its total."""
    return max(highest * 1.15, 1.2)


def _parts_legend(where, ax) -> None:
    handles, labels = ax.get_legend_handles_labels()
    where.legend(handles[::-1], labels[::-1], loc="outside right center", title="WAF part")


def _latency_scale(ax, values: list[float]) -> None:
    """Log when the latencies span a decade or more (traces that overload the device beside
    traces that do not), linear otherwise."""
    positive = [v for v in values if v > 0]
    if positive and max(positive) >= 10 * min(positive):
        ax.set_yscale("log")


def _log_x(ax, xs: list) -> None:
    """A log x axis ticked at the swept sizes only, a margin either side."""
    from matplotlib.ticker import NullLocator

    ax.set_xscale("log", base=2)
    ax.set_xlim(min(xs) / 2 ** 0.3, max(xs) * 2 ** 0.3)
    ax.set_xticks(xs, [_size(x) for x in xs])
    ax.xaxis.set_minor_locator(NullLocator())


def _size(x: float, compact: bool = False) -> str:
    """``16384`` → ``16,384``; ``compact``: ``16K`` (K = 1,024), for narrow panels."""
    if compact and x >= 10_000 and x % 1024 == 0:
        return f"{x // 1024:,.0f}K"
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:g}"


def _axis_label(axis: str, compact: bool = False) -> str:
    name = {"cmt_entries": "CMT entries", "cmt_bytes": "CMT bytes"}.get(short(axis), short(axis))
    return f"{name} (K = 1,024)" if compact else name


def _draw_bars(src: Source, op: str):
    """Compared runs (a CMT policy, an axis of words): hit ratios, p99, WAF split, as bars."""
    gs = src.groups
    ms = [m for m in metrics(op) if not m[0].endswith(".mean")]
    fig, axes = figure(WIDE_IN, 2.6, 1, len(ms) + 1)
    cols = colours(len(gs))
    for ax, (k, label) in zip(axes, ms):
        has = {id(g) for g in common.with_scalar(gs, k)}
        at = [i for i, g in enumerate(gs) if id(g) in has]
        ax.bar(at, [gs[i].scalars[k] for i in at], 0.7, color=[cols[i] for i in at])
        ax.set_ylabel(label)
        if k.startswith("latency_us."):
            _latency_scale(ax, [gs[i].scalars[k] for i in at])
        else:
            ax.set_ylim(0, 1.02)
    axes[-1].set_ylim(0, _waf_top(_stack(axes[-1], list(range(len(gs))), gs)))
    axes[-1].set_ylabel("WAF")
    for ax in axes:
        common.bar_labels(ax, [g.label for g in gs])
    _parts_legend(fig, axes[-1])
    fig.suptitle(short_title(src.title, 120), fontsize=8)
    return fig
