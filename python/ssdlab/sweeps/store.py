"""The results store of a sweep: a folder of Parquet files, one row per run.

::

    RESULTS/
      ssdlab-sweep.json      marks the folder as a store (format version)
      results.parquet        the rows, compacted when a sweep completes
      rows/<id>.parquet      one row per run finished since the last compaction
      series/<id>.parquet    each successful run's time series
      .lock                  held while a sweep writes

Every file is written to a temporary name beside it, flushed to disk and renamed into place
(``os.replace``), so an interrupted sweep (Ctrl-C, a killed process, a full disk) leaves every
finished row whole and no half-written file under a real name; the row is written after its
series, so a row's presence means its run is finished. Reading concatenates the compacted table
and the row files; a run present in both is taken from its row file (the newer).

Why Parquet through pyarrow: typed columns (counts stay integers, latencies floats, missing
values null), a row file per run appends without rewriting anything, any dataframe library
(pandas, polars, DuckDB) reads it, and writing needs only pyarrow, no dataframe library.
"""
from __future__ import annotations

import json
import re
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

import numpy as np

from ssdlab.errors import SsdlabError
from ssdlab.inputs import Fields, InputError, load_json

MARKER = "ssdlab-sweep.json"
FORMAT = 1
RESULTS = "results.parquet"
ROWS = "rows"
SERIES = "series"
HISTOGRAMS = "histograms"
#: The specifications swept into the store, by sweep name (the report's "how to reproduce").
SPECS = "specs"
NEEDS = "the sweep results store needs pyarrow: pip install 'ssdlab[parquet]'"
#: Columns in front of the rest, in this order.
FIRST = ("id", "status", "error")
#: Columns behind the rest, in this order.
LAST = ("wall_time_s", "attempts", "ssdlab_version", "git_commit", "setup")
#: Columns typed whatever a row's values are (missing values stay null of this type).
FIXED_TYPES = {"id": "string", "status": "string", "error": "string", "device_name": "string",
               "device_hash": "string", "workload_desc": "string", "wall_time_s": "float64", "attempts": "int64",
               "ssdlab_version": "string", "git_commit": "string", "setup": "string"}


class StoreError(SsdlabError):
    """The store cannot be used, read or written (one line naming the path). An ssdlab error
    (issue 58: every error the CLI can raise is one), no longer an ``OSError``."""


def pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise ImportError(NEEDS) from None
    return pa


def _array(pa: Any, name: str, value: Any, types: Mapping[str, str]) -> Any:
    if name in FIXED_TYPES or name in types:
        return pa.array([value], getattr(pa, FIXED_TYPES.get(name) or types[name])())
    if value is None:
        return pa.array([None], pa.null())
    if isinstance(value, bool):
        return pa.array([value], pa.bool_())
    if isinstance(value, int):
        return pa.array([value], pa.int64()) if -2**63 <= value < 2**63 else pa.array([str(value)], pa.string())
    if isinstance(value, float):
        return pa.array([value], pa.float64())
    if isinstance(value, str):
        return pa.array([value], pa.string())
    return pa.array([json.dumps(value)], pa.string())


def row_table(row: Mapping[str, Any], types: Optional[Mapping[str, str]] = None) -> Any:
    """One row as a typed pyarrow table; ``types`` gives the Arrow type (``int64``,
    ``float64``, ``bool_``, ``string``) of columns whose value may be missing."""
    pa = pyarrow()
    return pa.table({k: _array(pa, k, v, types or {}) for k, v in row.items()})


def write_atomic(table: Any, path: Path) -> None:
    """Write ``table`` as Parquet to ``path`` via a temporary file, flushed and renamed."""
    import pyarrow.parquet as pq

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            pq.write_table(table, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


def _concat(tables: list) -> Any:
    """Tables with different columns (sweeps of different specs) as one: missing columns null,
    int and float promoted to float, and columns whose types still disagree as text."""
    pa = pyarrow()
    if not tables:
        return pa.table({k: pa.array([], getattr(pa, FIXED_TYPES[k])()) for k in FIRST})
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        types: dict[str, set] = {}
        for t in tables:
            for f in t.schema:
                types.setdefault(f.name, set()).add(f.type)
        text = {n for n, ts in types.items() if len(ts - {pa.null()}) > 1}
        fixed = [t.cast(pa.schema([pa.field(f.name, pa.string()) if f.name in text else f for f in t.schema]))
                 for t in tables]
        return pa.concat_tables(fixed, promote_options="permissive")


def _ordered(table: Any) -> Any:
    names = table.column_names
    middle = [n for n in names if n not in FIRST and n not in LAST]
    return table.select([n for n in FIRST if n in names] + middle + [n for n in LAST if n in names])


class Store:
    """A results folder (created on :meth:`open` if missing)."""

    def __init__(self, root: Path | str):
        self.root = Path(root)
        self.rows = self.root / ROWS
        self.series_dir = self.root / SERIES
        self.histogram_dir = self.root / HISTOGRAMS
        self._lock: Optional[Any] = None

    # -- opening -------------------------------------------------------------------------
    def check(self) -> None:
        """Raise :class:`StoreError` if ``root`` is not a store nor a place for one."""
        root = self.root
        if root.exists() and not root.is_dir():
            raise StoreError(f"{root}: exists and is not a folder; expected a results folder")
        if root.is_dir() and any(root.iterdir()) and not (root / MARKER).is_file():
            raise StoreError(f"{root}: a folder that is not a sweep results store (no {MARKER}); "
                             "expected a new or empty folder, or a store")
        parent = root.parent if str(root.parent) else Path(".")
        if not root.exists() and not parent.is_dir():
            raise StoreError(f"{root}: folder {parent} does not exist")

    def open(self) -> "Store":
        """Create the store if needed, take its lock and remove temporary files an interrupted
        sweep left."""
        pyarrow()
        self.check()
        try:
            self.rows.mkdir(parents=True, exist_ok=True)
            self.series_dir.mkdir(exist_ok=True)
            self.histogram_dir.mkdir(exist_ok=True)
            marker = self.root / MARKER
            if not marker.exists():
                marker.write_text(json.dumps({"format": FORMAT, "kind": "ssdlab sweep results"}) + "\n")
            self._take_lock()
        except OSError as e:
            raise StoreError(f"{self.root}: cannot write: {e.strerror or e}") from None
        self._check_marker()
        for d in (self.root, self.rows, self.series_dir, self.histogram_dir):
            for tmp in d.glob(".*.tmp"):
                tmp.unlink()
        return self

    def _take_lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            return
        f = open(self.root / ".lock", "w")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise StoreError(f"{self.root}: another sweep is writing to this store") from None
        self._lock = f

    def close(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> "Store":
        return self.open()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------
    def write(self, row: Mapping[str, Any], series: Optional[Mapping[str, np.ndarray]] = None,
              types: Optional[Mapping[str, str]] = None,
              histogram: Optional[Mapping[str, tuple[np.ndarray, np.ndarray]]] = None) -> None:
        """Store a finished run: its series and latency distributions (if any), then its row
        (``types``: see :func:`row_table`). The row goes last: a run is stored once its row is."""
        pa = pyarrow()
        try:
            if series is not None:
                write_atomic(pa.table({k: np.asarray(v) for k, v in series.items()}),
                             self.series_dir / f"{row['id']}.parquet")
            if histogram is not None:
                ops = [op for op, (lat, _) in histogram.items() for _ in range(len(lat))]
                write_atomic(pa.table({"op": pa.array(ops, pa.string()),
                                       "latency_us": np.concatenate([h[0] for h in histogram.values()]).astype(np.float64),
                                       "count": np.concatenate([h[1] for h in histogram.values()]).astype(np.int64)}),
                             self.histogram_dir / f"{row['id']}.parquet")
            write_atomic(row_table(row, types), self.rows / f"{row['id']}.parquet")
        except OSError as e:
            raise StoreError(f"{self.root}: cannot write run {row['id']}: {e.strerror or e}") from None

    def keep_spec(self, name: str, text: str) -> None:
        """Keep the text of the specification named ``name`` (``specs/NAME.toml``), so that the
        store says how it was made."""
        try:
            (self.root / SPECS).mkdir(exist_ok=True)
            path = self.root / SPECS / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name) or 'sweep'}.toml"
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(text)
            tmp.replace(path)
        except OSError as e:
            raise StoreError(f"{self.root}: cannot write: {e.strerror or e}") from None

    def specs(self) -> dict[str, str]:
        """The specifications kept in the store, ``name → TOML text``."""
        d = self.root / SPECS
        return {p.stem: p.read_text() for p in sorted(d.glob("*.toml"))} if d.is_dir() else {}

    def compact(self) -> int:
        """Fold the row files into ``results.parquet`` (written whole, then renamed) and remove
        them; returns the number of rows."""
        files = self._row_files()
        if not files:
            return self.read().num_rows if (self.root / RESULTS).exists() else 0
        table = self.read(files)
        try:
            write_atomic(table, self.root / RESULTS)
            for f in files:
                f.unlink()
        except OSError as e:
            raise StoreError(f"{self.root}: cannot compact: {e.strerror or e}") from None
        return table.num_rows

    # -- reading -------------------------------------------------------------------------
    def _check_marker(self) -> None:
        """The marker file says this is a store of the format this ssdlab reads."""
        path = self.root / MARKER
        try:
            fmt = Fields(load_json(path, expected="the marker of a sweep results store"), path).get("format", int)
        except InputError as e:
            raise StoreError(str(e)) from None
        if fmt != FORMAT:
            raise StoreError(f"{path}: format: store format {fmt}; this ssdlab reads format {FORMAT}")

    def exists(self) -> bool:
        return (self.root / MARKER).is_file()

    def _row_files(self) -> list[Path]:
        return sorted(p for p in self.rows.glob("*.parquet") if not p.name.startswith("."))

    def read(self, files: Optional[Iterable[Path]] = None) -> Any:
        """Every stored row as one pyarrow table (each run once, sorted by id)."""
        import pyarrow.parquet as pq

        if not self.exists():
            raise StoreError(f"{self.root}: not a sweep results store (no {MARKER})")
        self._check_marker()
        paths = ([self.root / RESULTS] if (self.root / RESULTS).exists() else []) + list(
            self._row_files() if files is None else files)
        tables = []
        for p in paths:
            tables.append(_read_table(p, {"id": "string", "status": "string"}))
        try:
            table = _concat(tables)
        except (ValueError, TypeError) as e:  # pyarrow's ArrowInvalid / ArrowTypeError
            raise StoreError(f"{self.root}: row files that do not fit together: {_one_line(e)}") from None
        last = {rid: i for i, rid in enumerate(table.column("id").to_pylist())}  # a run's newest row
        table = table.take(pyarrow().array([last[rid] for rid in sorted(last)], pyarrow().int64()))
        return _ordered(table)

    def statuses(self) -> dict[str, str]:
        """``id → status`` of every stored run."""
        t = self.read()
        return dict(zip(t.column("id").to_pylist(), t.column("status").to_pylist()))

    def histogram(self, run_id: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """A run's latency distributions, ``op → (latency µs, count)`` (empty: none stored)."""
        path = self.histogram_dir / f"{run_id}.parquet"
        if not path.is_file():
            return {}
        t = _read_table(path, {"op": "string", "latency_us": "double", "count": "int64"})
        op, lat, count = (t.column(n).to_numpy(zero_copy_only=False) for n in ("op", "latency_us", "count"))
        return {o: (lat[op == o], count[op == o]) for o in dict.fromkeys(op)}

    def series(self, run_id: str) -> dict[str, np.ndarray]:
        """A run's time series as numpy columns."""
        path = self.series_dir / f"{run_id}.parquet"
        if not path.is_file():
            raise StoreError(f"{path}: no time series for run {run_id} (an error row, or not in this store)")
        t = _read_table(path, {})
        try:
            return {n: t.column(n).to_numpy(zero_copy_only=False) for n in t.column_names}
        except (ValueError, TypeError) as e:
            raise StoreError(f"{path}: cannot read as time series: {_one_line(e)}") from None


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


def _read_table(path: Path, columns: Mapping[str, str]) -> Any:
    """The Parquet file ``path``, with ``columns`` (name → Arrow type) present and of that type:
    a truncated, foreign or mistyped file is a :class:`StoreError` naming it (and the column)."""
    import pyarrow.parquet as pq

    try:
        t = pq.read_table(path)
    except (OSError, ValueError, TypeError) as e:
        raise StoreError(f"{path}: cannot read as Parquet: {_one_line(e)}") from None
    for name, kind in columns.items():
        if name not in t.column_names:
            raise StoreError(f"{path}: {name}: missing column; expected a sweep results file")
        if str(t.schema.field(name).type) != kind and not (kind == "string" and str(t.schema.field(name).type) in ("large_string", "null")):
            raise StoreError(f"{path}: {name}: expected a {kind} column, got {t.schema.field(name).type}")
    return t
