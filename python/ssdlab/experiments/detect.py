"""``ssdlab experiment detect``: Park and Kim, "SSD Garbage Collection Detection and Management
with Machine Learning Algorithm" (ICUFN 2017). A C4.5 tree over the host's ``iostat -x`` view
(the 1 s attributes and their 50-sample standard deviations) is trained on simulated fio 512 KiB
random writes and filebench ``fileserver``/``varmail``, labelled with the device's own GC
activity, evaluated on held-out workloads, devices and GC policies, compared with scikit-learn's
entropy tree on the same split, and used as the paper's manager: TRIM on detection, against no
TRIM, ``discard`` and periodic ``fstrim`` (seconds below a bandwidth floor).

The runs are the core's (``experiments::detect``); this module formats them and adds the
scikit-learn comparison (a test extra: ``sklearn_agreement`` is null without it). JSON keys:
``accuracy``, ``precision``, ``recall``, ``confusion.{tp,fp,tn,fn}``, ``sklearn_agreement``,
``sklearn_accuracy``, ``features_used``, ``rules``, ``tree``, ``train_runs``, ``eval_runs``,
``seconds_below_floor.{none,detector,discard,fstrim}``, ``floor_mb_s``, ``management``."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

import typer
from rich.table import Table

from ssdlab.inputs import device_text, is_file
from ssdlab import _core, registry
from ssdlab.cli_common import console, fail, jobs_option, warn
from ssdlab.errors import SsdlabError, core_json
from ssdlab.experiments import experiment_app
from ssdlab.experiments import output
from ssdlab.experiments.output import finish, report_option

if TYPE_CHECKING:
    import numpy as np


def setup(device: Optional[str] = None, overrides: Optional[list[str]] = None, *, seed: Optional[int] = None,
          train_seconds: Optional[float] = None, eval_seconds: Optional[float] = None,
          manage: bool = True, manage_seconds: Optional[float] = None, fstrim_period_s: Optional[float] = None,
          floor_mb_s: Optional[float] = None, manage_workload: Optional[str] = None,
          stale_fraction: Optional[float] = None, features: Optional[str] = None, window: Optional[int] = None, label: Optional[str] = None,
          label_threshold: Optional[float] = None,
          model_json: Optional[str] = None, train: Optional[list[dict]] = None, eval: Optional[list[dict]] = None,
          jobs: Optional[int] = None) -> dict[str, Any]:
    """The core's ``DetectSetup`` as a dict; what is not given takes the core's default
    (``jobs``: runs at once on threads, no result depends on it)."""
    s: dict[str, Any] = {"extra_overrides": list(overrides or [])}
    if device is not None:  # the user's device replaces the default one and its overrides
        text = device_text(device)
        s.update(device=text, origin=device, overrides=[])
    for k, v in dict(features=features, seed=seed, train_seconds=train_seconds, eval_seconds=eval_seconds, window=window,
                     label=label, label_threshold=label_threshold, model_json=model_json, train=train, eval=eval,
                     jobs=jobs).items():
        if v is not None:
            s[k] = v
    if not manage:
        s["manage"] = None
    else:
        m = {k: v for k, v in dict(seconds=manage_seconds, fstrim_period_s=fstrim_period_s, floor_mb_s=floor_mb_s).items()
             if v is not None}
        if manage_workload is not None or stale_fraction is not None:
            m["workload"] = {"kind": "fs", "personality": manage_workload or DEFAULT_MANAGE_PERSONALITY,
                             "requests": 1 << 40, "stale_fraction": 0.53 if stale_fraction is None else stale_fraction}
        if m:
            s["manage"] = m
    return s


#: ``--label`` of experiment detect and detect train/eval (names from the core's registry).
LABEL_OPTION = typer.Option(registry.default("GC label"), "--label",
                            help=f"Which GC an interval's label stands for: {', '.join(registry.names('GC label'))} "
                                 "(any: the paper's; copy: GC that moved data, erase-only GC excluded).")


def check_device(device: Optional[str]) -> None:
    """``--device``: a preset name or a TOML file (one error line otherwise)."""
    if device is not None and not is_file(device) and device not in _core.preset_names():
        fail(f"--device {device}: expected a preset ({', '.join(_core.preset_names())}) or a TOML file")


def feature_set(option: str, value: str) -> str:
    """``option``'s feature set, its current name (a former one, the core's, is read with a
    warning)."""
    renamed = registry.former("detector feature set")
    if value in renamed:
        warn(f"{option} {value}: now named {renamed[value]}")
        value = renamed[value]
    check_name(option, value, "detector feature set")
    return value


def check_name(option: str, value: Optional[str], family: str) -> None:
    """``option``'s value is a member of the core's registry ``family`` (one error line otherwise)."""
    names = registry.names(family)
    if value is not None and value not in names:
        fail(f"{option} {value}: expected one of {', '.join(names)} ({family})")


#: The management comparison's default churn (the core's ``ManageSetup``; used only when the
#: user changes the stale fraction alone).
DEFAULT_MANAGE_PERSONALITY = "fileserver"


def sklearn_comparison(train_x: np.ndarray, train_y: np.ndarray, eval_x: np.ndarray, eval_y: np.ndarray,
                       predicted: np.ndarray, min_objs: int = 2, seed: int = 1) -> Optional[dict[str, float]]:
    """scikit-learn's entropy tree (CART with information gain, binary thresholds: the nearest
    maintained relative of C4.5) fitted on the same training rows: its accuracy on the held-out
    rows and the fraction of held-out rows where it and the C4.5 tree agree. None without
    scikit-learn (a test extra, not a runtime dependency)."""
    import numpy as np

    try:
        from sklearn.tree import DecisionTreeClassifier
    except ImportError:
        return None
    if len(eval_y) == 0 or len(train_y) == 0:
        return None
    clf = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=min_objs, random_state=seed)
    clf.fit(train_x, train_y)
    p = clf.predict(eval_x)
    return {"sklearn_agreement": float(np.mean(p == predicted)), "sklearn_accuracy": float(np.mean(p == eval_y)),
            "sklearn_leaves": int(clf.get_n_leaves())}


def run(progress: Optional[Callable[[int, int], None]] = None, **kw: Any) -> dict[str, Any]:
    """The experiment, by the core, plus the scikit-learn comparison (see :func:`setup`);
    ``progress(done, total)`` is called as its simulations finish."""
    s = setup(**kw)
    report, tx, ty, ex, ey, pred = _core.detect_experiment(core_json(s, "experiment detect"), progress=progress)
    r = json.loads(report)
    sk = sklearn_comparison(tx, ty, ex, ey, pred, seed=s.get("seed", 1))
    r["sklearn_agreement"] = sk["sklearn_agreement"] if sk else None
    r["sklearn_accuracy"] = sk["sklearn_accuracy"] if sk else None
    r["sklearn_leaves"] = sk["sklearn_leaves"] if sk else None
    r["train_intervals"] = int(len(ty))
    r["eval_intervals"] = int(len(ey))
    m = r.get("management")
    if m:
        r["floor_mb_s"] = m["floor_mb_s"]
        r["seconds_below_floor"] = {x["mode"]: x["seconds_below_floor"] for x in m["runs"]}
    return r


def _pct(x: Optional[float]) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2%}"


def report_tables(r: dict[str, Any]) -> list[Table]:
    return tables(r)


def tables(r: dict[str, Any]) -> list[Table]:
    out = []
    t = Table(title=f"GC detection on {r['device']} · C4.5 over iostat ({r['features']} attributes, window {r['window']}, label: {r['label']} GC fraction > {r['label_threshold']})",
              title_justify="left")
    for c in ("run", "role", "intervals", "GC intervals", "write MB/s", "accuracy"):
        t.add_column(c, justify="left" if c in ("run", "role") else "right")
    for role, runs in (("train", r["train_runs"]), ("held out", r["eval_runs"])):
        for x in runs:
            t.add_row(x["name"], role, str(x["intervals"]), str(x["gc_intervals"]), f"{x['mean_write_mb_s']:.1f}",
                      _pct(x.get("accuracy")))
    out.append(t)
    c = r["confusion"]
    t = Table(title="held-out detection (the paper: 99.66 % accuracy, std-dev of svctm decisive)", title_justify="left",
              show_header=False)
    t.add_column("metric", style="bold")
    t.add_column("value", justify="right")
    t.add_row("accuracy", _pct(r["accuracy"]))
    t.add_row("precision", _pct(r["precision"]))
    t.add_row("recall", _pct(r["recall"]))
    t.add_row("confusion (tp fp / fn tn)", f"{c['tp']} {c['fp']} / {c['fn']} {c['tn']}")
    w = r["window"]
    for key, label in (("same_workloads", "training workloads, seed 2"), ("other_workloads", "other workloads/devices/policies")):
        for g, which in ((r.get(key), label), (r.get("full_window", {}).get(key), f"{label}, full {w}-sample windows")):
            if g:
                gc = g["confusion"]
                t.add_row(f"{which}: accuracy · precision · recall",
                          f"{_pct(g['accuracy'])} · {_pct(g['precision'])} · {_pct(g['recall'])} ({gc['tp']} {gc['fp']} / {gc['fn']} {gc['tn']})")
    t.add_row("features used", ", ".join(r["features_used"]))
    t.add_row("leaves", str(r["leaves"]))
    t.add_row("scikit-learn entropy tree: agreement", _pct(r.get("sklearn_agreement")))
    t.add_row("scikit-learn entropy tree: accuracy", _pct(r.get("sklearn_accuracy")))
    out.append(t)
    m = r.get("management")
    if m:
        t = Table(title=f"TRIM policies over {m['seconds']:.0f} s (floor {m['floor_mb_s']:.1f} MB/s; the paper: 137 s → 66 s below 400 MB/s)",
                  title_justify="left")
        for col in ("host policy", "mean write MB/s", "s below floor", "trims", "trimmed pages", "detections", "GC intervals", "WAF"):
            t.add_column(col, justify="left" if col == "host policy" else "right")
        for x in m["runs"]:
            t.add_row(x["mode"], f"{x['mean_write_mb_s']:.1f}", str(x["seconds_below_floor"]), str(x["trims"]),
                      f"{x['trimmed_pages']:,}", str(x["detections"]), str(x["gc_intervals"]), f"{x['waf']:.3f}")
        out.append(t)
    return out


@experiment_app.command("detect")
def experiment_detect(
    device: Optional[str] = typer.Option(None, "--device", "-d", help="Preset name or TOML file (default: mqsim-small at 128 blocks per plane)."),
    set_: list[str] = typer.Option([], "--set", help="Override a config field (repeatable)."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    train_seconds: Optional[float] = typer.Option(None, "--train-seconds", help="Simulated seconds of each training run (default 600)."),
    eval_seconds: Optional[float] = typer.Option(None, "--eval-seconds", help="Simulated seconds of each held-out run (default 300)."),
    manage: bool = typer.Option(True, "--manage/--no-manage", help="Run the TRIM-policy comparison."),
    manage_seconds: Optional[float] = typer.Option(None, "--manage-seconds", help="Simulated seconds of each TRIM-policy run (default 3000, the paper's)."),
    fstrim_period: Optional[float] = typer.Option(None, "--fstrim-period", help="fstrim baseline: seconds between TRIMs (default 600)."),
    floor: Optional[float] = typer.Option(None, "--floor-mbps", help="Bandwidth floor, MB/s (default: 0.9 × the discard run's median)."),
    manage_workload: Optional[str] = typer.Option(None, "--manage-workload", help="TRIM comparison churn: fio-randwrite, fileserver (default), varmail or iozone."),
    stale_fraction: Optional[float] = typer.Option(None, "--stale-fraction", help="TRIM comparison: the rm'd partition's share of the drive (default 0.53, the paper's 68 of 128 GB)."),
    label: str = LABEL_OPTION,
    label_threshold: Optional[float] = typer.Option(None, "--label-threshold", help="An interval is GC above this GC fraction (default 0: any GC, the paper's)."),
    features: str = typer.Option(registry.default("detector feature set"), "--features",
                                 help=f"Detector attributes: {', '.join(registry.names('detector feature set'))} (paper: the paper's 23; scale-free: coefficients of variation, an extension)."),
    model_out: Optional[Path] = typer.Option(None, "--model", help="Also save the trained tree (JSON, for detect watch/eval)."),
    jobs: int = jobs_option(),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the results as JSON."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """Host-side GC detection with C4.5 over iostat, and TRIM on detection (Park & Kim 2017)."""
    check_device(device)
    features = feature_set("--features", features)
    check_name("--label", label, "GC label")
    check_name("--manage-workload", manage_workload, "fs personality")
    try:
        r = run(progress=output.progress(), device=device, overrides=set_, seed=seed, train_seconds=train_seconds, eval_seconds=eval_seconds,
                manage=manage, manage_seconds=manage_seconds, fstrim_period_s=fstrim_period, floor_mb_s=floor,
                manage_workload=manage_workload, stale_fraction=stale_fraction, label=label,
                label_threshold=label_threshold, features=features, jobs=jobs)
    except SsdlabError as e:
        fail(str(e))
    for t in tables(r):
        console.print(t)
    console.print(r["rules"], highlight=False, markup=False)
    if model_out is not None:
        try:
            model_out.write_text(json.dumps(r["tree"], indent=1))
        except OSError as e:
            fail(f"--model {model_out}: cannot write: {e}")
        console.print(f"tree saved to {model_out}")
    finish("detect", r, json_path, report_path, tables(r))
