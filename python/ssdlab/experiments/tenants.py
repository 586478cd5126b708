"""Tenants (issue 61): a latency-sensitive reader beside a GC-inducing writer on one device, under
each host arbitration and flash scheduler (the rows and their settings are the core's,
``ssdlab_core::experiments::tenants``). Each row runs the flows together and each flow alone:
per-flow p99.9 and slowdown (mean latency together over alone), the fairness index (min/max
slowdown, as FLIN defines it, Tavakkol et al., ISCA 2018) and the total throughput."""
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
from ssdlab.workload import flows_file

#: The rows, in the table's order, each with the device settings that make it (from the core).
ROWS = {r["name"]: list(r["settings"]) for r in registry.defaults()["tenants_rows"]}
#: The command slots the experiment's device has unless ``--set host.command_slots=…``.
SLOTS = registry.defaults()["tenants_slots"]


def run(
    device: str,
    flows: Optional[dict[str, Any]] = None,
    *,
    requests: int = 40_000,
    overrides: Optional[List[str]] = None,
    seed: int = 1,
    precondition_passes: float = 1.0,
    rows: Optional[List[str]] = None,
    jobs: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> dict[str, Any]:
    """Run the rows (default: all) with ``flows`` (a flows spec; default: the core's reader with
    ``requests`` requests and writer with twice as many), after a sequential fill and
    ``precondition_passes`` random overwrites (negative: none); the parsed JSON."""
    pre = ({"sequential": True, "random_passes": precondition_passes, "fill_fraction": 1.0}
           if precondition_passes >= 0 else False)
    probe = flows or {"kind": "synthetic", "requests": 1}
    opts = build_options(probe, seed=seed, replay="closed", precondition=pre)
    out = _core.tenants_experiment_json(device_text(device), device, list(overrides or []),
                                        None if flows is None else core_json(flows, "workload", WorkloadError),
                                        requests, core_json(opts, "options"), list(rows or []), jobs, progress=progress)
    res = json.loads(out)
    res["overrides"] = list(overrides or [])
    res["precondition"] = pre
    return res


def report_tables(res: dict[str, Any]) -> list[Table]:
    """One row per setting: each flow's p99.9 (µs) and slowdown, the fairness index and the
    total throughput."""
    names = res["flows"]
    t = Table(title=f"tenants on {res.get('device')} (latency µs from submission)")
    t.add_column("row", justify="left")
    for n in names:
        t.add_column(f"{n} p99.9", justify="right")
        t.add_column(f"{n} slowdown", justify="right")
    for c in ("fairness", "IOPS", "WAF"):
        t.add_column(c, justify="right")
    for r in res["rows"]:
        c = res["configs"][r]
        cells = [r]
        for i, _ in enumerate(names):
            f = c["together"]["flows"][i]
            cells += [f"{f['latency_us']['all']['p99_9']:,.0f}", f"{c['slowdown'][i]:.2f}"]
        cells += [f"{c['fairness']:.3f}", f"{c['throughput_iops']:,.0f}", f"{c['together']['waf']:.3f}"]
        t.add_row(*cells)
    return [t]


@experiment_app.command("tenants")
def tenants_cmd(
    device: str = typer.Option("mqsim-small", "--device", "-d", help="Preset or TOML file."),
    flows_path: Optional[Path] = typer.Option(None, "--flows", help="The flows, from a flows file (default: a zipf reader at QD 4, high priority, beside a uniform 4-page writer at QD 32, low priority, each on half the space)."),
    requests: int = typer.Option(40_000, "--requests", "-n", min=1, help="The default reader's requests (the writer has twice as many)."),
    set_: List[str] = typer.Option([], "--set", help=f"Override a config field for every row (repeatable); host.command_slots is {SLOTS} unless set here."),
    precondition_passes: float = typer.Option(1.0, "--precondition-passes", help="Random overwrite passes after a sequential fill (default 1; negative: none)."),
    rows: List[str] = typer.Option([], "--row", help=f"Run only these rows (repeatable): {', '.join(ROWS)}."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    jobs: int = jobs_option("Runs"),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the comparison as JSON."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """Tenants: a reader beside a GC-inducing writer under each arbitration and flash scheduler: slowdowns and fairness."""
    console = Console(width=160)
    for r in rows:
        if r not in ROWS:
            fail(f"--row {r}: expected one of {', '.join(ROWS)}")
    try:
        spec = None if flows_path is None else flows_file(spooled(flows_path, "--flows"))
        res = run(device, spec, requests=requests, overrides=set_, seed=seed, precondition_passes=precondition_passes,
                  rows=rows or None, jobs=jobs, progress=output.progress())
    except SsdlabError as e:  # bad input: one line, no traceback
        fail(str(e))
    for t in report_tables(res):
        console.print(t)
    finish("tenants", res, json_path, report_path, report_tables(res))
