"""``ssdlab experiment slc``: Yoo and Shin, "Reinforcement Learning-Based SLC Cache Technique for
Enhancing SSD Write Performance" (HotStorage 2020), slides 13–17: the SLC-cache policies
(``none``, ``static``, ``dwa``, ``ust``, ``rl``) on a hybrid SLC/QLC device at several space
utilisations — write throughput and WAF normalised to ``none``, write latency, the write-time
breakdown (SLC program, QLC program, waiting for migration, waiting for QLC GC), the SLC size and
θ over time, and (``--sensitivity``, ``--pretrain``) ``rl``'s dependence on its open values and on
a Q-table trained on another workload. ``--tune-ust`` re-derives ``ust``'s table offline.

The runs are the core's (``experiments::slc``); this module formats them. JSON keys:
``utilisations.<u>.policies.<name>.{write_mb_s, waf, latency_us.write.{p50,p99,p99_99},
breakdown_us.{slc,qlc,migration,gc}, normalised, hybrid, series}``, ``sensitivity``,
``pretraining``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from rich.table import Table

from ssdlab.inputs import device_text
from ssdlab import _core
from ssdlab.cli_common import console, fail, jobs_option
from ssdlab.errors import SsdlabError, core_json
from ssdlab.experiments import experiment_app
from ssdlab.experiments import output
from ssdlab.experiments.output import finish, report_option
from ssdlab.workload import trace as trace_spec

#: The seeded stand-ins for the paper's two traces (the core's ``StandIn``).
STAND_INS = ("pc", "ycsb-a")


def setup(device: str, overrides: list[str], *, workload: Optional[str] = None, trace: Optional[str] = None,
          data_gb: float = 12.0, utilisations: Optional[list[float]] = None, policies: Optional[list[str]] = None,
          queue_depth: int = 8, seed: int = 0, sensitivity: bool = False, pretrain: bool = False,
          jobs: Optional[int] = None) -> dict[str, Any]:
    """The core's ``SlcSetup`` as a dict (``None`` fields take the core's defaults; ``jobs``: runs
    at once on threads, no result depends on it)."""
    text = device_text(device)
    s: dict[str, Any] = {"device": text, "origin": device, "overrides": list(overrides), "data_gb": data_gb,
                         "queue_depth": queue_depth, "seed": seed, "sensitivity": sensitivity, "pretrain": pretrain}
    if jobs is not None:
        s["jobs"] = jobs
    if workload is not None:
        s["stand_in"] = workload
    if trace is not None:
        s["workload"] = trace_spec(trace)
    if utilisations:
        s["utilisations"] = list(utilisations)
    if policies:
        s["policies"] = list(policies)
    return s


def run(device: str, overrides: list[str], progress: Optional[Callable[[int, int], None]] = None,
        **kw: Any) -> dict[str, Any]:
    """The comparison, by the core (see :func:`setup` for the keywords)."""
    return json.loads(_core.slc_experiment_json(core_json(setup(device, overrides, **kw), "experiment slc"),
                                                progress=progress))


def tune_ust(device: str, overrides: list[str], progress: Optional[Callable[[int, int], None]] = None,
             **kw: Any) -> dict[str, Any]:
    """``ust``'s table tuned offline on both stand-ins: ``table`` and every ``candidates`` run."""
    kw.setdefault("workload", "pc")
    return json.loads(_core.tune_ust_json(core_json(setup(device, overrides, **kw), "experiment slc"),
                                          progress=progress))


def report_tables(r: dict[str, Any]) -> list[Table]:
    return tables(r) if "utilisations" in r else []


def tables(r: dict[str, Any]) -> list[Table]:
    out = []
    for u, runs in r["utilisations"].items():
        t = Table(title=f"{r['device']} · {r['workload']} · utilisation {float(u):.0%}", title_justify="left")
        for c in ("policy", "write MB/s", "x none", "WAF", "x none", "p50 µs", "p99 µs", "p99.99 µs",
                  "SLC µs/pg", "QLC µs/pg", "migration µs/pg", "GC µs/pg"):
            t.add_column(c, justify="left" if c == "policy" else "right")
        for name, p in runs["policies"].items():
            n = p.get("normalised") or {}
            w = p["latency_us"]["write"]
            b = p["breakdown_us"]
            t.add_row(name, f"{p['write_mb_s']:.2f}", f"{n.get('write_mb_s', float('nan')):.2f}", f"{p['waf']:.3f}",
                      f"{n.get('waf', float('nan')):.2f}", f"{w['p50']:,.0f}", f"{w['p99']:,.0f}", f"{w['p99_99']:,.0f}",
                      f"{b['slc']:,.1f}", f"{b['qlc']:,.1f}", f"{b['migration']:,.1f}", f"{b['gc']:,.1f}")
        out.append(t)
    if r.get("sensitivity"):
        t = Table(title="rl sensitivity (values the paper leaves open)", title_justify="left")
        for c in ("variant", "utilisation", "write MB/s", "WAF"):
            t.add_column(c, justify="left" if c == "variant" else "right")
        for s in r["sensitivity"]:
            t.add_row(s["label"], f"{s['utilisation']:.0%}", f"{s['write_mb_s']:.2f}", f"{s['waf']:.3f}")
        out.append(t)
    if r.get("pretraining"):
        p = r["pretraining"]
        t = Table(title=f"rl pre-trained on the {p['trained_on']} stand-in (utilisation {p['utilisation']:.0%})",
                  title_justify="left", show_header=False)
        t.add_column("metric", style="bold")
        t.add_column("value", justify="right")
        t.add_row("untrained", f"{p['untrained_mb_s']:.2f} MB/s")
        t.add_row("pre-trained", f"{p['pretrained_mb_s']:.2f} MB/s")
        t.add_row("gain", f"{p['gain']:+.1%}")
        out.append(t)
    return out


@experiment_app.command("slc")
def experiment_slc(
    device: str = typer.Option("yoo-qlc", "--device", "-d", help="Preset name or TOML file (a hybrid SLC/QLC device)."),
    workload: Optional[str] = typer.Option(None, "--workload", "-w",
                                           help=f"A synthetic stand-in for the paper's traces: {', '.join(STAND_INS)} (default pc)."),
    trace: Optional[Path] = typer.Option(None, "--trace", help="A trace file instead (folded into the footprint)."),
    data_gb: float = typer.Option(12.0, "--data-gb", help="Data a stand-in run writes, GB."),
    utilisation: List[float] = typer.Option([], "--utilisation", "-u",
                                            help="Space utilisations (repeatable; default 0.3 0.5 0.7 0.9)."),
    policy: List[str] = typer.Option([], "--policy", "-p", help="Policies (repeatable; default all but external)."),
    queue_depth: int = typer.Option(8, "--queue-depth", help="Requests in flight, closed loop (default 8: a client's queue, as in docs/slc.md's tables)."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result; the tables in docs/slc.md are --seed 0)."),
    sensitivity: bool = typer.Option(False, "--sensitivity", help="Also run rl under other open values."),
    pretrain: bool = typer.Option(False, "--pretrain", help="Also run rl from a table trained on the other stand-in."),
    tune: bool = typer.Option(False, "--tune-ust", help="Tune ust's table offline on both stand-ins instead."),
    set_: List[str] = typer.Option([], "--set", help="Override a config field (repeatable)."),
    jobs: int = jobs_option(),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the results as JSON."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """SLC-cache policies by space utilisation: throughput, WAF, latency breakdown (Yoo & Shin 2020)."""
    if workload is not None and workload not in STAND_INS:
        fail(f"--workload: expected one of {', '.join(STAND_INS)}, got '{workload}'")
    if workload is not None and trace is not None:
        fail("--workload, --trace: expected one of them, not both")
    if trace is not None and not trace.is_file():
        fail(f"--trace {trace}: no such file")
    kw: dict[str, Any] = dict(data_gb=data_gb, utilisations=utilisation or None, queue_depth=queue_depth, seed=seed, jobs=jobs)
    try:
        if tune:
            r = tune_ust(device, set_, progress=output.progress(), **kw)
            t = Table(title="ust table tuned on the pc and ycsb-a stand-ins", title_justify="left")
            for c in ("up to", "SLC fraction of free space", "θ KiB"):
                t.add_column(c, justify="right")
            for row in r["table"]:
                t.add_row(f"{row['up_to']:.2f}", f"{row['slc_fraction']:.4f}", str(row["theta_kib"]))
            console.print(t)
            finish("slc-tune", r, json_path, report_path, [t])
            return
        r = run(device, set_, progress=output.progress(), workload=None if trace else (workload or "pc"), trace=str(trace) if trace else None,
                policies=policy or None, sensitivity=sensitivity, pretrain=pretrain, **kw)
    except SsdlabError as e:  # bad input: one line, no traceback
        fail(str(e))
    printed = tables(r)
    for t in printed:
        console.print(t)
    finish("slc", r, json_path, report_path, printed)
