"""Flash work per group as bars: WAF and erases (offline cleaning: internal writes; the SLC
cache: write throughput beside WAF); a sweep over two axes as lines against its numeric axis."""
from __future__ import annotations

from ssdlab.plots import common
from ssdlab.plots.source import Source
from ssdlab.plots.style import COLUMN_IN, WIDE_IN, colours, figure, short_title

NAME = "waf"
HELP = "WAF and erase counts (offline: internal writes; SLC: write MB/s) per policy as bars (a grid: lines against its numeric axis)"
#: What a panel may show, in order; a figure has the first two the groups have.
METRICS = (("waf", "WAF"), ("erases", "erases"), ("internal_writes", "internal writes (pages)"),
           ("write_mb_s", "write throughput (MB/s)"), ("normalised_erases", "erases / baseline"))


def metrics(src: Source) -> list[tuple[str, str]]:
    return [(k, label) for k, label in METRICS if common.with_scalar(src.groups, k)][:2]


def applies(src: Source, op=None) -> bool:
    """Bars compare: a result of one group (a run, a fill) has nothing to compare."""
    return len(src.groups) > 1 and bool(metrics(src))


def draw(src: Source, op=None):
    ms = metrics(src)
    lines = common.sweep_lines(src)
    if lines:
        x_axis, line_axis = lines
        fig, axes = figure(WIDE_IN, 2.4, 1, len(ms))
        for ax, (k, label) in zip(axes, ms):
            common.draw_lines(ax, src, x_axis, line_axis, k, colours(common.line_count(src, line_axis)))
            ax.set_ylabel(label)
        common.legend_outside(fig, axes[-1])
        fig.suptitle(short_title(src.title, 120), fontsize=8)
        return fig
    panels = common.facets(src)
    rows = len(panels)
    wide = len(src.groups) > 6 or rows > 1
    fig, axes = figure(WIDE_IN if wide else COLUMN_IN * 1.6, 2.2 * rows, rows, len(ms))
    for r, (facet, groups) in enumerate(panels.items()):
        for c, (k, label) in enumerate(ms):
            ax = axes[r * len(ms) + c]
            gs = common.with_scalar(groups, k)
            ax.bar(range(len(gs)), [g.scalars[k] for g in gs], 0.7, color=colours(len(gs)))
            common.bar_labels(ax, [g.label for g in gs])
            ax.set_ylabel(label)
            if k == "waf":
                ax.set_ylim(bottom=1.0 if all(g.scalars[k] >= 1 for g in gs) else 0)
            if facet:
                ax.set_title(facet)
    fig.suptitle(short_title(src.title, 120), fontsize=8)
    return fig
