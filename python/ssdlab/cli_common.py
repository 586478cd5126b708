"""What every CLI module shares: the consoles and the one-line error exit."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape

# Wide enough for the latency table when output is not a terminal (rich defaults to 80 there).
console = Console(width=None if sys.stdout.isatty() else 140)
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else 200)


def fail(message: str, code: int = 2) -> None:
    """Print ``message`` as one line on stderr and exit with ``code``. The message is printed as
    it is (escaped: a `[...]` in it, such as a list of names, is not read as rich markup)."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True, markup=True)
    raise typer.Exit(code)


def write_json(path: Optional[Path], data: Any, option: str = "--json") -> None:
    """Write ``data`` as indented JSON to ``path`` (nothing when None); a write error is one
    line naming the option."""
    if path is None:
        return
    try:
        path.write_text(json.dumps(data, indent=1))
    except OSError as e:
        fail(f"{option} {path}: cannot write: {e}")
    console.print(f"results written to {path}")
