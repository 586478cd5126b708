"""What a plot or a report reads: any result ssdlab writes, as one shape.

A :class:`Source` is one results file or folder — a run's ``--json``, an experiment's
``--json``, a sweep's results store, a saved Q-table — read into :class:`Group`\\ s: the things
a figure compares (a policy, a scheduler, a stack, a sweep's configuration), each with its
scalars by ``--json`` path (``waf``, ``latency_us.write.p99``), its latency distributions and
its time series where the result has them. Plot kinds draw groups; they never parse files.

An experiment's JSON names its experiment (``"experiment": "rlgc"``, written since the report
landed); older files are recognised by their keys.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from ssdlab.errors import SsdlabError
from ssdlab.inputs import SHAPE_ERRORS, FieldError, InputError, Trail, load_json, shape_error, tracked, type_name

#: A latency distribution: (latency µs, count), latencies increasing.
Histogram = tuple[np.ndarray, np.ndarray]


class SourceError(SsdlabError):
    """A results path that is not something ssdlab wrote (one line, names the path)."""


@dataclass
class Group:
    """One compared thing and what is known about it."""

    label: str
    scalars: dict[str, float] = field(default_factory=dict)
    histogram: dict[str, Histogram] = field(default_factory=dict)
    series: dict[str, np.ndarray] = field(default_factory=dict)
    #: Finer grouping where a figure needs it (the SLC experiment's utilisation).
    facet: Optional[str] = None
    #: A sweep's configuration of the group: axis column → value.
    keys: dict[str, Any] = field(default_factory=dict)


@dataclass
class Source:
    """One results file or folder, read."""

    path: Path
    #: ``run``, ``sweep``, ``qtable`` or an experiment's name (``rlgc``, ``ttflash``, …).
    kind: str
    title: str
    groups: list[Group]
    raw: Any
    #: The command that makes it again, if known.
    command: Optional[str] = None
    #: Versions and configuration to show (name → text).
    about: dict[str, str] = field(default_factory=dict)
    #: The operation whose latency the source is about (rlgc: writes; ttflash: reads).
    op: str = "all"
    #: A sweep's compared configuration columns (what varies, the seed aside).
    axes: list[str] = field(default_factory=list)
    #: What of ``raw`` was read last (``raw`` is tracked: ``inputs.tracked``), so that a field
    #: of the wrong shape found while drawing or tabulating is named (:func:`read_raw`).
    trail: Optional[Trail] = None


def flatten(d: Any, prefix: str = "", out: Optional[dict[str, float]] = None) -> dict[str, float]:
    """Numeric leaves of nested dicts by dotted path (``latency_us.write.p99``)."""
    out = {} if out is None else out
    if isinstance(d, dict):
        for k, v in d.items():
            flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(d, (int, float)) and not isinstance(d, bool) and d is not None:
        out[prefix] = float(d)
    return out


def histograms(d: Optional[dict], at: str = "latency_histogram") -> dict[str, Histogram]:
    """``{op: {latency_us: [...], count: [...]}}`` as arrays (empty types dropped); arrays of
    two lengths, or of anything but numbers, are a :class:`FieldError` naming the field
    (``at``: where ``d`` is in the file)."""
    out = {}
    if not isinstance(d, (dict, type(None))):
        raise FieldError(at, "expected an object of latency distributions")
    for op, h in (d or {}).items():
        if not isinstance(h, dict):
            raise FieldError(f"{at}.{op}", "expected an object with latency_us and count")
        lat = _numbers(h.get("latency_us", []), f"{at}.{op}.latency_us")
        cnt = _numbers(h.get("count", []), f"{at}.{op}.count")
        if len(lat) != len(cnt):
            raise FieldError(f"{at}.{op}", f"latency_us has {len(lat)} values and count {len(cnt)}; "
                             "expected one count per latency")
        if len(lat):
            out[op] = (lat, cnt.astype(np.int64))
    return out


def _numbers(v: Any, what: str) -> np.ndarray:
    """``v`` as a flat array of numbers, or a ``ValueError`` naming ``what``."""
    if not isinstance(v, list):
        raise FieldError(what, f"expected an array of numbers, got {type_name(v)}")
    bad = next((i for i, x in enumerate(v) if not isinstance(x, (int, float)) or isinstance(x, bool)), None)
    if bad is not None:
        raise FieldError(f"{what}[{bad}]", f"expected a number, got {type_name(v[bad])}")
    return np.asarray(v, float)


def series_of(d: Optional[dict], at: str = "series") -> dict[str, np.ndarray]:
    """A result's time series (``{name: [numbers]}``, every one as long as the others)."""
    if not isinstance(d, (dict, type(None))):
        raise FieldError(at, "expected an object of time series")
    out = {k: _numbers(v, f"{at}.{k}") for k, v in (d or {}).items()}
    if len({len(v) for v in out.values()}) > 1:
        raise FieldError(at, "expected time series of one length, got " + ", ".join(f"{k} {len(v)}" for k, v in out.items()))
    return out


def merge(hs: list[dict[str, Histogram]]) -> dict[str, Histogram]:
    """Several runs' distributions as one (the seeds of one configuration)."""
    out: dict[str, Histogram] = {}
    for op in dict.fromkeys(op for h in hs for op in h):
        lat = np.concatenate([h[op][0] for h in hs if op in h])
        cnt = np.concatenate([h[op][1] for h in hs if op in h])
        values, inverse = np.unique(lat, return_inverse=True)
        out[op] = (values, np.bincount(inverse, weights=cnt).astype(np.int64))
    return out


def mean_scalars(runs: list[dict[str, float]]) -> dict[str, float]:
    keys = dict.fromkeys(k for r in runs for k in r)
    return {k: float(np.mean([r[k] for r in runs if k in r])) for k in keys}


def issued(latency_us: dict) -> dict:
    """A flow's latency summaries without the types it never issued (a writer's reads): left
    out, not drawn as 0."""
    return {op: s for op, s in latency_us.items() if not isinstance(s, dict) or s.get("count")}


# -- readers, one per kind of file ------------------------------------------------------------
def _run(path: Path, d: dict) -> Source:
    """One group for the run; a run of several flows adds one per flow (``flow · name``, its
    own figures and latency distributions), so that its CCDF has a curve per flow."""
    g = Group(f"{d.get('device', '?')}", flatten({k: v for k, v in d.items() if k not in ("series", "setup", "latency_histogram", "flows")}),
              histograms(d.get("latency_histogram")), series_of(d.get("series")))
    groups = [g]
    flows = d.get("flows") or []
    if not isinstance(flows, list):
        raise FieldError("flows", f"expected an array of flows, got {type_name(flows)}")
    for i, f in enumerate(flows):
        if not isinstance(f, dict):
            raise FieldError(f"flows[{i}]", f"expected an object, got {type_name(f)}")
        scalars = flatten({**{k: v for k, v in f.items() if k != "latency_histogram"},
                           "latency_us": issued(f.get("latency_us") or {})})
        groups.append(Group(f"flow · {f.get('name', i)}", scalars,
                            histograms(f.get("latency_histogram"), f"flows[{i}].latency_histogram")))
    setup = d.get("setup") or {}
    about = {"device": str(d.get("device")), "workload": str(d.get("workload")), "seed": str(d.get("seed")),
             "ssdlab": f"{setup.get('ssdlab_version', '?')} ({setup.get('git_commit') or 'no git commit'})"}
    return Source(path, "run", f"{d.get('device')} · {d.get('workload')}", groups, d,
                  command=f"ssdlab run --from {path.name}", about=about)


def _rlgc(path: Path, d: dict) -> Source:
    groups = []
    for s, v in d["schedulers"].items():
        runs = v.get("runs", [])
        g = Group(s, flatten({k: x for k, x in v.items() if k != "runs"}),
                  merge([histograms(r.get("latency_histogram"), f"schedulers.{s}.runs[{i}].latency_histogram")
                         for i, r in enumerate(runs)]))
        groups.append(g)
    return Source(path, "rlgc", f"RL-assisted GC · {d.get('device')} · {d.get('workload')} · {d.get('repeat')} seed(s)",
                  groups, d, op="write")


def _ttflash(path: Path, d: dict) -> Source:
    groups = [Group(s, flatten({k: v for k, v in d["configs"][s].items() if k != "latency_histogram"}),
                    histograms(d["configs"][s].get("latency_histogram"), f"configs.{s}.latency_histogram"))
              for s in d["stacks"]]
    wl = d.get("workload") or {}
    return Source(path, "ttflash", f"Tiny-Tail Flash · {d.get('device')} · {wl.get('path') or wl.get('pattern') or ''}",
                  groups, d, op="read")


def _tails(path: Path, d: dict) -> Source:
    groups = [Group(r, flatten({k: v for k, v in d["configs"][r].items() if k != "latency_histogram"}),
                    histograms(d["configs"][r].get("latency_histogram"), f"configs.{r}.latency_histogram"))
              for r in d["rows"]]
    wl = d.get("workload") or {}
    what = Path(str(wl["path"])).name if wl.get("path") else wl.get("pattern") or ""
    return Source(path, "tails", f"Tail levers · {d.get('device')} · {what}",
                  groups, d, op="read")


def _tenants(path: Path, d: dict) -> Source:
    """Groups: each row's flows, run together (``row · flow``), with that flow's latency
    distributions: a CCDF of reads shows the reader under each setting."""
    groups = []
    for r in d["rows"]:
        c = d["configs"][r]
        hist = c.get("latency_histogram") or []
        for i, name in enumerate(d["flows"]):
            f = dict(c["together"]["flows"][i])
            f["latency_us"] = issued(f["latency_us"])
            scalars = flatten({**f, "slowdown": c["slowdown"][i], "fairness": c["fairness"],
                               "throughput_iops": c["throughput_iops"]})
            h = histograms(hist[i], f"configs.{r}.latency_histogram[{i}]") if i < len(hist) else {}
            groups.append(Group(f"{r} · {name}", scalars, h, facet=str(name)))
    return Source(path, "tenants", f"Tenants · {d.get('device')} · {', '.join(map(str, d['flows']))}", groups, d,
                  op="read")


def _slc(path: Path, d: dict) -> Source:
    groups = []
    for u, runs in d["utilisations"].items():
        for name, p in runs["policies"].items():
            groups.append(Group(name, flatten(p), facet=f"utilisation {float(u):.0%}"))
    return Source(path, "slc", f"SLC cache · {d.get('device')} · {d.get('workload')}", groups, d, op="write")


def _fill(path: Path, d: dict) -> Source:
    pts = d.get("points", [])
    g = Group(str(d.get("slc_policy")), flatten({k: v for k, v in d.items() if k != "points"}),
              series=series_of({"written_gb": [p["written_gb"] for p in pts], "mb_s": [p["mb_s"] for p in pts]}, "points"))
    return Source(path, "fill", f"Fill curve · {d.get('device')} · SLC policy {d.get('slc_policy')}", [g], d)


def _offline(path: Path, d: dict) -> Source:
    for c in d.get("convergence") or []:
        float(c["playouts"]), float(c["internal_writes"])
    groups = [Group(m, flatten({k: v for k, v in r.items() if k not in ("convergence", "schedule", "params")}))
              for m, r in d["methods"].items()]
    groups += [Group(f"placement: {p}", flatten(r)) for p, r in (d.get("placements") or {}).items()]
    prob = d.get("problem") or {}
    return Source(path, "offline", f"Offline cleaning · {prob.get('blocks', '?')} blocks × {prob.get('pages_per_block', '?')} pages",
                  groups, d)


def _offline_toy(path: Path, d: dict) -> Source:
    groups = []
    for trace, t in d["traces"].items():
        for m, r in t["methods"].items():
            groups.append(Group(m, flatten({k: v for k, v in r.items() if k not in ("convergence", "schedule", "params")}),
                                facet=trace))
    return Source(path, "offline-toy", "Offline cleaning · Table I toy traces", groups, d)


def _detect(path: Path, d: dict) -> Source:
    """Groups: the TRIM comparison's runs (one per mode), with per-second write bandwidth."""
    m = d.get("management") or {}
    groups = []
    for i, r in enumerate(m.get("runs", [])):
        sr = series_of({"write_mb_s": r.get("write_mb_s", []), "gc_fraction": r.get("gc_fraction", [])},
                       f"management.runs[{i}]")
        groups.append(Group(str(r["mode"]), flatten({k: v for k, v in r.items() if not isinstance(v, list)}),
                            series={"time_s": np.arange(1, len(sr["write_mb_s"]) + 1, dtype=float), **sr}))
    src = Source(path, "detect", f"Host-side GC detection · {d.get('device')} · {d.get('features')} attributes", groups, d)
    if m.get("floor_mb_s"):
        src.about["bandwidth floor"] = f"{float(m['floor_mb_s']):.1f} MB/s"
    return src


def _slc_tune(path: Path, d: dict) -> Source:
    return Source(path, "slc-tune", f"SLC cache · ust's table tuned offline · {d.get('device', '')}", [], d)


def _qtable(path: Path, d: dict) -> Source:
    values = d["values"]
    if not isinstance(values, list) or not values:
        raise FieldError("values", "expected a table of numbers (an array of rows)")
    rows = [_numbers(r, f"values[{i}]") for i, r in enumerate(values)]
    ragged = next((i for i, r in enumerate(rows) if len(r) != len(rows[0])), None)
    if ragged is not None or not len(rows[0]):
        raise FieldError(f"values[{ragged or 0}]", f"{len(rows[ragged or 0])} values; expected one per action, "
                         f"as every row ({len(rows[0])})")
    for k, n in (("states", len(rows)), ("actions", len(rows[0]))):
        if d.get(k) != n:
            raise FieldError(k, f"expected {n} (the table's {'rows' if k == 'states' else 'columns'}), got {d.get(k)!r}"[:160])
    labels = d.get("action_labels")
    if labels is not None and (not isinstance(labels, list) or len(labels) != len(rows[0])):
        raise FieldError("action_labels", f"expected one label per action ({len(rows[0])})")
    return Source(path, "qtable", f"Q-table · {d.get('states')} states × {d.get('actions')} actions", [], d)


#: How a JSON file is recognised when it does not name its experiment: (test, reader).
READERS: dict[str, tuple[Callable[[dict], bool], Callable[[Path, dict], Source]]] = {
    "qtable": (lambda d: str(d.get("format", "")).startswith("ssdlab-qtable"), _qtable),
    "run": (lambda d: "setup" in d and "latency_us" in d and "waf" in d, _run),
    "rlgc": (lambda d: "schedulers" in d and "repeat" in d, _rlgc),
    "ttflash": (lambda d: "configs" in d and "stacks" in d, _ttflash),
    "tenants": (lambda d: "configs" in d and "rows" in d and "flows" in d, _tenants),
    "tails": (lambda d: "configs" in d and "rows" in d, _tails),
    "slc": (lambda d: "utilisations" in d and isinstance(d["utilisations"], dict), _slc),
    "fill": (lambda d: "points" in d and "cache_gb" in d, _fill),
    "offline-toy": (lambda d: d.get("table") == "I" and "traces" in d, _offline_toy),
    "offline": (lambda d: "methods" in d and "convergence" in d, _offline),
    "detect": (lambda d: "eval_runs" in d and "confusion" in d, _detect),
    "slc-tune": (lambda d: "candidates" in d and "table" in d, _slc_tune),
}


def _json(path: Path) -> Source:
    try:
        d = load_json(path, expected="the JSON ssdlab writes (--json)")
    except InputError as e:
        raise SourceError(str(e)) from None
    if not isinstance(d, dict):
        raise SourceError(f"{path}: expected a JSON object written by ssdlab (--json), got {type_name(d)}")
    return from_dict(d, path)


def from_dict(d: dict, path: Path) -> Source:
    """A result already in memory (an experiment writing its own report), named ``path``."""
    kind = d.get("experiment") if isinstance(d.get("experiment"), str) else None
    if kind == "offline" and d.get("table") == "I":
        kind = "offline-toy"
    if kind not in READERS:
        kind = next((k for k, (test, _) in READERS.items() if test(d)), None)
    if kind is None:
        raise SourceError(f"{path}: expected the --json of ssdlab run or of an experiment, a saved Q-table, "
                          "or a sweep results folder")
    trail = Trail()
    try:
        src = READERS[kind][1](path, tracked(d, trail))
    except SHAPE_ERRORS as e:
        raise SourceError(str(shape_error(path, trail, e, f"a {kind} result as ssdlab writes it"))) from None
    src.trail = trail
    if isinstance(d.get("command"), str):
        src.command = d["command"]
    for k, name in (("ssdlab_version", "ssdlab"), ("git_commit", "git commit")):
        if d.get(k):
            src.about.setdefault(name, str(d[k]))
    return src


def read_raw(src: Source, reader: Callable[[Source], Any], expected: str) -> Any:
    """``reader(src)`` (a plot drawing it, an experiment's tables of ``src.raw``), a field of
    the wrong shape being one :class:`SourceError` naming the file and the field."""
    trail = src.trail if src.trail is not None else Trail()
    try:
        return reader(src)
    except SHAPE_ERRORS as e:
        raise SourceError(str(shape_error(src.path, trail, e, expected))) from None


def _sweep(path: Path) -> Source:
    from ssdlab.sweeps.store import Store, StoreError

    store = Store(path)
    try:
        table = store.read()
    except StoreError as e:
        raise SourceError(str(e)) from None
    except ImportError:
        raise SourceError(f"{path}: reading a sweep store needs pyarrow: pip install 'ssdlab[parquet]'") from None
    rows = table.to_pylist()
    ok = [r for r in rows if r["status"] == "ok"]
    axes = varying_axes(rows)
    groups: dict[str, list[dict]] = {}
    for r in ok:
        groups.setdefault(", ".join(f"{short(a)}={r[a]}" for a in axes) or "all runs", []).append(r)
    out = []
    for label, rs in groups.items():
        scal = mean_scalars([{k: float(v) for k, v in r.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                              and v is not None} for r in rs])
        first = sorted(rs, key=lambda r: r.get("seed") or 0)[0]
        try:
            series = store.series(first["id"])
        except StoreError:  # a run whose series file is missing: drawn without one
            series = {}
        out.append(Group(label, scal, merge([store.histogram(r["id"]) for r in rs]), series,
                         keys={a: first[a] for a in axes}))
    out.sort(key=lambda g: [(0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v)) for v in g.keys.values()])
    specs = store.specs()
    command = " ; ".join(f"ssdlab sweep {path}/specs/{n}.toml -o {path}" for n in specs) or None
    versions = sorted({f"{r.get('ssdlab_version')} ({r.get('git_commit') or 'no git commit'})" for r in rows})
    about = {"runs": f"{len(rows)} ({len(ok)} ok, {len(rows) - len(ok)} errors)",
             "compared": ", ".join(short(a) for a in axes) or "nothing varies", "ssdlab": "; ".join(versions)}
    about.update({f"spec {n}": text for n, text in specs.items()})
    return Source(path, "sweep", f"Sweep {', '.join(specs) or path.name}", out, rows, command=command, about=about,
                  axes=axes)


#: Columns of a sweep row that configure the run (the rest are results and bookkeeping).
CONFIG = re.compile(r"^(device|seed|set\..+|workload\..+|options\..+)$")


def varying_axes(rows: list[dict]) -> list[str]:
    """Configuration columns whose value differs between runs, but the seed: what a sweep
    compares (the seeds of one configuration are averaged, their distributions merged)."""
    cols = [c for c in (rows[0] if rows else {}) if CONFIG.match(c) and c != "seed"]
    return [c for c in cols if len({json.dumps(r.get(c), sort_keys=True, default=str) for r in rows}) > 1]


def short(column: str) -> str:
    """``set.gc.victim`` → ``victim``; ``set.geometry.spare_factor`` → ``spare_factor``."""
    return column.rsplit(".", 1)[-1]


def load(path: Path | str) -> Source:
    """Read ``path`` (a file or a sweep's results folder)."""
    path = Path(path)
    if path.is_dir():
        return _sweep(path)
    if not path.exists():
        raise SourceError(f"{path}: no such file or folder; expected a --json result or a sweep results folder")
    return _json(path)
