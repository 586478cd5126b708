"""Host-visible placement (issue 62): conventional, ssdlab's hot/cold placement, FDP and ZNS with
the host's zone cleaner, on the same flash and over-provisioning (the rows and their settings are
the core's, ``ssdlab_core::experiments::placement``): WAF end to end, the device's and the host's
(the zone cleaner's copies), erases, read and write tails and throughput. The default workload is
the core's tenants that differ in hotness, each through its own FDP handle; a trace or a flows file
may replace it (a trace carries no placement identifiers unless its CSV has the fifth column)."""
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
from ssdlab.inputs import device_text, spooled
from ssdlab.simulate import build_options
from ssdlab.workload import flows_file, trace

#: The rows, in the table's order, each with the device settings that make it (from the core).
ROWS = {r["name"]: list(r["settings"]) for r in registry.defaults()["placement_rows"]}


def run(
    device: str,
    workload: Optional[dict[str, Any]] = None,
    *,
    requests: int = 20_000,
    overrides: Optional[List[str]] = None,
    seed: int = 1,
    precondition_passes: float = 1.0,
    time_scale: float = 1.0,
    rows: Optional[List[str]] = None,
    jobs: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> dict[str, Any]:
    """Run the rows (default: all) on ``workload`` (a flows spec or any workload; default: the
    core's tenants with ``requests`` requests for the warm and log tenants and three times as
    many for the hot one), after a sequential fill and ``precondition_passes`` random overwrites
    (negative: none); the parsed JSON. Flows run closed loop, as their specs say; a trace open
    loop, its inter-arrival times multiplied by ``time_scale``."""
    pre = ({"sequential": True, "random_passes": precondition_passes, "fill_fraction": 1.0}
           if precondition_passes >= 0 else False)
    probe = workload or {"kind": "synthetic", "requests": 1}
    replay = "closed" if workload is None or workload.get("kind") == "flows" else "open"
    opts = build_options(probe, seed=seed, replay=replay, precondition=pre,
                         **({"time_scale": time_scale} if replay == "open" else {}))
    out = _core.placement_experiment_json(device_text(device), device, list(overrides or []),
                                          None if workload is None else core_json(workload, "workload", WorkloadError),
                                          requests, core_json(opts, "options"), list(rows or []), jobs,
                                          progress=progress)
    res = json.loads(out)
    res["workload"] = workload or "tenants"
    res["overrides"] = list(overrides or [])
    res["precondition"] = pre
    res["time_scale"] = time_scale
    return res


def report_tables(res: dict[str, Any]) -> list[Table]:
    """One row per device: WAF end to end, the device's and the host's, erases, read and write
    tails (µs), throughput."""
    t = Table(title=f"placement on {res.get('device')} (latency µs)")
    for c in ["row", "WAF", "device WAF", "host WAF", "erases", "read p99", "read p99.9", "write p99", "write p99.9",
              "IOPS"]:
        t.add_column(c, justify="right")
    for r in res["rows"]:
        c = res["configs"][r]
        lat = c["latency_us"]
        t.add_row(r, f"{c['waf']:.3f}", f"{c['device_waf']:.3f}", f"{c['host_waf']:.3f}", f"{c['erases']:,}",
                  *(f"{lat[op][k]:,.0f}" for op, k in (("read", "p99"), ("read", "p99_9"), ("write", "p99"),
                                                         ("write", "p99_9"))),
                  f"{c['throughput_iops']:,.0f}")
    return [t]


@experiment_app.command("placement")
def placement_cmd(
    device: str = typer.Option("mqsim-small", "--device", "-d", help="Preset or TOML file."),
    flows_path: Optional[Path] = typer.Option(None, "--flows", help="The tenants, from a flows file (default: hot, warm and log tenants, each through its own FDP handle)."),
    trace_path: Optional[Path] = typer.Option(None, "--trace", "-t", help="Replay a trace instead of tenants (open loop)."),
    trace_format: str = typer.Option("auto", "--format", help=f"Trace format: {', '.join(registry.names('trace format'))}."),
    lba_map: str = typer.Option("modulo", "--lba-map", help="none, dense or modulo (default modulo: a trace's addresses folded onto the device)."),
    max_requests: Optional[int] = typer.Option(None, "--max-requests", help="Use only the trace's first N requests."),
    requests: int = typer.Option(20_000, "--requests", "-n", min=1, help="The default warm and log tenants' requests (the hot tenant has three times as many)."),
    set_: List[str] = typer.Option([], "--set", help="Override a config field for every row (repeatable)."),
    precondition_passes: float = typer.Option(1.0, "--precondition-passes", help="Random overwrite passes after a sequential fill (default 1; negative: none)."),
    time_scale: float = typer.Option(1.0, "--time-scale", help="With --trace: multiply inter-arrival times (default 1; 2 = half the rate: a trace that overloads a small device)."),
    rows: List[str] = typer.Option([], "--row", help=f"Run only these rows (repeatable): {', '.join(ROWS)}."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    jobs: int = jobs_option("Rows"),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the comparison as JSON."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """Host-visible placement: conventional, hot/cold, FDP and ZNS with the host cleaner, WAF and tails."""
    console = Console(width=160)
    if flows_path is not None and trace_path is not None:
        fail("give at most one of --flows or --trace")
    for r in rows:
        if r not in ROWS:
            fail(f"--row {r}: expected one of {', '.join(ROWS)}")
    try:
        if flows_path is not None:
            wl: Optional[dict[str, Any]] = flows_file(spooled(flows_path, "--flows"))
        elif trace_path is not None:
            wl = trace(trace_path, format=trace_format, lba_map=lba_map, max_requests=max_requests)
        else:
            wl = None
        res = run(device, wl, requests=requests, overrides=set_, seed=seed, precondition_passes=precondition_passes,
                  time_scale=time_scale, rows=rows or None, jobs=jobs, progress=output.progress())
    except SsdlabError as e:  # bad input: one line, no traceback
        fail(str(e))
    for t in report_tables(res):
        console.print(t)
    finish("placement", res, json_path, report_path, report_tables(res))
