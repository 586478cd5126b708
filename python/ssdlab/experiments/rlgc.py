"""``ssdlab experiment rlgc``: Kang, Shin, Yoo, "Reinforcement Learning-Assisted Garbage
Collection to Mitigate Long-Tail Latency in SSD" (TECS 2017), Tables 5–10: six GC schedulers on
one workload, write-latency tails and erase counts normalised to LazyRTGC, and the standard
deviation over seeds."""
from __future__ import annotations

import json
from pathlib import Path
from statistics import mean, pstdev
from typing import Any, Callable, List, Optional

import typer
from rich.table import Table

from ssdlab.inputs import device_text
from ssdlab import _core, registry
from ssdlab.cli_common import console, fail, jobs_option
from ssdlab.errors import SsdlabError, core_json
from ssdlab.experiments import experiment_app
from ssdlab.experiments import output
from ssdlab.experiments.output import finish, report_option
from ssdlab.workload import preset, preset_names, trace

#: The paper's schedulers, in its tables' order, and the one they are normalised to (from the core).
SCHEDULERS = tuple(registry.defaults()["rlgc_schedulers"])
TAIL_KEYS = ("p99", "p99_9", "p99_99", "p99_9999")
TAIL_LABELS = ("99th", "99.9th", "99.99th", "99.9999th")
BASELINE = registry.defaults()["rlgc_baseline"]

def run_all(device: str, overrides: list[str], workload: dict, seed: int, repeat: int, passes: float,
            schedulers: list[str], sensitivity: bool, series: bool, time_scale: float = 1.0,
            from_empty: bool = False, references: bool = True, jobs: Optional[int] = None,
            progress: Optional[Callable[[int, int], None]] = None) -> dict[str, Any]:
    """Every run of the comparison, by the core (``experiments::rlgc``): ``schedulers`` (name →
    runs, in order), ``references`` (label → runs: ``nogc``, ``blocking@t_igc``) and
    ``sensitivity`` (label → (overrides, run)). Up to ``jobs`` runs at once on threads (default:
    the core's, one per CPU); no result depends on it."""
    text = device_text(device)
    setup = {"device": text, "origin": device, "overrides": list(overrides), "workload": workload, "seed": seed,
             "repeat": repeat, "precondition_passes": passes, "time_scale": time_scale, "schedulers": schedulers,
             "sensitivity": sensitivity, "series": series, "from_empty": from_empty, "references": references}
    if jobs is not None:  # else the core's default
        setup["jobs"] = jobs
    out = json.loads(_core.rlgc_experiment_json(core_json(setup, "experiment rlgc"), progress=progress))
    return {"schedulers": {s["scheduler"]: s["runs"] for s in out["schedulers"]},
            "references": {r["label"]: r["runs"] for r in out["references"]},
            "sensitivity": {r["label"]: (r["overrides"], r["run"]) for r in out["sensitivity"]}}


def normalised(runs: dict[str, list[dict]], key: str) -> dict[str, list[float]]:
    """Per scheduler, per seed: write latency at `key` over LazyRTGC's at the same seed."""
    base = [r["latency_us"]["write"][key] for r in runs[BASELINE]]
    return {s: [r["latency_us"]["write"][key] / b if b else float("nan") for r, b in zip(rs, base)] for s, rs in runs.items()}


def share_under(run: dict, us: float, op: str = "write") -> float:
    """The fraction of a run's ``op`` requests that took at most ``us`` (from its distribution;
    the paper's Figure 1: "less than 1 ms for approximately 85 % of the accesses")."""
    import numpy as np

    h = run.get("latency_histogram", {}).get(op) or {}
    lat, cnt = np.asarray(h.get("latency_us", []), float), np.asarray(h.get("count", []), float)
    return float(cnt[lat <= us].sum() / cnt.sum()) if cnt.sum() else float("nan")


def report_tables(d: dict[str, Any]) -> list[Table]:
    """The tables of a written result (``ssdlab report``)."""
    runs = {s: v["runs"] for s, v in d["schedulers"].items()}
    return tables(runs, f"{d.get('device')}, {d.get('workload')}, {d.get('repeat')} seed(s)")


def tables(runs: dict[str, list[dict]], title: str) -> list[Table]:
    lat = Table(title=f"write latency normalised to LazyRTGC — {title}", title_justify="left")
    std = Table(title="standard deviation of normalised latency over seeds", title_justify="left")
    for t in (lat, std):
        t.add_column("scheduler", style="bold")
        for lab in TAIL_LABELS:
            t.add_column(lab, justify="right")
    norms = {k: normalised(runs, k) for k in TAIL_KEYS}
    for s in runs:
        lat.add_row(s, *(f"{mean(norms[k][s]):.2f}x" for k in TAIL_KEYS))
        std.add_row(s, *(f"{pstdev(norms[k][s]):.3f}" for k in TAIL_KEYS))
    er = Table(title="erase count normalised to LazyRTGC (and raw); the shape of the write latency", title_justify="left")
    er.add_column("scheduler", style="bold")
    er.add_column("normalised", justify="right")
    er.add_column("erases (mean)", justify="right")
    er.add_column("write p50 µs", justify="right")
    er.add_column("write p99.99 µs", justify="right")
    er.add_column("p99 / p50", justify="right")
    er.add_column("writes ≤ 1 ms", justify="right")
    base = mean(r["erases"] for r in runs[BASELINE])
    for s, rs in runs.items():
        e = mean(r["erases"] for r in rs)
        w = lambda k: mean(r["latency_us"]["write"][k] for r in rs)  # noqa: E731
        er.add_row(s, f"{e / base:.3f}x" if base else "n/a (no GC)", f"{e:,.0f}", f"{w('p50'):,.0f}",
                   f"{w('p99_99'):,.0f}", f"{w('p99') / w('p50'):,.0f}x" if w("p50") else "-",
                   f"{mean(share_under(r, 1000.0) for r in rs):.1%}")
    return [lat, er, std]


@experiment_app.command("rlgc")
def experiment_rlgc(
    device: str = typer.Option("kang-128gb", "--device", "-d", help="kang-128gb or kang-512gb (any preset or TOML works)."),
    workload: str = typer.Option("home1", "--workload", "-w", help="A Table 1 stand-in: " + ", ".join(("home1", "home2", "home3", "home4", "webmail", "webmail-online", "rbesql", "msnfs", "oltp"))),
    trace_path: Optional[Path] = typer.Option(None, "--trace", "-t", help="Replay a trace instead (e.g. the real FIU/MSR traces)."),
    lba_map: str = typer.Option("modulo", "--lba-map", help="none, dense or modulo (default modulo: a trace's addresses folded onto the smaller simulated device)."),
    time_scale: float = typer.Option(1.0, "--time-scale", help="Traces: multiply inter-arrival times (re-rate a trace that saturates the device)."),
    requests: int = typer.Option(1_000_000, "--requests", "-n", help="Requests per run (default 1,000,000: the presets need ~1M on the Kang devices for GC to run long)."),
    repeat: int = typer.Option(3, "--repeat", help="Seeds per scheduler (default 3; the standard deviation is over these)."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    passes: float = typer.Option(0.0, "--precondition-passes", help="Random overwrite passes after the sequential fill (default 0: a sequential fill, then the workload)."),
    from_empty: bool = typer.Option(False, "--from-empty", help="Start from an empty device, as the paper did (no fill: GC starts once the workload has written the device's capacity, so give enough --requests)."),
    references: bool = typer.Option(True, "--references/--no-references", help="Also run nogc (page-level GC that costs no time: the paper's Figure 1 ideal) and blocking@t_igc (page-level GC triggered at T_IGC, the partial schedulers' level)."),
    set_: List[str] = typer.Option([], "--set", help="section.key=value for every scheduler."),
    schedulers: str = typer.Option(",".join(SCHEDULERS), "--schedulers", help="Comma-separated GC schedulers to compare."),
    sensitivity: bool = typer.Option(False, "--sensitivity", help="Also run rlgc under other bin edges, action sets and reward levels."),
    series_path: Optional[Path] = typer.Option(None, "--series", help="Save free blocks over time per scheduler (npz)."),
    jobs: int = jobs_option(),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the comparison as JSON."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """Run the paper's six schedulers and print its Tables 5-10 (normalised to LazyRTGC)."""
    import numpy as np

    if repeat < 1:
        fail("--repeat: expected at least 1")
    chosen = [s.strip() for s in schedulers.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SCHEDULERS]
    if unknown or BASELINE not in chosen:
        fail(f"--schedulers: expected names from {', '.join(SCHEDULERS)} including {BASELINE}, got {schedulers}")
    if trace_path is not None:
        wl = trace(trace_path, lba_map=lba_map)
    elif workload in preset_names():
        wl = preset(workload, requests)
    else:
        fail(f"--workload {workload}: expected one of {', '.join(preset_names())} (or --trace)")
    try:
        everything = run_all(device, list(set_), wl, seed, repeat, passes, chosen, sensitivity, series_path is not None,
                             time_scale, from_empty, references, jobs, progress=output.progress())
    except SsdlabError as e:
        fail(str(e))
    refs = everything["references"]
    # The ideal first (the paper's Figure 1), the page-level variant at equal spare after the paper's six.
    runs: dict[str, list[dict]] = {**{k: v for k, v in refs.items() if k == "nogc"}, **everything["schedulers"],
                                   **{k: v for k, v in refs.items() if k != "nogc"}}
    title = (f"{device}, {trace_path or workload}, {repeat} seed(s)" + (f", time scale {time_scale}" if time_scale != 1.0 else "")
             + (", from empty" if from_empty else ""))
    printed = tables(runs, title)
    for t in printed:
        console.print(t)
    out: dict[str, Any] = {"device": device, "workload": str(trace_path or workload), "repeat": repeat,
                           "time_scale": time_scale, "from_empty": from_empty, "references": sorted(refs),
                           "schedulers": {}}
    norms = {k: normalised(runs, k) for k in TAIL_KEYS}
    base_erases = mean(r["erases"] for r in runs[BASELINE])
    for s, rs in runs.items():
        out["schedulers"][s] = {
            "latency_us": {op: {k: mean(r["latency_us"][op][k] for r in rs) for k in rs[0]["latency_us"][op]} for op in ("read", "write", "all")},
            "erases": mean(r["erases"] for r in rs),
            "waf": mean(r["waf"] for r in rs),
            "normalised_write": {k: mean(norms[k][s]) for k in TAIL_KEYS},
            "std_normalised_write": {k: pstdev(norms[k][s]) for k in TAIL_KEYS},
            "normalised_erases": mean(r["erases"] for r in rs) / base_erases if base_erases else None,
            "write_share_under_1ms": mean(share_under(r, 1000.0) for r in rs),
            "runs": [{k: v for k, v in r.items() if k != "series"} for r in rs],
        }
    if sensitivity:
        sens = Table(title="sensitivity of rlgc to the values the paper leaves open (normalised to LazyRTGC's run of the first seed)", title_justify="left")
        sens.add_column("variant", style="bold")
        for lab in TAIL_LABELS:
            sens.add_column(lab, justify="right")
        sens.add_column("erases", justify="right")
        base = runs[BASELINE][0]
        out["sensitivity"] = {}
        for label, (extra, r) in everything["sensitivity"].items():
            vals = {k: r["latency_us"]["write"][k] / base["latency_us"]["write"][k] for k in TAIL_KEYS}
            sens.add_row(label, *(f"{vals[k]:.2f}x" for k in TAIL_KEYS), f"{r['erases'] / base['erases']:.3f}x")
            out["sensitivity"][label] = {"overrides": extra, "normalised_write": vals, "normalised_erases": r["erases"] / base["erases"]}
        console.print(sens)
        printed.append(sens)
    if series_path is not None:
        arrays = {}
        for s, rs in runs.items():
            if "series" not in rs[0]:
                continue  # references keep none
            arrays[f"{s}.time_s"] = np.asarray(rs[0]["series"]["time_s"])
            arrays[f"{s}.free_blocks"] = np.asarray(rs[0]["series"]["free_blocks"])
        try:
            np.savez(series_path, **arrays)
        except OSError as e:
            fail(f"--series {series_path}: cannot write: {e}")
    finish("rlgc", out, json_path, report_path, printed)
