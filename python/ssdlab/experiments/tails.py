"""The tail levers side by side (issue 60): blocking GC, LazyRTGC, RL-GC, program/erase
suspension, read-first and preemptible-GC scheduling and Tiny-Tail Flash, each one device
setting on the same device and workload (the rows and their settings are the core's,
``ssdlab_core::experiments::tails``): read p99/p99.9/p99.99, write p99.9, throughput, erases
and WAF, and a read-latency CCDF in the report."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from rich.console import Console
from rich.table import Table

from ssdlab import _core, registry
from ssdlab.cli_common import fail, jobs_option
from ssdlab.errors import SsdlabError, WorkloadError, core_json
from ssdlab.experiments import experiment_app, output
from ssdlab.experiments.output import finish, report_option
from ssdlab.experiments.ttflash import TRACE_SPEC, WORKLOADS, named_workload
from ssdlab.inputs import device_text
from ssdlab.simulate import build_options
from ssdlab.workload import trace

#: The rows, in the table's order, each with the device settings that make it (from the core).
ROWS = {r["name"]: list(r["settings"]) for r in registry.defaults()["tails_rows"]}


def run(
    device: str,
    workload: dict[str, Any],
    *,
    overrides: Optional[List[str]] = None,
    seed: int = 1,
    time_scale: float = 1.0,
    precondition_passes: float = 1.0,
    rows: Optional[List[str]] = None,
    jobs: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> dict[str, Any]:
    """Run the rows (default: all) on ``workload``, open loop after a sequential fill and
    ``precondition_passes`` random overwrites (negative: none), inter-arrival times multiplied
    by ``time_scale``; the parsed JSON."""
    pre = ({"sequential": True, "random_passes": precondition_passes, "fill_fraction": 1.0}
           if precondition_passes >= 0 else False)
    opts = build_options(workload, seed=seed, replay="open", time_scale=time_scale, precondition=pre)
    out = _core.tails_experiment_json(device_text(device), device, list(overrides or []),
                                      core_json(workload, "workload", WorkloadError), core_json(opts, "options"),
                                      list(rows or []), jobs, progress=progress)
    res = json.loads(out)
    res["workload"] = workload
    res["overrides"] = list(overrides or [])
    res["time_scale"] = time_scale
    res["precondition"] = pre
    return res


def report_tables(res: dict[str, Any]) -> list[Table]:
    """One row per lever: read and write tails (µs), throughput, erases, WAF, and what the
    flash layer did (suspensions, passes)."""
    t = Table(title=f"tail levers on {res.get('device')} (latency µs)")
    for c in ["row", "read p99", "read p99.9", "read p99.99", "write p99.9", "IOPS", "erases", "WAF", "flash layer"]:
        t.add_column(c, justify="right")
    for r in res["rows"]:
        c = res["configs"][r]
        lat = c["latency_us"]
        t.add_row(r, *(f"{lat['read'][k]:,.0f}" for k in ("p99", "p99_9", "p99_99")), f"{lat['write']['p99_9']:,.0f}",
                  f"{c['throughput_iops']:,.0f}", f"{c['erases']:,}", f"{c['waf']:.3f}", _flash(c.get("flash")))
    return [t]


def _flash(f: Optional[dict[str, Any]]) -> str:
    """Suspensions or passes, in a few words ("" with neither)."""
    if not f:
        return ""
    s, q = f.get("suspension"), f.get("scheduling")
    if s:
        return f"{s['erase_suspensions'] + s['program_suspensions']:,} suspensions"
    return f"{q['reads_passing'] + q['writes_passing']:,} passes" if q else ""


@experiment_app.command("tails")
def tails_cmd(
    trace_path: Optional[Path] = typer.Option(None, "--trace", "-t", help="Trace file to replay."),
    workload: Optional[str] = typer.Option(None, "--workload", "-w", help=f"Named synthetic workload: {', '.join(WORKLOADS)} (default mixed70 without --trace)."),
    device: str = typer.Option("ttflash-small", "--device", "-d", help="Preset or TOML file."),
    set_: List[str] = typer.Option([], "--set", help="Override a config field for every row (repeatable)."),
    trace_format: str = typer.Option("auto", "--format", help=f"Trace format: {', '.join(registry.names('trace format'))}."),
    lba_map: str = typer.Option("modulo", "--lba-map", help="none, dense or modulo (default modulo: a trace's addresses folded onto the device)."),
    max_requests: Optional[int] = typer.Option(None, "--max-requests", help="Use only the first N requests."),
    repeat: int = typer.Option(TRACE_SPEC["repeat"], "--repeat", help=f"Replay the trace this many times back to back (default {TRACE_SPEC['repeat']})."),
    repeat_shift: bool = typer.Option(TRACE_SPEC["repeat_shift"], "--repeat-shift", help="With --repeat: each pass at fresh addresses."),
    time_scale: float = typer.Option(1.0, "--time-scale", help="Multiply inter-arrival times (default 1; 2 = half the rate: a trace that overloads a small device)."),
    precondition_passes: float = typer.Option(1.0, "--precondition-passes", help="Random overwrite passes after a sequential fill (default 1; negative: none)."),
    rows: List[str] = typer.Option([], "--row", help=f"Run only these rows (repeatable): {', '.join(ROWS)}."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    jobs: int = jobs_option("Rows"),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the comparison as JSON."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """The tail levers side by side: GC schedulers, suspension, read-first and preemptible GC, Tiny-Tail Flash."""
    console = Console(width=160)
    if trace_path is not None and workload is not None:
        fail("give at most one of --trace or --workload")
    for r in rows:
        if r not in ROWS:
            fail(f"--row {r}: expected one of {', '.join(ROWS)}")
    if trace_path is not None:
        wl = trace(trace_path, format=trace_format, lba_map=lba_map, max_requests=max_requests, repeat=repeat,
                   repeat_shift=repeat_shift)
    else:
        name = workload or "mixed70"
        if name not in WORKLOADS:
            fail(f"--workload {name}: expected one of {', '.join(WORKLOADS)}")
        wl = named_workload(name, max_requests)
    try:
        res = run(device, wl, overrides=set_, seed=seed, time_scale=time_scale, precondition_passes=precondition_passes, rows=rows or None,
                  jobs=jobs, progress=output.progress())
    except SsdlabError as e:  # bad input: one line, no traceback
        fail(str(e))
    for t in report_tables(res):
        console.print(t)
    finish("tails", res, json_path, report_path, report_tables(res))
