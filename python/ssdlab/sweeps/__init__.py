"""Sweeps (issue 14): grids of runs — devices × overrides × workloads × options × seeds — into a
resumable Parquet results store (``docs/sweep.md``).

>>> df = ssdlab.sweep("grid.toml", jobs=2, out="grid.results")   # doctest: +SKIP
>>> ssdlab.load("grid.results").groupby("set.gc.victim").waf.mean()  # doctest: +SKIP

``spec``: ``expand`` a specification into runs; ``store``: the results folder; ``executor``:
where runs execute (in this process, a local process pool; ``executor_ray``: on Ray); ``driver``: skip, run,
store, compact; ``cli``: ``ssdlab sweep``.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from ssdlab.inputs import read_text
from ssdlab.sweeps.keys import SpecError
from ssdlab.sweeps.spec import MAX_RUNS, RunTask, Sweep, expand

__all__ = ["sweep", "load", "series", "expand", "SpecError", "Sweep", "RunTask"]

NEEDS_PANDAS = "returns a pandas DataFrame: pip install 'ssdlab[parquet]' (pandas and pyarrow)"


def _pandas(what: str) -> Any:
    try:
        import pandas
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} {NEEDS_PANDAS}") from None
    return pandas


def sweep(spec: Union[str, Path, Mapping[str, Any]], *, jobs: Optional[int] = None,
          out: Union[str, Path, None] = None, retry_errors: bool = False, compact: bool = True,
          ray: Optional[str] = None, max_runs: int = MAX_RUNS) -> Any:
    """Run the sweep ``spec`` (a TOML path, or the same structure as a dict: ``{"base": {...},
    "grid": {...}, "runs": [...]}``) and return its rows, in the spec's order, as a pandas
    DataFrame (one row per run; columns as ``ssdlab.load``).

    ``jobs``: worker processes (None: one per CPU; 0: in this process). ``ray``: run on Ray
    instead — ``"local"`` (a Ray instance on this machine with ``jobs`` CPUs) or a cluster's
    address (``"ray://head:10001"``, ``"auto"``; ``jobs`` then caps the runs at once); an
    ``ImportError`` names the ``ray`` extra when Ray is missing. ``max_runs``: a spec that
    expands to more runs is refused before any is built. ``out``: the results
    folder, resumed if it holds an earlier run of the sweep (None: a temporary folder, removed
    afterwards — time series then are not kept). A spec that cannot be run raises
    :class:`SpecError` (a ``ConfigError``) before anything runs; runs that fail are rows with
    ``status == "error"``.
    """
    from ssdlab.sweeps.driver import execute_plan, plan
    from ssdlab.sweeps.executors import executor_for
    from ssdlab.sweeps.store import Store

    _pandas("ssdlab.sweep")
    if ray is not None:  # before anything runs: a bad address (ValueError), Ray missing (ImportError)
        from ssdlab.sweeps.executor_ray import check_address, require_ray
        ray = check_address(ray)
        require_ray()
    sw = expand(spec, max_runs)
    with tempfile.TemporaryDirectory(prefix="ssdlab-sweep-") as tmp:
        with Store(Path(out) if out is not None else Path(tmp) / "results") as store:
            if not isinstance(spec, Mapping):
                store.keep_spec(sw.name, read_text(Path(spec)))
            p = plan(sw, store, retry_errors)
            execute_plan(p, store, executor_for(jobs, len(p.todo), ray), compact=compact)
            table = store.read()
        ids = table.column("id").to_pylist()
        at = {rid: i for i, rid in enumerate(ids)}
        table = table.take([at[t.id] for t in sw.tasks])
        return table.to_pandas()


def load(results: Union[str, Path]) -> Any:
    """Every run of a results folder as a pandas DataFrame, one row per run (sorted by ``id``):
    ``id``, ``status`` (``ok``/``error``), ``error``, the runs' keys (``device``, ``seed``,
    ``set.gc.victim``, ``workload.requests``, …), ``device_name``, ``device_hash``, every scalar
    result by its ``--json`` path (``waf``, ``erases``, ``latency_us.write.p99``, …),
    ``wall_time_s``, ``attempts``, ``ssdlab_version``, ``git_commit`` and ``setup`` (JSON:
    ``ssdlab.rerun(json.loads(row.setup))`` repeats the run)."""
    from ssdlab.sweeps.store import Store

    _pandas("ssdlab.load")
    return Store(results).read().to_pandas()


def series(results: Union[str, Path], run_id: str) -> dict:
    """One run's time series (``time_s``, ``host_pages``, ``free_blocks``, ``waf``, ``gc_pages``,
    ``erases``, ``requests``) as numpy columns."""
    from ssdlab.sweeps.store import Store

    return Store(results).series(run_id)
