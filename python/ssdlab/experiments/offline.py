"""``ssdlab experiment offline``: the comparisons of Shafaei & Desnoyers, "Near-Optimal Offline
Cleaning for Flash-Based SSDs" — online Greedy, FIFO/LRW, Cost/Benefit and d-Choices against the
MCTS near-optimal schedule (§IV-C, Table III, Fig. 8) on one trace, with exhaustive and pruned
DFS added on toy-sized problems, and beside them the multi-frontier placements of the core FTL
with greedy cleaning (§IV-F, Fig. 9); ``--toy`` reproduces Table I (§IV-A).
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ssdlab import offline, registry
from ssdlab.cli_common import console, err_console
from ssdlab.cli_offline import WORKLOAD_HELP, problem_line, workload_of
from ssdlab.errors import SsdlabError
from ssdlab.experiments import experiment_app
from ssdlab.experiments.output import finish, report_option

ONLINE = ("greedy", "fifo", "cost-benefit", "d-choices")
#: The seed's Table I, internal writes (exhaustive, pruned, greedy) — its traces are not published,
#: so ours are fresh draws from the same distributions; compare orders, not values.
SEED_TABLE_I = {"uniform": (6, 7, 10), "normal": (2, 2, 3), "exponential": (6, 7, 10), "gamma": (15, 15, 23)}


def table_one(seed: int, json_path: Optional[Path], report_path: Optional[Path] = None) -> None:
    """Table I: exhaustive (bounded DFS) vs pruned DFS vs Greedy on the four toy traces."""
    t = Table(title="Table I: exhaustive vs pruned vs greedy (8 blocks x 4 pages, 46 writes)", title_justify="left")
    for c in ("trace", "footprint", "exhaustive writes", "schedules", "pruned writes", "schedules", "greedy writes",
              "seed's Table I (ex/pr/gr)"):
        t.add_column(c, justify="left" if c == "trace" else "right")
    out: dict = {}
    for dist, run in offline.table_one(seed).items():
        r = run.reports
        ex, pr, gr = r["exhaustive"], r["pruned"], r["greedy"]
        t.add_row(dist, str(run.problem.footprint), str(ex.internal_writes), f"{ex.schedules_explored:,}",
                  str(pr.internal_writes), f"{pr.schedules_explored:,}", str(gr.internal_writes),
                  "/".join(map(str, SEED_TABLE_I[dist])))
        out[dist] = {"problem": run.problem.__dict__, "methods": {k: v.to_dict() for k, v in r.items()}}
    console.print(t)
    console.print("schedules: complete schedules visited by DFS with an exact bound (a branch that cannot beat the best "
                  "found is cut); exhaustive branches on every cleanable block, pruned on Algorithms 1-3's candidates.",
                  highlight=False)
    finish("offline", {"table": "I", "seed": seed, "traces": out}, json_path, report_path, [t])


def method_rows(run: offline.OfflineRun) -> Table:
    t = Table(title="offline cleaning vs greedy (single write frontier, demand cleaning)", title_justify="left")
    for c in ("method", "internal writes", "WAF", "cleanings", "vs greedy", "better-than-greedy schedules", "explored"):
        t.add_column(c, justify="left" if c == "method" else "right")
    for name, r in run.reports.items():
        better = f"{r.better_than_greedy:,}" if name in ("mcts", "exhaustive", "pruned") else ""
        t.add_row(name, f"{r.internal_writes:,}", f"{r.waf:.4f}", f"{r.cleanings:,}", f"{r.improvement_pct:+.3f}%",
                  better, f"{r.schedules_explored:,}" + ("" if r.complete else " (limit)"))
    g = run.reports["greedy"].internal_writes
    if run.placements:
        t.add_section()
    for name, p in run.placements.items():
        t.add_row(f"placement: {name}", f"{p.internal_writes:,}", f"{p.waf:.4f}", f"{p.cleanings:,}",
                  f"{p.improvement_pct(g):+.3f}%", "", "1")
    return t


def convergence_table(r: offline.OfflineReport) -> Table:
    t = Table(title=f"MCTS convergence (Fig. 8): best after n playouts, {r.playouts:,} run", title_justify="left")
    for c in ("playouts", "internal writes", "vs greedy"):
        t.add_column(c, justify="right")
    t.add_row("0 (greedy)", f"{r.greedy_internal_writes:,}", "+0.000%")
    for c in r.convergence:
        t.add_row(f"{c.playouts:,}", f"{c.internal_writes:,}", f"{c.improvement_pct:+.3f}%")
    return t


@experiment_app.command("offline")
def offline_experiment(
    trace_path: Optional[Path] = typer.Option(None, "--trace", "-t", help="Trace file (any format ssdlab reads)."),
    workload: Optional[str] = typer.Option(None, "--workload", "-w", help=WORKLOAD_HELP),
    toy: bool = typer.Option(False, "--toy", help="Reproduce Table I on the four toy traces instead."),
    blocks: Optional[int] = typer.Option(None, "--blocks", help="T; default: scaled to the write footprint with --spare."),
    pages_per_block: int = typer.Option(128, "--pages-per-block", help="N_p (toy workloads: always 4)."),
    spare: float = typer.Option(0.07, "--spare", help="Spare factor used to scale --blocks."),
    playouts: int = typer.Option(1024, "--playouts", help="MCTS playouts (default 1024 so that every method runs quickly; the seed plateaus by 16384, offline --method mcts's default)."),
    psi: Optional[int] = typer.Option(None, "--psi", help="Sampling parameter psi of Algorithms 2-3 (default N_p/4)."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    trace_format: str = typer.Option("auto", "--format", help=f"Trace format: {', '.join(registry.names('trace format'))}."),
    lba_map: str = typer.Option("dense", "--lba-map", help="dense (default: the offline problem is the trace's footprint, compacted), none or modulo."),
    max_requests: Optional[int] = typer.Option(None, "--max-requests", help="Use only the trace's first N requests."),
    requests: int = typer.Option(100_000, "--requests", "-n", help="Synthetic workloads: requests (default 100,000: offline search is costlier than simulation)."),
    logical_pages: Optional[int] = typer.Option(None, "--logical-pages", help="Synthetic: logical space in pages (default 65536)."),
    placements: bool = typer.Option(True, "--placements/--no-placements",
                                    help="Add multi-frontier placement rows with greedy cleaning (Figure 9)."),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write every method's report under methods.<name>."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """Greedy, FIFO, Cost/Benefit, d-Choices and MCTS (plus exhaustive and pruned DFS when the
    problem has at most 64 physical pages and 64 page writes) on one workload, beside
    multi-frontier placements (dual-frontier, hot-cold, eti, oracle) with greedy cleaning."""
    if toy:
        if trace_path is not None or workload is not None:
            from ssdlab.cli_common import fail

            fail("--toy runs the four Table I toy traces; drop --trace/--workload")
        table_one(seed, json_path, report_path)
        return
    wl = workload_of(trace_path, workload, trace_format=trace_format, lba_map=lba_map, max_requests=max_requests,
                     requests=requests)
    if wl["kind"] == "synthetic" and logical_pages is None:
        logical_pages = 65536
    mcts = offline.method("mcts", playouts=playouts, **({"psi": psi} if psi is not None else {}))
    geometry = dict(blocks=blocks, pages_per_block=pages_per_block, spare=spare, logical_pages=logical_pages, seed=seed)
    if sys.stderr.isatty():
        err_console.print(f"running {', '.join(ONLINE)} and mcts ({playouts:,} playouts)...")
    run = offline.run_offline(wl, [*ONLINE, mcts], **geometry)
    reports = dict(run.reports)
    placed: dict = {}
    skipped = ""
    if placements:  # a separate call: a geometry too small for extra frontiers drops only these rows
        try:
            placed = offline.run_offline(wl, [], placements=offline.PLACEMENTS, **geometry).placements
        except SsdlabError as e:
            skipped = f"placement rows skipped: {e}"
    if run.problem.toy_sized:
        pruned = offline.method("pruned", **({"psi": psi} if psi is not None else {}))
        reports.update(offline.run_offline(wl, ["exhaustive", pruned], **geometry).reports)
    run = offline.OfflineRun(problem=run.problem, reports=reports, placements=placed)
    console.print(problem_line(run.problem), highlight=False)
    printed = [method_rows(run)]
    console.print(printed[0])
    if not run.problem.toy_sized:
        console.print(f"exhaustive and pruned DFS skipped: more than {offline.TOY_LIMIT} physical pages or page writes.",
                      highlight=False)
    if skipped:
        console.print(skipped, highlight=False, markup=False)
    printed.append(convergence_table(reports["mcts"]))
    console.print(printed[-1])
    finish("offline", {
        "problem": run.problem.__dict__, "seed": seed,
        "methods": {k: v.to_dict(schedule=False) for k, v in reports.items()},
        "placements": {k: {**v.__dict__, "improvement_pct": v.improvement_pct(reports["greedy"].internal_writes)}
                       for k, v in run.placements.items()},
        "convergence": [c.__dict__ for c in reports["mcts"].convergence],
    }, json_path, report_path, printed)
