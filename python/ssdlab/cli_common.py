"""What every CLI module shares: the consoles and the one-line error exit."""
from __future__ import annotations

import sys

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
