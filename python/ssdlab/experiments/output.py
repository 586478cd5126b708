"""What every experiment does with its result: name it, write it (``--json``) and, with
``--report PATH``, write the HTML report of it (the ``plot`` extra; ``ssdlab.cli_report``)."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from ssdlab import _core
from ssdlab.cli_common import console, fail, write_json
from ssdlab.cli_report import report_option  # noqa: F401  (re-exported: each experiment's option)


#: Where an experiment's command finds its progress bar (click's context ``meta``: per
#: invocation, set by ``ssdlab experiment``'s callback on a terminal).
PROGRESS_KEY = "ssdlab.experiment.progress"


def progress() -> Optional[Callable[[int, int], None]]:
    """The running command's progress callback ``(done, total)``, if it shows a bar."""
    import click

    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(PROGRESS_KEY) if ctx is not None else None


def command_line() -> str:
    """The command that ran, as a user would type it again."""
    return shlex.join(["ssdlab", *sys.argv[1:]])


def finish(name: str, result: dict[str, Any], json_path: Optional[Path], report_path: Optional[Path],
           tables: Sequence[Any] = ()) -> dict[str, Any]:
    """Stamp ``result`` with the experiment's name, the command and the versions; write it to
    ``json_path`` and its report to ``report_path`` (each when given; a report without
    ``json_path`` keeps its data beside it, as REPORT.json). Returns the stamped result."""
    stamped = {"experiment": name, "command": command_line(), "ssdlab_version": _core.__version__,
               "git_commit": _core.__git_commit__, **result}
    if report_path is not None and json_path is None:
        # The report's figures name the data they are drawn from (ssdlab plot KIND DATA): keep it.
        json_path = report_path.with_suffix(".json")
    write_json(json_path, stamped)
    if report_path is not None:
        from ssdlab.plots import html
        from ssdlab.plots.source import from_dict

        try:
            html.write(report_path, from_dict(stamped, json_path or report_path), tables)
        except OSError as e:
            fail(f"--report {report_path}: cannot write: {e.strerror or e}")
        console.print(f"report written to {report_path}", highlight=False, markup=False)
    return stamped
