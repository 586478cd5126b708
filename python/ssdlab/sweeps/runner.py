"""One run of a sweep, as a worker executes it, and the row it becomes.

:func:`execute` is what every executor runs (in this process, in a local worker process, or —
later — on a Ray worker): a :class:`~ssdlab.sweeps.spec.RunTask` in, an :class:`Outcome` out.
A run that fails is an outcome with ``status = "error"`` and the one-line message, never an
exception (only an interrupt propagates).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any, Optional

import numpy as np

from ssdlab import _core
from ssdlab.result import LatencySummary, Result
from ssdlab.simulate import CHUNK, Simulation
from ssdlab.errors import SsdlabError
from ssdlab.inputs import tomllib
from ssdlab.sweeps.spec import RunTask

#: Result fields that are configuration (already columns) or not scalars.
NOT_COLUMNS = ("device", "workload", "seed", "timing", "wall_time_s", "series", "iostat", "setup", "latency_histogram")
SCALARS = {"int": int, "float": float, "bool": bool}


@dataclass
class Outcome:
    """What became of one run."""

    id: str
    status: str  # "ok" or "error"
    error: Optional[str] = None
    #: Scalar results by column name (``waf``, ``latency_us.write.p99``, …); empty on error.
    results: dict[str, Any] = field(default_factory=dict)
    #: The run's time series (numpy columns); None on error.
    series: Optional[dict[str, np.ndarray]] = None
    #: Latency distributions by type (``op → (latency µs, count)``, logarithmic bins); None on error.
    histogram: Optional[dict[str, tuple[np.ndarray, np.ndarray]]] = None
    wall_time_s: float = 0.0
    attempts: int = 1


def one_line(message: str) -> str:
    return " ".join(str(message).split())


def execute(task: RunTask) -> Outcome:
    """Run ``task``; its failure (bad configuration, device full, a bug in the core) is an
    error outcome with the message."""
    start = time.perf_counter()
    try:
        sim = Simulation(task.device(), task.workload, task.options)
        while not sim.advance(CHUNK):
            pass
        r = sim.result()
    except SsdlabError as e:
        return Outcome(task.id, "error", one_line(str(e)), wall_time_s=time.perf_counter() - start)
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as e:  # noqa: BLE001 - a core panic (PanicException is a BaseException) is a row too
        return Outcome(task.id, "error", one_line(f"internal error ({type(e).__name__}): {e}"),
                       wall_time_s=time.perf_counter() - start)
    return Outcome(task.id, "ok", None, result_columns(r), {k: np.asarray(v) for k, v in r.series.items()},
                   sim.latency_distributions(), wall_time_s=time.perf_counter() - start)


def crashed(task: RunTask, attempts: int) -> Outcome:
    """The outcome of a run whose worker process died every time it ran it."""
    return Outcome(task.id, "error", f"the worker process died while running it (killed by a signal or out of "
                   f"memory), on each of {attempts} attempts", attempts=attempts)


def _typed(ann: str, value: Any) -> Any:
    return SCALARS[ann](value) if ann in SCALARS else value


def _loose(prefix: str, value: Any, out: dict[str, Any]) -> None:
    """A free-form result section (the hybrid device's report, the host file system's counters)."""
    if isinstance(value, dict):
        for k, v in value.items():
            _loose(f"{prefix}.{k}", v, out)
    elif value is None or isinstance(value, (bool, int, float, str)):
        if value is not None:
            out[prefix] = value
    else:
        out[prefix] = json.dumps(value)


def result_columns(r: Result) -> dict[str, Any]:
    """Every scalar of ``r`` by its ``--json`` path (``erase_per_block.mean``,
    ``latency_us.read.p99_9``), typed as the :class:`Result` fields declare them."""
    out: dict[str, Any] = {"workload_desc": r.workload}
    for f in fields(Result):
        if f.name in NOT_COLUMNS:
            continue
        ann, value = str(f.type), getattr(r, f.name)
        if ann in SCALARS:
            out[f.name] = _typed(ann, value)
        elif ann.startswith("dict[str, ") and ann[len("dict[str, "):-1] in SCALARS:
            for k, v in value.items():
                # A distribution (``erase_per_block.deciles``) is one JSON text column.
                out[f"{f.name}.{k}"] = json.dumps(v) if isinstance(v, list) else _typed(ann[len("dict[str, "):-1], v)
        elif f.name == "flows":
            # Several flows: each flow's figures as flows.<name>.<field> columns (none otherwise);
            # its latency distribution is not a column (the store keeps scalars).
            for flow in value:
                _loose(f"flows.{flow['name']}", {k: v for k, v in flow.items() if k not in ("name", "latency_histogram")}, out)
        elif ann == "Latency":
            for op in ("read", "write", "all"):
                summary = getattr(value, op)
                for lf in fields(LatencySummary):
                    out[f"{f.name}.{op}.{lf.name}"] = _typed(str(lf.type), getattr(summary, lf.name))
        else:
            _loose(f.name, value, out)
    # Derived: how far an open-loop run fell behind its arrivals (ssdlab run warns above 0.1),
    # and the share of requests GC blocked.
    out["backlog_fraction"] = float(r.backlog_fraction)
    out["blocked_fraction"] = float(r.blocked_fraction)
    return out


@lru_cache(maxsize=None)
def result_types() -> dict[str, str]:
    """Every scalar result column of a plain-device run and its Arrow type, so that an error
    row has them too (null) and a store's schema does not depend on which runs failed. Learnt
    from a one-request run on the ``tiny`` preset, not listed by hand."""
    from ssdlab import workload
    from ssdlab.simulate import build_options

    wl = workload.synthetic("uniform", 1)
    sim = Simulation("tiny", wl, build_options(wl))
    while not sim.advance(CHUNK):
        pass
    arrow = {bool: "bool_", int: "int64", float: "float64", str: "string"}
    return {k: arrow[type(v)] for k, v in result_columns(sim.result()).items()}


def device_name(resolved_toml: Optional[str]) -> Optional[str]:
    if resolved_toml is None:
        return None
    return tomllib.loads(resolved_toml).get("name")


def make_row(task: RunTask, outcome: Outcome) -> dict[str, Any]:
    """The store's row of a finished run: id, status, error, the run's keys, what identifies the
    device, every scalar result, wall time, attempts, versions and the setup (JSON) that
    ``ssdlab.rerun`` repeats."""
    import hashlib

    setup = task.setup()
    row: dict[str, Any] = {"id": task.id, "status": outcome.status, "error": outcome.error}
    row.update(task.config)
    row["device_name"] = device_name(task.resolved_toml)
    row["device_hash"] = hashlib.sha256(task.resolved_toml.encode()).hexdigest()[:16] if task.resolved_toml else None
    row.update({k: None for k in result_types()})
    row.update(outcome.results)
    row["wall_time_s"] = float(outcome.wall_time_s)
    row["attempts"] = int(outcome.attempts)
    row["ssdlab_version"] = _core.__version__
    row["git_commit"] = _core.__git_commit__
    row["setup"] = json.dumps(setup, sort_keys=True)
    return row
