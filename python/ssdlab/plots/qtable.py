"""A learned Q-table as a heat map: one row per state, one column per action (the action's
label — page copies — when the table has them), the greedy action of each state marked."""
from __future__ import annotations

import numpy as np

from ssdlab.plots.source import Source
from ssdlab.plots.style import COLUMN_IN, figure, short_title

NAME = "qtable"
HELP = "a saved Q-table (ssdlab run --q-table) as a state × action heat map, greedy actions marked"


def applies(src: Source, op=None) -> bool:
    return src.kind == "qtable"


def draw(src: Source, op=None):
    q = np.asarray(src.raw["values"], float)
    labels = src.raw.get("action_labels") or list(range(q.shape[1]))
    fig, (ax,) = figure(COLUMN_IN, min(6.0, 1.2 + 0.12 * q.shape[0]))
    im = ax.imshow(q, aspect="auto", cmap="viridis", interpolation="nearest")
    best = q.argmax(axis=1)
    visited = np.any(q != 0, axis=1)
    ax.scatter(best[visited], np.nonzero(visited)[0], marker=".", s=8, color="w", label="greedy action")
    ax.set_xticks(range(q.shape[1]), [str(a) for a in labels])
    ax.set_xlabel("action" + (" (page copies)" if src.raw.get("action_labels") else ""))
    ax.set_ylabel("state")
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="Q value")
    ax.set_title(short_title(src.title))
    return fig
