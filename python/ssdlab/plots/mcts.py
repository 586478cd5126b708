"""MCTS convergence (the offline-cleaning paper's Figure 8): the best schedule's internal writes
after n playouts, beside greedy and the best online policy — where the search must end below."""
from __future__ import annotations

from ssdlab.plots.source import Source
from ssdlab.plots.style import COLUMN_IN, figure, short_title

NAME = "mcts"
HELP = "MCTS convergence: internal writes of the best schedule against playouts, with the online policies"
ONLINE = ("greedy", "fifo", "cost-benefit", "d-choices")


def applies(src: Source, op=None) -> bool:
    return src.kind == "offline" and bool(src.raw.get("convergence"))


def draw(src: Source, op=None):
    conv = src.raw["convergence"]
    methods = src.raw.get("methods", {})
    fig, (ax,) = figure(COLUMN_IN * 1.4, 2.5)
    ax.plot([c["playouts"] for c in conv], [c["internal_writes"] for c in conv], marker="o", ms=3, label="MCTS best")
    for i, m in enumerate(n for n in ONLINE if n in methods):
        ax.axhline(methods[m]["internal_writes"], ls="--", lw=0.8, color=f"C{i + 1}", label=m)
    ax.set_xscale("log")
    ax.set_xlabel("playouts")
    ax.set_ylabel("internal writes (pages)")
    ax.set_title(short_title(src.title))
    fig.legend(loc="outside right upper")
    return fig
