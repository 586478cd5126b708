"""``ssdlab sweep SPEC.toml [-o RESULTS] [-j N] [--ray local|ADDRESS]``: run a grid of simulations
into a results store.

The command needs pyarrow (it writes Parquet) but no dataframe library: it prints its summary
with rich from the stored table.
"""
from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from ssdlab.cli_common import console, err_console, fail, warn
from ssdlab.cli_report import report_option, write_report
from ssdlab.inputs import read_text
from ssdlab.sweeps.spec import MAX_RUNS

if TYPE_CHECKING:  # the sweep machinery is imported when a sweep runs, not with the CLI
    from ssdlab.sweeps.driver import Plan
    from ssdlab.sweeps.spec import Sweep
    from ssdlab.sweeps.store import Store

#: Groups shown in the summary table (the rest: ssdlab.load).
SUMMARY_ROWS = 30
METRICS = (("WAF", "waf", "{:.3f}"), ("p99 µs", "latency_us.all.p99", "{:,.1f}"),
           ("p99.99 µs", "latency_us.all.p99_99", "{:,.1f}"))


def default_results(spec: Path) -> Path:
    """``grid.toml`` → ``grid.results`` beside it."""
    return spec.with_suffix(".results") if spec.suffix else spec.with_name(spec.name + ".results")


def register(app: typer.Typer) -> None:
    app.command("sweep")(sweep)


def sweep(
    ctx: typer.Context,
    spec: Optional[Path] = typer.Argument(None, help="Sweep specification, TOML (docs/sweep.md; --example prints one)."),
    results: Optional[Path] = typer.Option(None, "--results", "-o", help="Results folder: a new one, or the store of an earlier run of the sweep to resume (default: SPEC's name with .results, beside it)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Worker processes (default: one per CPU; 0: in this process). With --ray local: the local Ray instance's CPUs; with a cluster: at most N runs at once (default: every CPU of the cluster busy, 2 runs in flight per CPU)."),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="ADDRESS|local", help="Run on Ray (the ray extra): 'local' starts a Ray instance on this machine; an address (ray://HOST:10001, HOST:6379, auto) joins a cluster whose workers have ssdlab installed and the traces at the same paths."),
    retry_errors: bool = typer.Option(False, "--retry-errors", help="Run the runs stored as errors again (finished runs are otherwise skipped)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List the runs and which the store has; run nothing."),
    compact: bool = typer.Option(True, "--compact/--no-compact", help="When every run is stored, fold the row files into results.parquet."),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="Progress bar (default: when stderr is a terminal; otherwise one line per run)."),
    example: bool = typer.Option(False, "--example", help="Print an example specification (50 short runs) and exit."),
    max_runs: int = typer.Option(MAX_RUNS, "--max-runs", min=1, help="Refuse a spec that expands to more runs than this (a grid of a million is more often an axis too many than a plan), before building any."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """Run a grid of simulations (devices × overrides × workloads × options × seeds) into a
    Parquet results store, one row per run; resumable."""
    from ssdlab.sweeps.example import example_spec
    from ssdlab.sweeps.keys import SpecError
    from ssdlab.sweeps.spec import expand
    from ssdlab.sweeps.store import NEEDS, Store, StoreError

    from ssdlab.cli_applies import given, refuse

    if example:
        if spec is not None:
            fail("--example: prints a specification; expected no SPEC with it")
        refuse(ctx, sorted(given(ctx) - {"example"}), "does not apply to --example (it prints a specification)")
        console.print(example_spec(), markup=False, highlight=False, end="")
        return
    if spec is None:
        fail("SPEC: missing (a sweep specification, TOML; ssdlab sweep --example prints one)")
    if dry_run:
        refuse(ctx, ("jobs", "ray", "compact", "progress", "report_path"), "does not apply to --dry-run (nothing runs)")
    if ray is not None:
        ray = check_ray(ray, jobs)
    try:
        sw = expand(spec, max_runs)
    except SpecError as e:
        fail(str(e))
    for advisory in sw.advisories:
        warn(advisory)
    store = Store(results if results is not None else default_results(spec))
    try:
        store.check()
        if dry_run:
            from ssdlab.sweeps.driver import plan

            return print_plan(plan(sw, store, retry_errors))
        store.open()
        store.keep_spec(sw.name, read_text(spec))
    except StoreError as e:
        fail(f"--results/-o {e}")
    except ImportError:
        fail(f"{spec}: {NEEDS}")
    try:
        run(sw, store, jobs, retry_errors, compact, progress, ray)
    finally:
        store.close()
    if report_path is not None:
        write_report(store.root, report_path)


def check_ray(address: str, jobs: Optional[int]) -> str:
    """``--ray``'s value, checked before anything else: not empty, with ``-j`` ≥ 1, Ray installed."""
    from ssdlab.sweeps.executor_ray import RayMissing, check_address, require_ray

    try:
        address = check_address(address)
    except ValueError as e:
        fail(f"--ray: {e}")
    if jobs is not None and jobs < 1:
        fail(f"--jobs/-j: expected at least 1 with --ray (0 runs in this process, without Ray), got {jobs}")
    try:
        require_ray()
    except RayMissing as e:
        fail(f"--ray: {e}")
    return address


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def run(sw: Sweep, store: Store, jobs: Optional[int], retry_errors: bool, compact: bool,
        progress: Optional[bool], ray: Optional[str] = None) -> None:
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, SpinnerColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    from ssdlab.sweeps.driver import execute_plan, plan
    from ssdlab.sweeps.executor_ray import RayStartError
    from ssdlab.sweeps.executors import executor_for
    from ssdlab.sweeps.store import StoreError

    class RateColumn(ProgressColumn):
        """Finished runs per second."""

        def render(self, task: Any) -> Text:
            return Text(f"{task.speed:.2f} runs/s" if task.speed else "", style="progress.data.speed")

    p = plan(sw, store, retry_errors)
    executor = executor_for(jobs, len(p.todo), ray)
    total = len(sw.tasks)
    try:
        where = executor.where() if p.todo else ""  # starts Ray (not when there is nothing to run)
    except RayStartError as e:
        fail(f"--ray {ray}: cannot start Ray: {e}")
    dups = f" ({sw.duplicates} duplicate{'s' * (sw.duplicates != 1)} counted once)" if sw.duplicates else ""
    console.print(f"sweep {sw.name}: {total} runs{dups}, {p.skipped} in {store.root} already, {len(p.todo)} to run "
                  + where, highlight=False, markup=False)
    show = sys.stderr.isatty() if progress is None else progress
    done = p.skipped
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        columns = [SpinnerColumn(), TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                   TextColumn("eta"), TimeRemainingColumn(), TimeElapsedColumn()]
        with Progress(*columns, console=err_console, transient=True, disable=not show) as bar:
            task = bar.add_task("sweep", total=total, completed=done)

            def finished(t, outcome) -> None:
                nonlocal done
                done += 1
                if show:
                    bar.advance(task)
                    if outcome.status != "ok":
                        bar.console.print(f"run {t.id} [red]error[/]: {escape(outcome.error or '')}", highlight=False)
                else:
                    tail = f": {outcome.error}" if outcome.status != "ok" else ""
                    print(f"[{done}/{total}] run {t.id} {outcome.status} {outcome.wall_time_s:.1f} s{tail}",
                          file=sys.stderr, flush=True)

            report = execute_plan(p, store, executor, finished, compact=compact)
    except KeyboardInterrupt:
        err_console.print(f"interrupted: {done} of {total} runs stored in {store.root}; "
                          "the same command resumes the sweep", highlight=False)
        raise typer.Exit(130)
    except StoreError as e:
        fail(str(e), code=1)
    finally:
        signal.signal(signal.SIGTERM, previous)
    print_summary(sw, store)
    if report.errors:
        warn(f"{report.errors} of {report.ran} runs failed: status 'error', their messages in the 'error' column")


def _stored_rows(sw: Sweep, store: Store) -> list[dict[str, Any]]:
    table = store.read()
    rows = {r["id"]: r for r in table.to_pylist()}
    return [rows[t.id] for t in sw.tasks if t.id in rows]


def print_plan(p: Plan) -> None:
    sw = p.sweep
    t = Table(title=f"sweep {sw.name}: {len(sw.tasks)} runs, {len(p.todo)} to run", title_justify="left")
    for c in ("#", "id", *sw.axes, "stored"):
        t.add_column(escape(c), justify="right" if c == "#" else "left")
    for i, task in enumerate(sw.tasks):
        t.add_row(str(i + 1), task.id, *(escape(_fmt(task.config.get(k))) for k in sw.axes),
                  p.stored.get(task.id, "-"))
    console.print(t)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return "" if v is None else str(v)


def print_summary(sw: Sweep, store: Store) -> None:
    """Mean results of each combination of the axes (seeds averaged), and the errors."""
    rows = _stored_rows(sw, store)
    keys = [k for k in sw.axes if k != "seed"]
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(tuple(_fmt(r.get(k)) for k in keys), []).append(r)
    seeds = "seed" in sw.axes
    t = Table(title=f"{sw.name}: mean over {'seeds' if seeds else 'runs'} of each combination", title_justify="left")
    for k in keys:
        t.add_column(escape(k))
    t.add_column("ok/runs", justify="right")
    for label, _, _ in METRICS:
        t.add_column(label, justify="right")
    for key, rs in list(groups.items())[:SUMMARY_ROWS]:
        ok = [r for r in rs if r["status"] == "ok"]
        cells = []
        for _, col, fmt in METRICS:
            vals = [r.get(col) for r in ok if r.get(col) is not None]
            cells.append(fmt.format(sum(vals) / len(vals)) if vals else "-")
        t.add_row(*(escape(k) for k in key), f"{len(ok)}/{len(rs)}", *cells)
    console.print(t)
    if len(groups) > SUMMARY_ROWS:
        console.print(f"… {len(groups) - SUMMARY_ROWS} more combinations", highlight=False)
    errors = [r for r in rows if r["status"] != "ok"]
    for r in errors[:5]:
        where = ", ".join(f"{k}={_fmt(r.get(k))}" for k in sw.axes)
        console.print(f"error {r['id']} ({escape(where)}): {escape(r.get('error') or '')}", highlight=False)
    if len(errors) > 5:
        console.print(f"… {len(errors) - 5} more error rows", highlight=False)
    ok = sum(r["status"] == "ok" for r in rows)
    console.print(f"{len(rows)} runs in {store.root} ({ok} ok, {len(rows) - ok} errors); "
                  f"read them with ssdlab.load({str(store.root)!r})", highlight=False, markup=False)
