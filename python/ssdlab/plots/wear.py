"""Wear (``[wear_leveling]``, docs/reliability.md): the erase-count distribution over blocks —
each group's erase count at every tenth of its blocks sorted by count, where the result has the
deciles (a run, a sweep) — beside the spread wear levelling narrows, the coefficient of
variation and max over mean, and the WAF it costs. Drawn where some group ran wear levelling."""
from __future__ import annotations

import json
from typing import Any, Optional

from ssdlab.plots import common
from ssdlab.plots.source import Group, Source
from ssdlab.plots.style import WIDE_IN, colours, short_title

NAME = "wear"
HELP = "wear levelling: erase counts by share of blocks (deciles), CoV, max/mean and WAF per group"
#: The bar panels: (scalar, y label).
BARS = (("erase_per_block.cov", "erase count CoV"), ("erase_per_block.max_over_mean", "max / mean erases"),
        ("waf", "WAF"))


def applies(src: Source, op: Optional[str] = None) -> bool:
    """Some group ran wear levelling (its result has a ``wear_leveling`` section)."""
    return any("wear_leveling.static_victims" in g.scalars for g in src.groups) and any(
        "erase_per_block.cov" in g.scalars for g in src.groups)


def deciles(src: Source, g: Group) -> Optional[list[float]]:
    """``g``'s erase-count deciles: a run's from its JSON, a sweep group's the mean over its
    seeds' rows; None where the source does not keep them."""
    if src.kind == "run" and isinstance(src.raw, dict) and g is src.groups[0]:
        d = (src.raw.get("erase_per_block") or {}).get("deciles")
        return [float(x) for x in d] if isinstance(d, list) else None
    if src.kind != "sweep" or not isinstance(src.raw, list):
        return None
    rows: list[Any] = [r for r in src.raw if r.get("status") == "ok" and all(r.get(a) == v for a, v in g.keys.items())]
    found = [json.loads(r["erase_per_block.deciles"]) for r in rows if isinstance(r.get("erase_per_block.deciles"), str)]
    if not found:
        return None
    return [sum(col) / len(found) for col in zip(*found)]


def label(g: Group) -> str:
    """A group's name by its levelling (``static T=25``, ``dynamic + static T=25``, ``off``) in a
    sweep over ``wear_leveling``; its own label otherwise."""
    keys = {k.rsplit(".", 1)[-1]: v for k, v in g.keys.items() if k.startswith("set.wear_leveling.")}
    if not keys:
        return g.label
    parts = ["dynamic"] if keys.get("dynamic") is True else []
    if keys.get("static") is True:
        t = keys.get("static_threshold")
        parts.append(f"static T={t:g}" if isinstance(t, (int, float)) else "static")
    rest = [f"{k}={v}" for k, v in g.keys.items() if not k.startswith("set.wear_leveling.")]
    return " + ".join(parts or ["off"]) + (f" ({', '.join(rest)})" if rest else "")


def draw(src: Source, op: Optional[str] = None):
    from matplotlib.figure import Figure

    groups = common.with_scalar(src.groups, "erase_per_block.cov")
    curves = [(g, deciles(src, g)) for g in groups]
    curves = [(g, d) for g, d in curves if d]
    cols = colours(len(groups))
    colour = {id(g): c for g, c in zip(groups, cols)}
    names = [label(g) for g in groups]
    fig = Figure(figsize=(WIDE_IN, 5.4 if curves else 2.8), layout="constrained")
    if curves:
        top, bottom = fig.subfigures(2, 1, height_ratios=[2.4, 3.0])
        ax = top.subplots()
        for g, d in curves:
            ax.plot([10 * i for i in range(len(d))], d, marker="o", ms=3, color=colour[id(g)], label=label(g))
        ax.set_xlabel("blocks, sorted by erases (%)")
        ax.set_ylabel("erases in the run")
        ax.set_ylim(bottom=0)
        if len(curves) > 1:
            top.legend(*ax.get_legend_handles_labels(), loc="outside right center", fontsize=6)
    else:
        bottom = fig
    axes = bottom.subplots(1, len(BARS), squeeze=False)[0]
    for ax, (k, name) in zip(axes, BARS):
        gs = common.with_scalar(groups, k)
        ax.bar(range(len(gs)), [g.scalars[k] for g in gs], 0.7, color=[colour[id(g)] for g in gs])
        common.bar_labels(ax, [names[groups.index(g)] for g in gs])
        ax.set_ylabel(name)
        if k == "waf":
            ax.set_ylim(bottom=1.0 if all(g.scalars[k] >= 1 for g in gs) else 0)
    fig.suptitle(short_title(src.title, 120), fontsize=8)
    return fig
