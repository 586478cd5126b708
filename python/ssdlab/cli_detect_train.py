"""``ssdlab detect train`` and ``ssdlab detect eval``: the GC detector trained and evaluated on
simulated runs (Park & Kim §III), where the simulator labels every interval with the device's
own GC activity. The runs are the core's (``experiments::detect``, as ``experiment detect``
runs them, without the TRIM comparison); this module builds the run list and prints.

A ``--workload`` is a file-system personality (``fio-randwrite``, ``fileserver``, ``varmail``,
``iozone``) or a synthetic pattern (``uniform``, ``hotcold``, ``zipf``, ``sequential``); each
runs from an empty device for ``--seconds`` simulated seconds, closed loop at ``--queue-depth``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.table import Table

from ssdlab import registry
from ssdlab.cli_common import console, fail
from ssdlab.cli_detect import detect_app
from ssdlab.errors import SsdlabError
from ssdlab.experiments import detect as experiment

#: Enough requests for any duration: the runs stop by simulated time.
UNBOUNDED = 1 << 40


def workload_spec(name: str) -> dict[str, Any]:
    """The core's workload spec for a personality or pattern name (a ValueError otherwise)."""
    if name in registry.names("fs personality"):
        return {"kind": "fs", "personality": name, "requests": UNBOUNDED}
    if name in registry.names("synthetic pattern"):
        return {"kind": "synthetic", "pattern": name, "requests": UNBOUNDED}
    raise ValueError(f"--workload {name}: expected a file-system personality ({', '.join(registry.names('fs personality'))}) "
                     f"or a synthetic pattern ({', '.join(registry.names('synthetic pattern'))})")


def runs(workloads: List[str], seconds: float, queue_depth: int) -> Optional[list[dict[str, Any]]]:
    """One run per workload (None: the core's default list)."""
    if not workloads:
        return None
    try:
        return [{"name": w, "workload": workload_spec(w), "seconds": seconds, "queue_depth": queue_depth} for w in workloads]
    except ValueError as e:
        fail(str(e))
        raise AssertionError from e


def run_table(title: str, rows: list[dict[str, Any]]) -> Table:
    t = Table(title=title, title_justify="left")
    for c in ("run", "intervals", "GC intervals", "write MB/s", "accuracy"):
        t.add_column(c, justify="left" if c == "run" else "right")
    for x in rows:
        acc = x.get("accuracy")
        t.add_row(x["name"], str(x["intervals"]), str(x["gc_intervals"]), f"{x['mean_write_mb_s']:.1f}",
                  "—" if acc is None else f"{acc:.2%}")
    return t


@detect_app.command("train")
def train(
    model: Path = typer.Option(..., "--model", "-o", help="Write the trained tree here (JSON; detect watch/eval read it)."),
    workload: List[str] = typer.Option([], "--workload", "-w", help="Training workload (repeatable; default the paper's: fio-randwrite, fileserver, varmail)."),
    seconds: float = typer.Option(600.0, "--seconds", help="Simulated seconds of each run (default 600: training runs, as the experiment's)."),
    queue_depth: int = typer.Option(registry.defaults()["queue_depth"], "--queue-depth", "-q", help=f"Requests kept outstanding (default {registry.defaults()['queue_depth']}: fio's iodepth, filebench's threads)."),
    device: Optional[str] = typer.Option(None, "--device", "-d", help="Preset or TOML file (default: mqsim-small at 128 blocks per plane)."),
    set_: List[str] = typer.Option([], "--set", help="Override a config field (repeatable)."),
    window: Optional[int] = typer.Option(None, "--window", help="Samples of each standard deviation (default 50, the paper's)."),
    label: str = experiment.LABEL_OPTION,
    label_threshold: Optional[float] = typer.Option(None, "--label-threshold", help="An interval is GC above this GC fraction (default 0: any GC)."),
    features: str = typer.Option(registry.default("detector feature set"), "--features",
                                 help=f"Detector attributes: {', '.join(registry.names('detector feature set'))} (paper: the paper's 23; scale-free: coefficients of variation, an extension)."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="Also write the tree's rules as text."),
) -> None:
    """Train the C4.5 GC detector on simulated runs labelled with the device's own GC."""
    experiment.check_device(device)
    features = experiment.feature_set("--features", features)
    experiment.check_name("--label", label, "GC label")
    for path in (model, rules):
        if path is not None and not path.parent.is_dir():
            fail(f"{path}: folder {path.parent} does not exist")
    train_runs = runs(workload, seconds, queue_depth)
    try:
        r = experiment.run(device=device, overrides=set_, seed=seed, manage=False, window=window,
                           label=label, label_threshold=label_threshold, train=train_runs, eval=[], features=features,
                           train_seconds=None if train_runs else seconds)
    except SsdlabError as e:
        fail(str(e))
    console.print(run_table(f"training runs on {r['device']}", r["train_runs"]))
    console.print(r["rules"], highlight=False, markup=False)
    try:
        model.write_text(json.dumps(r["tree"], indent=1))
        if rules is not None:
            rules.write_text(r["rules"])
    except OSError as e:
        fail(f"{e.filename}: cannot write: {e.strerror}")
    console.print(f"tree ({r['leaves']} leaves; tests {', '.join(r['features_used'])}) saved to {model}")


@detect_app.command("eval")
def evaluate(
    model: Path = typer.Option(..., "--model", "-m", help="A tree from detect train (or experiment detect --model)."),
    workload: List[str] = typer.Option([], "--workload", "-w", help="Held-out workload (repeatable; default: the experiment's held-out runs)."),
    seconds: float = typer.Option(300.0, "--seconds", help="Simulated seconds of each run (default 300: held-out runs, as the experiment's)."),
    queue_depth: int = typer.Option(registry.defaults()["queue_depth"], "--queue-depth", "-q", help=f"Requests kept outstanding (default {registry.defaults()['queue_depth']}: fio's iodepth, filebench's threads)."),
    device: Optional[str] = typer.Option(None, "--device", "-d", help="Preset or TOML file (default: mqsim-small at 128 blocks per plane)."),
    set_: List[str] = typer.Option([], "--set", help="Override a config field (repeatable)."),
    label: str = experiment.LABEL_OPTION,
    label_threshold: Optional[float] = typer.Option(None, "--label-threshold", help="An interval is GC above this GC fraction (default 0)."),
    window: Optional[int] = typer.Option(None, "--window", help="Samples of each standard deviation: the one the tree was trained with (default 50)."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the evaluation as JSON."),
) -> None:
    """Evaluate a trained tree on held-out simulated runs: accuracy, precision, recall, confusion
    (the attribute set is the tree's own)."""
    experiment.check_device(device)
    experiment.check_name("--label", label, "GC label")
    from ssdlab.inputs import read_text

    text = read_text(model, "--model")
    try:
        r = experiment.run(device=device, overrides=set_, seed=seed, manage=False, model_json=text, train=[],
                           eval=runs(workload, seconds, queue_depth), label=label, label_threshold=label_threshold,
                           eval_seconds=None if workload else seconds, window=window)
    except SsdlabError as e:
        fail(str(e).replace("model:", f"--model {model}:", 1))
    console.print(run_table(f"held-out runs on {r['device']}", r["eval_runs"]))
    for t in experiment.tables(r)[1:2]:
        console.print(t)
    if json_path is not None:
        try:
            json_path.write_text(json.dumps({k: v for k, v in r.items() if k != "tree"}, indent=1))
        except OSError as e:
            fail(f"--json {json_path}: cannot write: {e.strerror}")


def register(app: typer.Typer) -> None:
    """Add ``ssdlab detect`` to the top-level app: ``record``, ``iostat`` and ``watch`` from
    ``cli_detect``, ``train`` and ``eval`` from here (this module imports that one, so the whole
    group is registered from here)."""
    app.add_typer(detect_app, name="detect")
