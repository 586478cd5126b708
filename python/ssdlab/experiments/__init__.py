"""``ssdlab experiment``: one module per paper, each running its comparison and printing its
tables."""
from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, help="Reproduce the papers' comparisons.")

from ssdlab.experiments import ttflash as _ttflash  # noqa: E402  (registers its command)

__all__ = ["app"]
