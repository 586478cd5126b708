"""Experiments report their progress (issue 57): the core counts an experiment's simulations
(a fill's points) and calls ``progress(done, total)`` from the calling thread while it runs and
once at its end; the count never changes a result."""
from __future__ import annotations

from ssdlab.experiments import fill, ttflash


def test_ttflash_counts_its_stacks_and_the_results_do_not_move():
    calls: list[tuple[int, int]] = []
    wl = ttflash.named_workload("mixed70-small", 4000)
    stacks = ["base", "ttflash"]
    with_bar = ttflash.run("ttflash-small", wl, stacks=stacks, jobs=2, progress=lambda d, t: calls.append((d, t)))
    without = ttflash.run("ttflash-small", wl, stacks=stacks, jobs=2)
    assert with_bar == without
    assert calls and calls[-1] == (2, 2)
    assert all(d <= t for d, t in calls) and [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_fill_counts_its_points():
    calls: list[tuple[int, int]] = []
    r = fill.run("yoo-qlc", [], points=20, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (len(r["points"]), len(r["points"]))
