"""``ssdlab plot KIND RESULTS``: one figure of any result ssdlab writes (a run's or an
experiment's ``--json``, a sweep's results folder, a saved Q-table). Needs the ``plot`` extra
(matplotlib). ``ssdlab report`` is ``cli_report``."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ssdlab.cli_common import console, fail
from ssdlab.cli_report import require_plots

OPS = ("read", "write", "all")


def register(app: typer.Typer) -> None:
    app.command("plot")(plot)


def _op(op: Optional[str]) -> Optional[str]:
    if op is not None and op not in OPS:
        fail(f"--op: expected one of {', '.join(OPS)}, got '{op}'")
    return op


def _list_kinds(value: bool) -> None:
    if not value:
        return
    plots = require_plots()
    for name, k in plots.KINDS.items():
        console.print(f"{name:<12} {k.HELP}", highlight=False, markup=False)
    raise typer.Exit()


def plot(
    kind: str = typer.Argument(..., help="ccdf, percentiles, series, waf, cache, mapping, slc, fill, mcts or qtable (ssdlab plot --list)."),
    results: Path = typer.Argument(..., help="A --json result (run or experiment), a sweep results folder, or a saved Q-table."),
    out: Optional[Path] = typer.Option(None, "--output", "-o", help="Figure file: .png, .svg or .pdf (default KIND.png beside RESULTS)."),
    op: Optional[str] = typer.Option(None, "--op", help="Latency of read, write or all requests (default: the result's own — rlgc: write, ttflash: read)."),
    _list: bool = typer.Option(False, "--list", callback=_list_kinds, is_eager=True, help="List the plot kinds and what each draws, and exit."),
) -> None:
    """Draw one figure of a result (matplotlib; PNG, SVG or PDF)."""
    plots = require_plots()
    if kind not in plots.KINDS:
        fail(f"KIND: expected one of {', '.join(plots.KINDS)}, got '{kind}'")
    op = _op(op)
    out = out if out is not None else (results if results.is_dir() else results.parent) / f"{kind}.png"
    if out.suffix.lower() not in plots.FORMATS:
        fail(f"--output/-o {out}: expected a file name ending in {', '.join(plots.FORMATS)}")
    src = plots.load(results)
    try:
        fig = plots.figure(kind, src, op)
    except ValueError as e:
        fail(str(e))
    try:
        plots.save(fig, out)
    except OSError as e:
        fail(f"--output/-o {out}: cannot write: {e.strerror or e}")
    console.print(f"{kind} of {results} written to {out}", highlight=False, markup=False)
