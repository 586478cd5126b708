"""Flash errors (``reliability.errors``, docs/reliability.md): the share of reads retried, retry
steps per read, the largest RBER the decoder met, the share of reads uncorrectable and the read
p99 and p99.9 against a sweep's numeric axis (P/E cycles:
``reliability.initial_pe``; one line per value of the other axis, the data's age for
instance). Compared runs without a numeric axis are bars. A run alone has nothing to compare."""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ssdlab.plots import common
from ssdlab.plots.source import Group, Source, short
from ssdlab.plots.style import WIDE_IN, colours, figure, short_title

NAME = "errors"
HELP = "flash errors: retries, RBER, uncorrectable reads, read p99 and p99.9 (a sweep: against P/E cycles or another numeric axis)"
#: The panels: (scalar, y label, log scale), in reading order; the two ``per_read`` ones are
#: derived here (:func:`_derived`).
PANELS = (("flash.errors.retry_rate", "reads retried", False),
          ("flash.errors.per_read.retry_steps", "retry steps per read", False),
          ("flash.errors.max_rber", "largest RBER", True),
          ("flash.errors.per_read.uncorrectable", "reads uncorrectable", False),
          ("latency_us.read.p99", "read p99 (µs)", False),
          ("latency_us.read.p99_9", "read p99.9 (µs)", False))
#: Friendlier names of the usual axes.
AXIS_NAMES = {"initial_pe": "P/E cycles before the run", "age_days": "data age (days)"}


def applies(src: Source, op: Optional[str] = None) -> bool:
    """A comparison (a sweep, two or more groups) of which some ran the error model."""
    return len(src.groups) > 1 and any("flash.errors.retry_rate" in g.scalars for g in src.groups)


def _axes(src: Source) -> Optional[tuple[str, Optional[str]]]:
    """(x axis, line axis or None): the P/E axis if swept, else a sweep's numeric axis; None
    when nothing numeric varies."""
    if src.kind != "sweep" or not 1 <= len(src.axes) <= 2:
        return None
    numeric = [a for a in src.axes if common.numeric([g.keys.get(a) for g in src.groups])]
    if not numeric:
        return None
    x = next((a for a in numeric if short(a) == "initial_pe"), numeric[0])
    return x, next((a for a in src.axes if a != x), None)


def _label(axis: str, value) -> str:
    name = short(axis)
    if name == "age_days":
        return f"data {value:g} days old" if isinstance(value, (int, float)) else str(value)
    return f"{AXIS_NAMES.get(name, name)}={common.path_label(value)}"


def _derived(g: Group) -> Group:
    """``g`` with retry steps and uncorrectable reads per page read (a copy)."""
    k = g.scalars
    reads = k.get("flash.errors.page_reads", 0.0)
    extra = {"flash.errors.per_read.retry_steps": k.get("flash.errors.retry_steps", 0.0) / reads,
             "flash.errors.per_read.uncorrectable": k.get("flash.errors.uncorrectable_reads", 0.0) / reads
             } if reads > 0 else {}
    return replace(g, scalars={**k, **extra})


def draw(src: Source, op: Optional[str] = None):
    groups = [_derived(g) for g in src.groups if "flash.errors.retry_rate" in g.scalars]
    view = replace(src, groups=groups)
    found = _axes(view)
    fig, axes = figure(WIDE_IN, 6.6, 3, 2)
    if found:
        x, line = found
        n = common.line_count(view, line) if line else 1
        for ax, (k, label, log) in zip(axes, PANELS):
            common.draw_lines(ax, view, x, line or "__none__", k, colours(n),
                              label=(lambda v: _label(line, v)) if line else (lambda v: "all runs"))
            ax.set_ylabel(label)
            ax.set_xlabel(AXIS_NAMES.get(short(x), short(x)))
            if log:
                ax.set_yscale("log")
            elif k.endswith(("retry_rate", "uncorrectable")):
                ax.set_ylim(-0.02, 1.02)
            else:
                ax.set_ylim(bottom=0)
        if line:
            common.legend_outside(fig, axes[-1])
    else:
        cols = colours(len(groups))
        for ax, (k, label, log) in zip(axes, PANELS):
            gs = common.with_scalar(groups, k)
            ax.bar(range(len(gs)), [g.scalars[k] for g in gs], 0.7, color=cols[:len(gs)])
            common.bar_labels(ax, [g.label for g in gs])
            ax.set_ylabel(label)
            if log:
                ax.set_yscale("log")
    fig.suptitle(short_title(src.title, 120), fontsize=8)
    return fig
