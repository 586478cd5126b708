"""What happens over simulated time, one line per group: free blocks, WAF and GC activity (the
GC detection experiment: write bandwidth per second under each TRIM mode, with the floor)."""
from __future__ import annotations

import numpy as np

from ssdlab.plots import common
from ssdlab.plots.source import Source, short
from ssdlab.plots.style import WIDE_IN, colours, figure, short_title

NAME = "series"
#: More lines than this in one panel cannot be told apart (nor fit a legend).
MAX_LINES = 8
HELP = "free blocks, WAF and GC pages/s over simulated time (detect: write MB/s per TRIM mode)"
#: Panels: (series column, y label, rate?) — a rate column counts per sample interval (the
#: core's ``gc_pages``: copies since the previous sample), drawn per second of the interval.
PANELS = (("free_blocks", "free blocks", False), ("waf", "WAF (cumulative)", False),
          ("gc_pages", "GC page copies / s", True), ("write_mb_s", "write MB/s", False),
          ("gc_fraction", "share of time in GC", False), ("dirty_pages", "write cache: dirty pages", False))


def panels(src: Source) -> list[tuple[str, str, bool]]:
    return [p for p in PANELS if any(len(g.series.get(p[0], [])) > 1 and "time_s" in g.series for g in src.groups)][:3]


def applies(src: Source, op=None) -> bool:
    return src.kind != "fill" and bool(panels(src))


def draw(src: Source, op=None):
    ps = panels(src)
    groups = [g for g in src.groups if "time_s" in g.series and len(g.series["time_s"]) > 1]
    line_label = {id(g): g.label for g in groups}
    note = " (first seed of each)" if src.kind == "sweep" else ""
    lines = common.sweep_lines(src)
    if lines and len(groups) > MAX_LINES:
        # A grid's every configuration over time is a tangle: the lines of the other axis at
        # the numeric axis's first value (a spare-factor sweep: the least spare, the most GC).
        x_axis, line_axis = lines
        first = min(g.keys[x_axis] for g in groups)
        groups = [g for g in groups if g.keys[x_axis] == first]
        note += f", {short(x_axis)}={first}"
        line_label = {id(g): f"{short(line_axis)}={g.keys[line_axis]}" for g in groups}
    fig, axes = figure(WIDE_IN, 2.3, 1, len(ps))
    cs = colours(len(groups))
    for ax, (col, label, rate) in zip(axes, ps):
        for g, c in zip(groups, cs):
            t, v = np.asarray(g.series["time_s"], float), np.asarray(g.series.get(col, []), float)
            if len(v) != len(t):
                continue
            if rate:
                dt = np.diff(t)
                v = np.divide(v[1:], dt, out=np.zeros_like(dt), where=dt > 0)
                t = t[1:]
            ax.plot(t, v, color=c, label=line_label[id(g)], lw=0.9)
        ax.set_xlabel("simulated time (s)")
        ax.set_ylabel(label)
        floor = src.raw.get("floor_mb_s") if isinstance(src.raw, dict) else None
        if col == "write_mb_s" and floor:
            ax.axhline(floor, color="k", ls="--", lw=0.8, label="floor")
    if len(groups) <= MAX_LINES:
        handles, names = axes[0].get_legend_handles_labels()
        fig.legend(handles, names, loc="outside right upper")
    fig.suptitle(short_title(src.title + note, 120), fontsize=8)
    return fig
