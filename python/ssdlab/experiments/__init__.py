"""``ssdlab experiment``: one sub-command per paper, each running its comparison and printing its
tables. Add one with ``@experiment_app.command("name")`` in a module of this package and import
it below."""
from __future__ import annotations

import sys

import typer

experiment_app = typer.Typer(no_args_is_help=True, help="Reproduce a paper's comparison.")


@experiment_app.callback()
def _running(ctx: typer.Context) -> None:
    """Reproduce a paper's comparison."""
    # On a terminal, a bar of the experiment's simulations done (the core counts them; a stage
    # adds its own when it starts) with the time elapsed and an estimate of the time left; its
    # output prints above it. Experiments that report nothing keep it a spinner.
    from ssdlab.cli_common import err_console
    from ssdlab.experiments.output import PROGRESS_KEY

    if not sys.stderr.isatty() or ctx.resilient_parsing:
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    bar = Progress(SpinnerColumn(), TextColumn(f"experiment {ctx.invoked_subcommand}"), BarColumn(),
                   MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                   console=err_console, transient=True)
    task = bar.add_task("run", total=None)
    bar.start()
    ctx.call_on_close(bar.stop)

    def advance(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total or None)

    ctx.meta[PROGRESS_KEY] = advance

from ssdlab.experiments import offline as _offline  # noqa: E402,F401  (registers "offline")
from ssdlab.experiments import ttflash as _ttflash  # noqa: E402,F401  (registers "ttflash")
from ssdlab.experiments import rlgc as _rlgc  # noqa: E402,F401  (registers "rlgc")
from ssdlab.experiments import fill as _fill  # noqa: E402,F401  (registers "fill")
from ssdlab.experiments import slc as _slc  # noqa: E402,F401  (registers "slc")
from ssdlab.experiments import detect as _detect  # noqa: E402,F401  (registers "detect")
from ssdlab.experiments import tails as _tails  # noqa: E402,F401  (registers "tails")
from ssdlab.experiments import tenants as _tenants  # noqa: E402,F401  (registers "tenants")
from ssdlab.experiments import placement as _placement  # noqa: E402,F401  (registers "placement")
from ssdlab.experiments import lifetime as _lifetime  # noqa: E402,F401  (registers "lifetime")

#: Each experiment's module by name (``ssdlab report`` asks it for its tables).
MODULES = {"offline": _offline, "ttflash": _ttflash, "rlgc": _rlgc, "fill": _fill, "slc": _slc, "detect": _detect,
           "tails": _tails, "tenants": _tenants, "placement": _placement,
           "lifetime": _lifetime}


def register(app: typer.Typer) -> None:
    """Add ``ssdlab experiment`` to the top-level app."""
    app.add_typer(experiment_app, name="experiment")
