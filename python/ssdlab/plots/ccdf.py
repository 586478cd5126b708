"""Tail latency as the seeds draw it (RL-GC's Figure 7, Tiny-Tail Flash's CDFs): 1 − CDF of one
operation's latency on log–log axes, down to 10⁻⁶, one line per group."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ssdlab.plots import common
from ssdlab.plots.source import Source, short
from ssdlab.plots.style import COLUMN_IN, WIDE_IN, colours, figure, short_title

NAME = "ccdf"
HELP = "tail latency: 1 − CDF against latency, log–log, to 10⁻⁶, one line per policy/stack/configuration"
#: The lowest probability shown: the seeds' tail figures reach p99.9999.
FLOOR = 1e-6


def applies(src: Source, op: Optional[str] = None) -> bool:
    return any((op or src.op) in g.histogram for g in src.groups)


def ccdf_points(lat: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Step points (latency, fraction of requests slower than it), for ``where="post"``: from
    (first latency, 1) to (the maximum, the slowest bucket's share) — the last step is drawn to
    the maximum, at the height of the requests in it, since 0 has no place on a log axis."""
    total = count.sum()
    slower = (total - np.cumsum(count)) / total
    x = np.concatenate([[lat[0]], lat])
    y = np.concatenate([[1.0], slower])
    y[-1] = count[-1] / total
    return x, y


def draw(src: Source, op: Optional[str] = None):
    op = op or src.op
    groups = [g for g in src.groups if op in g.histogram]
    top = max(g.histogram[op][0][-1] for g in groups)
    unit, scale = ("ms", 1e-3) if top >= 1000 else ("µs", 1.0)
    most = max(int(g.histogram[op][1].sum()) for g in groups)
    lines = common.sweep_lines(src)
    if lines:
        # A grid: one panel per value of its numeric axis, one line per value of the other —
        # 25 lines in one panel cannot be told apart.
        x_axis, line_axis = lines
        panels: dict = {}
        for g in groups:
            panels.setdefault(g.keys[x_axis], []).append(g)
        names = list(dict.fromkeys(str(g.keys[line_axis]) for g in groups))
        cs = dict(zip(names, colours(len(names))))
        fig, axes = figure(WIDE_IN, 2.4, 1, len(panels))
        for ax, (value, gs) in zip(axes, sorted(panels.items())):
            for g in gs:
                x, y = ccdf_points(*g.histogram[op])
                ax.step(x * scale, y, where="post", color=cs[str(g.keys[line_axis])],
                        label=f"{short(line_axis)}={g.keys[line_axis]}")
            _axes(ax, op, unit, most)
            ax.set_xlim(left=left_edge(gs, op) * scale)
            ax.set_title(f"{short(x_axis)}={value}")
            if ax is not axes[0]:
                ax.set_ylabel("")
        common.legend_outside(fig, axes[-1])
        fig.suptitle(short_title(src.title, 120), fontsize=8)
        return fig
    fig, (ax,) = figure(COLUMN_IN if len(groups) <= 6 else WIDE_IN, 2.6)
    for g, c in zip(groups, colours(len(groups))):
        x, y = ccdf_points(*g.histogram[op])
        ax.step(x * scale, y, where="post", color=c, label=g.label)
    _axes(ax, op, unit, most)
    ax.set_xlim(left=left_edge(groups, op) * scale)
    ax.set_title(short_title(src.title))
    ax.legend(loc="lower left", ncol=1 if len(groups) <= 6 else 2)
    return fig


def left_edge(groups: list, op: str) -> float:
    """Where the x axis starts: half the latency below which 1 % of any group's requests
    finish. A few near-zero latencies (reads of unmapped pages) would otherwise stretch the
    axis over decades where every line is flat at 1."""
    edges = []
    for g in groups:
        x, y = ccdf_points(*g.histogram[op])
        below = np.nonzero(y < 0.99)[0]
        edges.append(x[below[0]] if len(below) else x[0])
    return min(edges) / 2


def _axes(ax, op: str, unit: str, most: int) -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(min(FLOOR, 0.5 / most), 1.5)
    ax.set_xlabel(f"{op} latency ({unit})")
    ax.set_ylabel("1 − CDF (fraction slower)")
