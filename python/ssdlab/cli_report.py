"""``ssdlab report RESULTS`` (one self-contained HTML report of any result ssdlab writes), and
``--report PATH``: the option every experiment and ``ssdlab sweep`` take, refused before the
work if matplotlib (the ``plot`` extra) is missing."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import typer

from ssdlab.cli_common import console, fail


def require_plots(option: str = "") -> Any:
    """The plots package, or one line naming the ``plot`` extra (after ``option``, if given)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        from ssdlab.plots.style import NEEDS

        fail(f"{option}: {NEEDS}" if option else NEEDS)
    import ssdlab.plots

    return ssdlab.plots


def _needs_plots(value: Optional[Path]) -> Optional[Path]:
    """``--report`` is refused before the experiment runs if matplotlib is missing."""
    if value is not None:
        require_plots("--report")
    return value


def report_option() -> Any:
    return typer.Option(None, "--report", callback=_needs_plots,
                        help="Also write a self-contained HTML report (tables, figures, configuration, how to reproduce; needs the plot extra).")


def write_report(results: Path, report_path: Path, option: str = "--report",
                 tables_of: Optional[Callable[[Any], Sequence[Any]]] = None) -> None:
    """The report of a result on disk (a sweep's results folder, a --json file); ``tables_of``
    gives the source's own tables (``ssdlab report``: the experiment's)."""
    plots = require_plots(option)
    from ssdlab.plots import html

    src = plots.load(results)
    try:
        html.write(report_path, src, tables_of(src) if tables_of is not None else ())
    except OSError as e:
        fail(f"{option} {report_path}: cannot write: {e.strerror or e}")
    console.print(f"report of {results} written to {report_path}", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def experiment_tables(src: Any) -> list:
    """The experiment's own tables, from the module that prints them (one hook per experiment:
    ``report_tables(result_dict)``)."""
    from ssdlab.experiments import MODULES  # experiments import this module: not at its top

    kind = "offline" if src.kind == "offline-toy" else src.kind
    mod = MODULES.get(kind)
    hook = getattr(mod, "report_tables", None)
    if hook is None:
        return []
    from ssdlab.plots.source import read_raw

    return read_raw(src, lambda s: list(hook(s.raw)), f"a {src.kind} result as ssdlab writes it")


def report(
    results: Path = typer.Argument(..., help="A --json result (run or experiment), a sweep results folder, or a saved Q-table."),
    out: Path = typer.Option(Path("report.html"), "--output", "-o", help="The HTML file to write (self-contained: plots inlined)."),
) -> None:
    """Write one self-contained HTML report of a result: configuration, versions, tables, every
    figure that applies, and the commands that make each again."""
    write_report(results, out, "--output/-o", experiment_tables)
