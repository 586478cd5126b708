"""``ssdlab experiment rlgc``: Kang, Shin, Yoo, "Reinforcement Learning-Assisted Garbage
Collection to Mitigate Long-Tail Latency in SSD" (TECS 2017), Tables 5–10: six GC schedulers on
one workload, write-latency tails and erase counts normalised to LazyRTGC, and the standard
deviation over seeds."""
from __future__ import annotations

import json
from pathlib import Path
from statistics import mean, pstdev
from typing import Any, List, Optional

import numpy as np
import typer
from rich.table import Table

from ssdlab.cli_common import console, fail
from ssdlab.device import Device
from ssdlab.experiments import experiment_app
from ssdlab.simulate import CHUNK, Simulation, build_options
from ssdlab.workload import preset, preset_names, trace

SCHEDULERS = ("blocking", "lazyrtgc", "rlgc", "rlgc-aggressive", "idle-ma", "idle-es")
TAIL_KEYS = ("p99", "p99_9", "p99_99", "p99_9999")
TAIL_LABELS = ("99th", "99.9th", "99.99th", "99.9999th")
BASELINE = "lazyrtgc"

#: Alternatives for the values the seed leaves open (bin edges, reward levels, action set), for
#: ``--sensitivity``: each entry is (label, overrides) applied to ``rlgc``.
SENSITIVITY = (
    ("default (68 states, actions 0-7, rewards 1/0.5/0/-0.5)", []),
    ("coarse interval bins (6)", ["gc.rl.interval_bins_us=[100.0, 1000.0, 5000.0, 20000.0, 100000.0]"]),
    ("fine interval bins (17, log-spaced)", ["gc.rl.interval_bins_us=" + json.dumps([round(10 ** (2 + 3 * i / 15), 1) for i in range(16)])]),
    ("actions 0-3", ["gc.rl.actions=[0, 1, 2, 3]"]),
    ("actions 0-15", ["gc.rl.actions=" + json.dumps(list(range(16)))]),
    ("rewards 1/0/-0.5/-1", ["gc.rl.reward_levels=[1.0, 0.0, -0.5, -1.0]"]),
    ("rewards 1/0.8/0.2/-0.5", ["gc.rl.reward_levels=[1.0, 0.8, 0.2, -0.5]"]),
)


def run_one(device: str, overrides: list[str], workload: dict, seed: int, passes: float, series: bool,
            time_scale: float = 1.0) -> dict[str, Any]:
    opts = build_options(workload, seed=seed, precondition={"sequential": True, "random_passes": passes},
                         time_scale=time_scale)
    sim = Simulation(Device(device, tuple(overrides)), workload, opts)
    while not sim.advance(CHUNK):
        pass
    r = sim.result()
    out = {"latency_us": {k: vars(getattr(r.latency_us, k)) for k in ("read", "write", "all")},
           "erases": r.erases, "waf": r.waf, "gc_pages_copied": r.gc_pages_copied, "blocked_requests": r.blocked_requests,
           "requests": r.requests, "seed": seed}
    if series:
        out["series"] = {"time_s": r.series["time_s"].tolist(), "free_blocks": r.series["free_blocks"].tolist()}
    return out


def normalised(runs: dict[str, list[dict]], key: str) -> dict[str, list[float]]:
    """Per scheduler, per seed: write latency at `key` over LazyRTGC's at the same seed."""
    base = [r["latency_us"]["write"][key] for r in runs[BASELINE]]
    return {s: [r["latency_us"]["write"][key] / b if b else float("nan") for r, b in zip(rs, base)] for s, rs in runs.items()}


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
    er = Table(title="erase count normalised to LazyRTGC (and raw)", title_justify="left")
    er.add_column("scheduler", style="bold")
    er.add_column("normalised", justify="right")
    er.add_column("erases (mean)", justify="right")
    er.add_column("write p99.99 µs (mean)", justify="right")
    base = mean(r["erases"] for r in runs[BASELINE])
    for s, rs in runs.items():
        e = mean(r["erases"] for r in rs)
        er.add_row(s, f"{e / base:.3f}x" if base else "n/a (no GC)", f"{e:,.0f}", f"{mean(r['latency_us']['write']['p99_99'] for r in rs):,.0f}")
    return [lat, er, std]


@experiment_app.command("rlgc")
def experiment_rlgc(
    device: str = typer.Option("kang-128gb", "--device", "-d", help="kang-128gb or kang-512gb (any preset or TOML works)."),
    workload: str = typer.Option("home1", "--workload", "-w", help="A Table 1 stand-in: " + ", ".join(("home1", "home2", "home3", "home4", "webmail", "webmail-online", "rbesql", "msnfs", "oltp"))),
    trace_path: Optional[Path] = typer.Option(None, "--trace", "-t", help="Replay a trace instead (e.g. the real FIU/MSR traces)."),
    lba_map: str = typer.Option("modulo", "--lba-map"),
    time_scale: float = typer.Option(1.0, "--time-scale", help="Traces: multiply inter-arrival times (re-rate a trace that saturates the device)."),
    requests: int = typer.Option(1_000_000, "--requests", "-n", help="Requests per run (the presets need ~1M on the Kang devices for GC to run long)."),
    repeat: int = typer.Option(3, "--repeat", help="Seeds per scheduler (the standard deviation is over these)."),
    seed: int = typer.Option(1, "--seed"),
    passes: float = typer.Option(0.0, "--precondition-passes", help="Random overwrite passes after the sequential fill."),
    set_: List[str] = typer.Option([], "--set", help="section.key=value for every scheduler."),
    schedulers: str = typer.Option(",".join(SCHEDULERS), "--schedulers"),
    sensitivity: bool = typer.Option(False, "--sensitivity", help="Also run rlgc under other bin edges, action sets and reward levels."),
    series_path: Optional[Path] = typer.Option(None, "--series", help="Save free blocks over time per scheduler (npz)."),
    json_path: Optional[Path] = typer.Option(None, "--json"),
) -> None:
    """Run the seed's six schedulers and print its Tables 5-10 (normalised to LazyRTGC)."""
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
    runs: dict[str, list[dict]] = {}
    for s in chosen:
        runs[s] = [run_one(device, list(set_) + [f'gc.scheduler="{s}"'], wl, seed + i, passes, series_path is not None and i == 0,
                           time_scale) for i in range(repeat)]
    title = f"{device}, {trace_path or workload}, {repeat} seed(s)" + (f", time scale {time_scale}" if time_scale != 1.0 else "")
    for t in tables(runs, title):
        console.print(t)
    out: dict[str, Any] = {"device": device, "workload": str(trace_path or workload), "repeat": repeat,
                           "time_scale": time_scale, "schedulers": {}}
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
            "runs": [{k: v for k, v in r.items() if k != "series"} for r in rs],
        }
    if sensitivity:
        sens = Table(title="sensitivity of rlgc to the values the seed leaves open (normalised to LazyRTGC, seed's first run)", title_justify="left")
        sens.add_column("variant", style="bold")
        for lab in TAIL_LABELS:
            sens.add_column(lab, justify="right")
        sens.add_column("erases", justify="right")
        base = runs[BASELINE][0]
        out["sensitivity"] = {}
        for label, extra in SENSITIVITY:
            r = run_one(device, list(set_) + ['gc.scheduler="rlgc"'] + extra, wl, seed, passes, False, time_scale)
            vals = {k: r["latency_us"]["write"][k] / base["latency_us"]["write"][k] for k in TAIL_KEYS}
            sens.add_row(label, *(f"{vals[k]:.2f}x" for k in TAIL_KEYS), f"{r['erases'] / base['erases']:.3f}x")
            out["sensitivity"][label] = {"overrides": extra, "normalised_write": vals, "normalised_erases": r["erases"] / base["erases"]}
        console.print(sens)
    if series_path is not None:
        arrays = {}
        for s, rs in runs.items():
            arrays[f"{s}.time_s"] = np.asarray(rs[0]["series"]["time_s"])
            arrays[f"{s}.free_blocks"] = np.asarray(rs[0]["series"]["free_blocks"])
        try:
            np.savez(series_path, **arrays)
        except OSError as e:
            fail(f"--series {series_path}: cannot write: {e}")
    if json_path is not None:
        try:
            json_path.write_text(json.dumps(out, indent=1))
        except OSError as e:
            fail(f"--json {json_path}: cannot write: {e}")
        console.print(f"results written to {json_path}")
