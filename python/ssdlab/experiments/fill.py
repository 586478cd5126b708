"""``ssdlab experiment fill``: the curve every drive review shows — one sustained sequential write
of the whole empty drive, write throughput against data written. On a hybrid SLC/QLC device
(``cache.slc``) the SLC cache makes a plateau and a cliff where it runs out; ``dwa`` shrinks its
region as the drive fills. The run is the core's (``experiments::fill``); this module formats it.
JSON keys: ``points`` (a list of ``{written_gb, mb_s}``), ``cache_gb``, ``capacity_gb``,
``mean_mb_s``, ``waf``, ``hybrid``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from rich.table import Table

from ssdlab.inputs import device_text
from ssdlab import _core
from ssdlab.cli_common import console, fail
from ssdlab.errors import SsdlabError, core_json
from ssdlab.experiments import experiment_app
from ssdlab.experiments import output
from ssdlab.experiments.output import finish, report_option


def run(device: str, overrides: list[str], slc: Optional[str] = None, request_kib: int = 128, queue_depth: int = 32,
        points: int = 100, seed: int = 0, progress: Optional[Callable[[int, int], None]] = None) -> dict[str, Any]:
    """The curve, by the core. ``slc`` sets ``cache.slc`` (an SLC-cache policy name)."""
    text = device_text(device)
    sets = list(overrides) + (["ftl.kind=hybrid", f"cache.slc={slc}"] if slc else [])
    setup = {"device": text, "origin": device, "overrides": sets, "request_kib": request_kib,
             "queue_depth": queue_depth, "points": points, "seed": seed}
    return json.loads(_core.fill_experiment_json(core_json(setup, "experiment fill"), progress=progress))


def report_tables(r: dict[str, Any]) -> list[Table]:
    return [summary(r), curve(r)]


def summary(r: dict[str, Any]) -> Table:
    t = Table(title=f"{r['device']} · SLC policy {r['slc_policy']} · {r['request_kib']} KiB sequential, QD {r['queue_depth']}",
              show_header=False, title_justify="left")
    t.add_column("metric", style="bold")
    t.add_column("value", justify="right")
    pts = r["points"]
    first = pts[0]["mb_s"] if pts else 0.0
    cliff = next((p for p in pts if p["mb_s"] < first / 2), None)
    rows = [("capacity", f"{r['capacity_gb']:.2f} GB"), ("SLC cache at the start", f"{r['cache_gb']:.3f} GB"),
            ("first point", f"{first:,.1f} MB/s"), ("last point", f"{pts[-1]['mb_s']:,.1f} MB/s" if pts else "-"),
            ("cliff (first point below half the first)", f"{cliff['written_gb']:.3f} GB" if cliff else "none"),
            ("mean over the fill", f"{r['mean_mb_s']:,.1f} MB/s"), ("WAF", f"{r['waf']:.3f}")]
    for k, v in rows:
        t.add_row(k, v)
    return t


def curve(r: dict[str, Any], rows: int = 20) -> Table:
    t = Table(title="throughput against data written", title_justify="left")
    t.add_column("written (GB)", justify="right")
    t.add_column("MB/s", justify="right")
    pts = r["points"]
    step = max(1, len(pts) // rows)
    for p in pts[::step]:
        t.add_row(f"{p['written_gb']:.3f}", f"{p['mb_s']:,.1f}")
    return t


@experiment_app.command("fill")
def experiment_fill(
    device: str = typer.Option("yoo-qlc", "--device", "-d", help="Preset name or TOML file."),
    slc: Optional[str] = typer.Option(None, "--slc", help="SLC-cache policy (sets cache.slc; see `ssdlab policies`)."),
    request_kib: int = typer.Option(128, "--request-kib", help="Request size (reviews: 128 KiB)."),
    queue_depth: int = typer.Option(32, "--queue-depth", help="Requests in flight (default 32, as drive reviews run)."),
    points: int = typer.Option(100, "--points", help="Points on the curve."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    set_: List[str] = typer.Option([], "--set", help="Override a config field (repeatable)."),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the curve as JSON."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """The drive-review write curve: throughput against data written over one full sequential fill."""
    try:
        r = run(device, set_, slc=slc, request_kib=request_kib, queue_depth=queue_depth, points=points, seed=seed,
                progress=output.progress())
    except SsdlabError as e:  # bad input: one line, no traceback
        fail(str(e))
    printed = report_tables(r)
    for t in printed:
        console.print(t)
    finish("fill", r, json_path, report_path, printed)
