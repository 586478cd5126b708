"""The write cache: read and write hit ratios, flash page writes per host page write and the
write p99 against a sweep's numeric axis (a cache-size sweep: one line per trace), or as bars of
the compared runs; a run alone shows its dirty (not yet on flash) pages over simulated time."""
from __future__ import annotations

import numpy as np

from ssdlab.plots import common
from ssdlab.plots.source import Source
from ssdlab.plots.style import COLUMN_IN, WIDE_IN, colours, figure, short_title

NAME = "cache"
HELP = "write cache: hit ratios, flash writes per host write, write p99 (a sweep: per size); one run: dirty pages"
#: Panels of a comparison: (scalar by --json path, y label).
METRICS = (("write_cache.read_hit_ratio", "read hit ratio"), ("write_cache.write_hit_ratio", "write hit ratio"),
           ("write_cache.flash_writes_per_host_write", "flash writes / host write"),
           ("latency_us.write.p99", "write p99 (µs)"))


def _metrics(src: Source) -> list[tuple[str, str]]:
    return [(k, label) for k, label in METRICS if common.with_scalar(src.groups, k)]


def _dirty(src: Source) -> list:
    return [g for g in src.groups if len(g.series.get("dirty_pages", [])) > 1 and "time_s" in g.series]


def applies(src: Source, op=None) -> bool:
    if not any("write_cache.flash_writes_per_host_write" in g.scalars for g in src.groups):
        return False
    return len(src.groups) > 1 or bool(_dirty(src))


def draw(src: Source, op=None):
    if len(src.groups) == 1:
        return _draw_dirty(src)
    ms = _metrics(src)
    lines = common.sweep_lines(src)
    if lines:
        x_axis, line_axis = lines
        if "size_mib" in line_axis:  # the cache's size is the x axis when it is swept
            x_axis, line_axis = line_axis, x_axis
        return _draw_sweep(src, ms, x_axis, line_axis)
    fig, axes = figure(WIDE_IN, 2.3, 1, len(ms))
    for ax, (k, label) in zip(axes, ms):
        gs = common.with_scalar(src.groups, k)
        ax.bar(range(len(gs)), [g.scalars[k] for g in gs], 0.7, color=colours(len(gs)))
        common.bar_labels(ax, [g.label for g in gs])
        ax.set_ylabel(label)
    fig.suptitle(short_title(src.title, 120), fontsize=8)
    return fig


def _draw_sweep(src: Source, ms: list[tuple[str, str]], x_axis: str, line_axis: str):
    """One panel per metric (2 × 2), one line per value of the other axis; the sizes evenly
    spaced (a size sweep doubles, and usually starts at 0: no cache)."""
    cols = colours(common.line_count(src, line_axis))
    fig, axes = figure(WIDE_IN, 4.2, 2, 2)
    for ax, (k, label) in zip(axes, ms):
        common.draw_lines(ax, src, x_axis, line_axis, k, cols, evenly=True, label=common.path_label)
        ax.set_ylabel(label)
        if k == "latency_us.write.p99":
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
    for ax in axes[len(ms):]:
        ax.set_visible(False)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside lower center", ncols=min(len(names), 3))
    fig.suptitle(short_title(src.title, 120), fontsize=8)
    return fig


def _draw_dirty(src: Source):
    g = _dirty(src)[0]
    fig, axes = figure(COLUMN_IN * 1.6, 2.2, 1, 1)
    t, v = np.asarray(g.series["time_s"], float), np.asarray(g.series["dirty_pages"], float)
    axes[0].plot(t, v, lw=0.9, color=colours(1)[0])
    axes[0].set_xlabel("simulated time (s)")
    axes[0].set_ylabel("dirty pages (not on flash)")
    cap = g.scalars.get("write_cache.capacity_pages")
    if cap:
        axes[0].axhline(cap, color="k", ls="--", lw=0.8, label="capacity")
        axes[0].legend(loc="lower right")
    fig.suptitle(short_title(src.title, 120), fontsize=8)
    return fig
