"""``--report PATH``: the option every experiment and ``ssdlab sweep`` take, refused before the
work if matplotlib (the ``plot`` extra) is missing, and the report of a result on disk."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ssdlab.cli_common import console, fail


def _needs_plots(value: Optional[Path]) -> Optional[Path]:
    """``--report`` is refused before the experiment runs if matplotlib is missing."""
    if value is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            from ssdlab.plots.style import NEEDS

            fail(f"--report: {NEEDS}")
    return value


def report_option() -> Any:
    return typer.Option(None, "--report", callback=_needs_plots,
                        help="Also write a self-contained HTML report (tables, figures, configuration, how to reproduce; needs the plot extra).")


def write_report(results: Path, report_path: Path) -> None:
    """The report of a result on disk (a sweep's results folder, a --json file)."""
    from ssdlab.plots import html, load

    try:
        html.write(report_path, load(results))
    except OSError as e:
        fail(f"--report {report_path}: cannot write: {e.strerror or e}")
    console.print(f"report written to {report_path}", highlight=False, markup=False)
