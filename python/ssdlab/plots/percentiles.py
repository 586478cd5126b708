"""Latency percentiles per group as grouped bars (p50, p99, p99.9, p99.99 on a log axis); a
sweep over two axes as lines of each percentile against its numeric axis."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ssdlab.plots import common
from ssdlab.plots.source import Source
from ssdlab.plots.style import COLUMN_IN, WIDE_IN, colours, figure, short_title

NAME = "percentiles"
HELP = "latency percentiles (p50 … p99.99) per policy/stack as grouped bars, log axis (a grid: lines against its numeric axis)"


def key(op: str, p: str) -> str:
    return f"latency_us.{op}.{p}"


def applies(src: Source, op: Optional[str] = None) -> bool:
    return bool(common.with_scalar(src.groups, key(op or src.op, "p99")))


def draw(src: Source, op: Optional[str] = None):
    op = op or src.op
    lines = common.sweep_lines(src)
    if lines:
        x_axis, line_axis = lines
        fig, axes = figure(WIDE_IN, 2.4, 1, len(common.PERCENTILES))
        for ax, (p, label) in zip(axes, common.PERCENTILES):
            common.draw_lines(ax, src, x_axis, line_axis, key(op, p), colours(common.line_count(src, line_axis)))
            ax.set_yscale("log")
            ax.set_title(f"{op} {label}")
        axes[0].set_ylabel("latency (µs)")
        common.legend_outside(fig, axes[-1])
        fig.suptitle(short_title(src.title, 120), fontsize=8)
        return fig
    panels = common.facets(src)
    width = COLUMN_IN if len(src.groups) <= 6 and len(panels) == 1 else WIDE_IN
    fig, axes = figure(width, 2.8, 1, len(panels))
    cs = colours(len(common.PERCENTILES))
    for ax, (facet, groups) in zip(axes, panels.items()):
        groups = common.with_scalar(groups, key(op, "p99"))
        w = 0.8 / len(common.PERCENTILES)
        for i, ((p, label), c) in enumerate(zip(common.PERCENTILES, cs)):
            vals = [g.scalars.get(key(op, p), np.nan) for g in groups]
            ax.bar(np.arange(len(groups)) + (i - (len(common.PERCENTILES) - 1) / 2) * w, vals, w, color=c, label=label)
        common.bar_labels(ax, [g.label for g in groups])
        ax.set_yscale("log")
        ax.set_title(facet or short_title(src.title))
    axes[0].set_ylabel(f"{op} latency (µs)")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, ncol=len(common.PERCENTILES), loc="outside upper center")
    return fig
