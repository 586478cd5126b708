"""What every CLI module shares: the consoles and the one-line error exit."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape

# Wide enough for the latency table when output is not a terminal (rich defaults to 80 there).
console = Console(width=None if sys.stdout.isatty() else 140)
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else 200)


def error_line(message: str) -> None:
    """Print ``ssdlab: error: <message>`` as one line on stderr (escaped: a `[...]` in it, such
    as a list of names, is not read as rich markup; newlines are folded; a long value is cut to
    its head and tail so the line stays under ~300 characters: ``inputs.shorten``)."""
    from ssdlab.inputs import shorten

    text = shorten(message)
    err_console.print(f"[bold red]ssdlab: error:[/] {escape(text)}", highlight=False, soft_wrap=True, markup=True)


def warn(message: str) -> None:
    """One ``ssdlab: warning: …`` line on stderr (shortened as errors are); the run goes on."""
    from ssdlab.inputs import MAX_WARNING_LINE, shorten

    err_console.print(f"[bold yellow]ssdlab: warning:[/] {escape(shorten(message, MAX_WARNING_LINE))}", highlight=False, soft_wrap=True,
                      markup=True)


def fail(message: str, code: int = 2) -> None:
    """Print ``message`` as one error line on stderr and exit with ``code`` (2: bad input)."""
    error_line(message)
    raise typer.Exit(code)


#: The command-line framework's usage errors (typer vendors its own click: reach its classes
#: through typer's public ones rather than a private module).
UsageError = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def _given_value(opts: list[str], argv: list[str]) -> Optional[str]:
    """The value the command line gave an option (``--opt V`` or ``--opt=V``), if any."""
    for i, a in enumerate(argv):
        for o in opts:
            if a == o and i + 1 < len(argv):
                return argv[i + 1]
            if a.startswith(o + "=") and o.startswith("--"):
                return a[len(o) + 1:]
    return None


def _param_hint(param: Any) -> str:
    opts = [o for o in getattr(param, "opts", []) if o.startswith("-")]
    return "/".join(opts) if opts else (param.name or "argument").upper()


def usage_error_message(e: Any, argv: list[str]) -> str:
    """A command-line framework error as ``<option>: <what was expected>, got <value>``."""
    param = getattr(e, "param", None)
    if type(e).__name__ == "MissingParameter" and param is not None:
        return f"{_param_hint(param)}: missing (required)"
    if isinstance(e, typer.BadParameter) and param is not None:
        msg = re.sub(r"Input should be (a valid \w+|[^,]+).*", r"expected \1", e.message.rstrip("."))
        msg = msg.replace("Value error, ", "")
        # typer < 0.29 (click's conversion): "'abc' is not a valid int".
        msg = re.sub(r"^'.*' is not a valid (\w+)$",
                     lambda m: f"expected a valid {'integer' if m[1] == 'int' else m[1]}", msg)
        value = _given_value([o for o in getattr(param, "opts", []) if o.startswith("-")], argv)
        got = f", got {value!r}" if value is not None and ", got " not in msg and value not in msg else ""
        return f"{_param_hint(param)}: {msg}{got}"
    msg = e.format_message().rstrip(".")
    if type(e).__name__ == "NoSuchOption":
        near = sorted(getattr(e, "possibilities", None) or [])
        where = f" of {e.ctx.command_path}" if e.ctx is not None else ""
        return f"{e.option_name}: no such option{where}" + (f" (did you mean {', '.join(near)}?)" if near else "")
    if getattr(e, "option_name", None):
        return f"{e.option_name}: {msg.replace(repr(e.option_name) + ' ', '').replace('Option ', '')}"
    if e.ctx is not None:
        msg = f"{e.ctx.command_path}: {msg}"
    return msg


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


def jobs_option(what: str = "Runs") -> Any:
    """``--jobs/-j`` of the experiments that run several simulations: how many at once, one
    thread each (the default, 0 — one per CPU, fewer when memory is short — is the core's)."""
    from ssdlab import registry

    auto = registry.auto_jobs()
    return typer.Option(auto, "--jobs", "-j", help=f"{what} at once, one thread each (default {auto}: one per CPU, fewer when memory is short; 1: one after another). No result depends on it.")
