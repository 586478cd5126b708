"""Columnar tables (a dict of equal-length numpy arrays) written as CSV or Parquet.

CSV needs nothing beyond the standard library; Parquet needs ``pyarrow`` (the optional extra
``pip install 'ssdlab[parquet]'``), chosen because it writes typed columns without pulling a
dataframe library into the core install.
"""
from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    import numpy as np

#: Columns written as integers (0/1 labels and counts stored as floats by the core).
INTEGER_COLUMNS = frozenset({"gc"})


def table_format(path: Path) -> str:
    """``csv`` or ``parquet`` from the file name; a ValueError naming what was expected."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    raise ValueError(f"{path}: expected a .csv or .parquet file name, got '{suffix or 'no extension'}'")


def check_writable(path: Path) -> None:
    """Fail before a long run rather than after it: the format is known and the folder is
    writable (a ValueError naming the path otherwise)."""
    fmt = table_format(path)
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(f"{path}: writing Parquet needs pyarrow: pip install 'ssdlab[parquet]' (or write .csv)") from None
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"{path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{path}: folder {folder} is not writable")


def write_table(columns: Mapping[str, np.ndarray], path: Path) -> None:
    """Write ``columns`` to ``path`` (``.csv`` or ``.parquet``), via a temporary file renamed into
    place so an interrupted write leaves no half-written table."""
    import numpy as np

    path = Path(path)
    fmt = table_format(path)
    cols = {k: (np.asarray(v).astype(np.int64) if k in INTEGER_COLUMNS else np.asarray(v)) for k, v in columns.items()}
    tmp = path.with_name(path.name + ".tmp")
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table(cols), tmp)
    else:
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(list(cols))
            for row in zip(*(c.tolist() for c in cols.values())):
                w.writerow([repr(v) if isinstance(v, float) else v for v in row])
    os.replace(tmp, path)


def read_csv_table(path: Path) -> dict[str, np.ndarray]:
    """Read back a table written by :func:`write_table` as CSV."""
    import numpy as np

    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return {name: np.array([float(r[i]) for r in body]) for i, name in enumerate(header)}
