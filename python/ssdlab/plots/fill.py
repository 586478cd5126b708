"""The drive-review fill curve: write throughput against data written in one sequential fill
of the empty drive, the SLC cache's size at the start marked."""
from __future__ import annotations

from ssdlab.plots.source import Source
from ssdlab.plots.style import COLUMN_IN, figure, short_title

NAME = "fill"
HELP = "fill curve: write MB/s against GB written in one sequential fill (experiment fill)"


def applies(src: Source, op=None) -> bool:
    return src.kind == "fill"


def draw(src: Source, op=None):
    g = src.groups[0]
    fig, (ax,) = figure(COLUMN_IN, 2.4)
    ax.plot(g.series["written_gb"], g.series["mb_s"], lw=1.2)
    cache = g.scalars.get("cache_gb")
    if cache:
        ax.axvline(cache, color="k", ls="--", lw=0.8, label=f"SLC cache at start ({cache:.2f} GB)")
        ax.legend()
    ax.set_xlabel("data written (GB)")
    ax.set_ylabel("write throughput (MB/s)")
    ax.set_ylim(bottom=0)
    ax.set_title(short_title(src.title))
    return fig
