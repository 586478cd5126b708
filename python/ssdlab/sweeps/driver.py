"""A sweep from start to end: skip what the store has, execute the rest, store each row as it
finishes, compact when every run is in."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from ssdlab.sweeps.executor import Executor
from ssdlab.sweeps.runner import Outcome, make_row, result_types
from ssdlab.sweeps.spec import RunTask, Sweep
from ssdlab.sweeps.store import Store


@dataclass
class Plan:
    """Which of a sweep's runs the store has and which are to run."""

    sweep: Sweep
    stored: dict[str, str]
    todo: list[RunTask] = field(default_factory=list)

    @property
    def skipped(self) -> int:
        return len(self.sweep.tasks) - len(self.todo)


def plan(sweep: Sweep, store: Store, retry_errors: bool = False) -> Plan:
    """Runs not in the store (with ``retry_errors``, error rows too) are to run."""
    stored = store.statuses() if store.exists() else {}
    todo = [t for t in sweep.tasks if t.id not in stored or (retry_errors and stored[t.id] == "error")]
    return Plan(sweep, stored, todo)


@dataclass
class Report:
    ran: int = 0
    ok: int = 0
    errors: int = 0
    complete: bool = False


def execute_plan(p: Plan, store: Store, executor: Executor,
                 on_outcome: Optional[Callable[[RunTask, Outcome], None]] = None, compact: bool = True) -> Report:
    """Run ``p.todo`` on ``executor``, writing each row to ``store`` as it finishes; compact the
    store once every run of the sweep is stored. An interrupt propagates after the executor is
    stopped; the rows stored so far stay."""
    by_id = {t.id: t for t in p.todo}
    types = result_types()
    report = Report()
    with executor:
        for outcome in executor.run(p.todo):
            task = by_id[outcome.id]
            store.write(make_row(task, outcome), outcome.series, types, outcome.histogram)
            report.ran += 1
            report.ok += outcome.status == "ok"
            report.errors += outcome.status != "ok"
            if on_outcome is not None:
                on_outcome(task, outcome)
    report.complete = True
    if compact:
        store.compact()
    return report
