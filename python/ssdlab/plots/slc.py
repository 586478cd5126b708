"""The SLC/QLC cache's write latency broken down per policy (Yoo & Shin 2020): microseconds
per host page spent writing SLC, writing QLC, waiting for migration, waiting for GC, stacked;
one panel per space utilisation."""
from __future__ import annotations

import numpy as np

from ssdlab.plots import common
from ssdlab.plots.source import Source
from ssdlab.plots.style import WIDE_IN, colours, figure, short_title

NAME = "slc"
HELP = "SLC/QLC write latency breakdown per policy (SLC, QLC, migration, GC; µs per page), stacked"
PARTS = (("slc", "SLC write"), ("qlc", "QLC write"), ("migration", "migration wait"), ("gc", "GC wait"))


def applies(src: Source, op=None) -> bool:
    return bool(common.with_scalar(src.groups, "breakdown_us.slc"))


def draw(src: Source, op=None):
    panels = common.facets(src)
    fig, axes = figure(WIDE_IN, 2.6, 1, len(panels))
    cs = colours(len(PARTS))
    for ax, (facet, groups) in zip(axes, panels.items()):
        groups = common.with_scalar(groups, "breakdown_us.slc")
        bottom = np.zeros(len(groups))
        for (part, label), c in zip(PARTS, cs):
            vals = np.asarray([g.scalars.get(f"breakdown_us.{part}", 0.0) for g in groups])
            ax.bar(range(len(groups)), vals, 0.7, bottom=bottom, color=c, label=label)
            bottom += vals
        common.bar_labels(ax, [g.label for g in groups])
        ax.set_title(facet or "")
    axes[0].set_ylabel("write time per host page (µs)")
    axes[-1].legend()
    fig.suptitle(short_title(src.title, 120), fontsize=8)
    return fig
