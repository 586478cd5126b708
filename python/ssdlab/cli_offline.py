"""``ssdlab offline``: run one offline-cleaning method (Shafaei & Desnoyers) on a trace, a
synthetic workload or a Table I toy, and the option parsing shared with ``ssdlab experiment
offline``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.table import Table

from ssdlab import offline
from ssdlab.cli_common import console, fail, write_json
from ssdlab.workload import WorkloadSpec, synthetic

SYNTHETIC = ("uniform", "hotcold", "zipf", "sequential")
WORKLOAD_HELP = ("toy-uniform|toy-normal|toy-exponential|toy-gamma (Table I: 8 blocks x 4 pages, 46 writes), "
                 "or a synthetic pattern: " + "|".join(SYNTHETIC) + " (with --requests, --logical-pages).")


def workload_of(trace_path: Optional[Path], workload: Optional[str], *, trace_format: str = "auto",
                lba_map: str = "dense", max_requests: Optional[int] = None, requests: int = 100_000,
                seed: Optional[int] = None) -> WorkloadSpec:
    """The workload of --trace or --workload (exactly one)."""
    if (trace_path is None) == (workload is None):
        fail("give exactly one of --trace PATH or --workload NAME")
    if trace_path is not None:
        from ssdlab.inputs import spooled

        return offline.trace(spooled(trace_path, "--trace/-t"), format=trace_format, lba_map=lba_map, max_requests=max_requests)
    assert workload is not None
    if workload.startswith("toy-") and workload[4:] in offline.TOY_DISTRIBUTIONS:
        return offline.toy(workload[4:], seed=seed)
    if workload in SYNTHETIC:
        return synthetic(workload, requests)
    fail(f"unknown workload '{workload}'; expected one of: "
         + ", ".join([f"toy-{d}" for d in offline.TOY_DISTRIBUTIONS] + list(SYNTHETIC)))
    raise AssertionError


def parse_params(items: List[str]) -> dict[str, Any]:
    """``key=value`` pairs; values are JSON when they parse (numbers, true, null), else strings."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            fail(f"--param {item!r}: expected KEY=VALUE")
        try:
            out[key.replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            out[key.replace("-", "_")] = value
    return out


def problem_line(p: offline.OfflineProblem) -> str:
    pre = " + prefill" if p.prefill else ""
    return (f"{p.source}: {p.page_writes:,} page writes{pre}, footprint {p.footprint:,} pages; device "
            f"{p.blocks:,} blocks x {p.pages_per_block} pages, {p.logical_pages:,} logical pages, spare {p.spare:.1%}")


#: The methods each search parameter applies to (Algorithms 2-3 of the paper sample with psi;
#: only MCTS plays out).
PSI_METHODS, PLAYOUT_METHODS = ("pruned", "mcts"), ("mcts",)


def offline_cmd(
    ctx: typer.Context,
    method: str = typer.Option(..., "--method", "-m", help="greedy, fifo, cost-benefit, d-choices, exhaustive, pruned, mcts."),
    trace_path: Optional[Path] = typer.Option(None, "--trace", "-t", help="Trace file (any format ssdlab reads)."),
    workload: Optional[str] = typer.Option(None, "--workload", "-w", help=WORKLOAD_HELP),
    blocks: Optional[int] = typer.Option(None, "--blocks", help="T; default: scaled to the write footprint with --spare."),
    pages_per_block: int = typer.Option(128, "--pages-per-block", help="N_p (toy workloads: always 4)."),
    spare: float = typer.Option(0.07, "--spare", help="Spare factor used to scale --blocks."),
    playouts: Optional[int] = typer.Option(None, "--playouts", help="mcts: playouts (default 16384, where the paper plateaus; experiment offline defaults to 1024 to run every method quickly)."),
    psi: Optional[int] = typer.Option(None, "--psi", help="pruned/mcts: sampling parameter psi of Algorithms 2-3 (default N_p/4)."),
    param: List[str] = typer.Option([], "--param", help="Other method parameter KEY=VALUE (repeatable), e.g. d=4, workers=2."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    trace_format: str = typer.Option("auto", "--format", help="Trace format (auto-detected by default)."),
    lba_map: str = typer.Option("dense", "--lba-map", help="dense (default: the offline problem is the trace's footprint, compacted), none or modulo."),
    max_requests: Optional[int] = typer.Option(None, "--max-requests", help="Use only the trace's first N requests."),
    requests: int = typer.Option(100_000, "--requests", "-n", help="Synthetic workloads: requests (default 100,000: offline search is costlier than simulation)."),
    logical_pages: Optional[int] = typer.Option(None, "--logical-pages", help="Synthetic: logical space in pages (default 65536)."),
    no_prefill: bool = typer.Option(False, "--no-prefill", help="Do not prepend a sequential write of every logical page."),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the problem and report (with schedule) as JSON."),
) -> None:
    """Run one offline-cleaning method and print its internal writes, WAF and gain over Greedy."""
    from ssdlab.cli_applies import refuse

    if trace_path is not None:
        refuse(ctx, ("requests", "logical_pages"), "applies to synthetic workloads, not to --trace "
               "(--max-requests limits a trace)")
    else:
        refuse(ctx, ("trace_format", "lba_map", "max_requests"), "applies to --trace only")
    refuse(ctx, ("psi",) if method not in PSI_METHODS else (), f"applies to --method {' or '.join(PSI_METHODS)}, not {method}")
    refuse(ctx, ("playouts",) if method not in PLAYOUT_METHODS else (), f"applies to --method mcts, not {method}")
    wl = workload_of(trace_path, workload, trace_format=trace_format, lba_map=lba_map, max_requests=max_requests,
                     requests=requests)
    params = parse_params(param)
    if playouts is not None:
        params["playouts"] = playouts
    if psi is not None:
        params["psi"] = psi
    if wl["kind"] == "synthetic" and logical_pages is None:
        logical_pages = 65536
    run = offline.run_offline(wl, offline.method(method, **params), blocks=blocks, pages_per_block=pages_per_block,
                              spare=spare, logical_pages=logical_pages, prefill=not no_prefill, seed=seed)
    rep = next(iter(run.reports.values()))
    console.print(problem_line(run.problem), highlight=False)
    t = Table(title=f"offline: {rep.method}", show_header=False, title_justify="left")
    t.add_column("k", style="bold")
    t.add_column("v", justify="right")
    for k, v in (("internal writes", f"{rep.internal_writes:,}"), ("WAF", f"{rep.waf:.4f}"),
                 ("cleanings", f"{rep.cleanings:,}"), ("greedy internal writes", f"{rep.greedy_internal_writes:,}"),
                 ("improvement vs greedy", f"{rep.improvement_pct:+.3f}%"),
                 ("better-than-greedy schedules", f"{rep.better_than_greedy:,}"),
                 ("schedules explored", f"{rep.schedules_explored:,}"),
                 ("traverses (unbounded tree)", ("~" if rep.traverses_estimated else "") + f"{rep.traverses:,}"),
                 ("complete", str(rep.complete)),
                 ("revalidated", str(rep.revalidated))):
        t.add_row(k, v)
    console.print(t)
    write_json(json_path, {"problem": run.problem.__dict__, "seed": seed, "methods": {rep.method: rep.to_dict()}})


def register(app: typer.Typer) -> None:
    """Add ``ssdlab offline`` to the top-level app."""
    app.command("offline")(offline_cmd)
