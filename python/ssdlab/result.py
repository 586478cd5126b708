"""Typed results of a simulation, with the same fields as ``ssdlab run --json``."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

PERCENTILE_KEYS = ("mean", "p50", "p90", "p99", "p99_9", "p99_99", "p99_999", "p99_9999", "max")


@dataclass(frozen=True)
class LatencySummary:
    """Latency of one operation type, microseconds (percentiles to 3 significant digits)."""

    count: int
    mean: float
    p50: float
    p90: float
    p99: float
    p99_9: float
    p99_99: float
    p99_999: float
    p99_9999: float
    max: float


@dataclass(frozen=True)
class Latency:
    read: LatencySummary
    write: LatencySummary
    all: LatencySummary


@dataclass(frozen=True)
class Result:
    """What a run measured (measured phase only; preconditioning excluded)."""

    device: str
    workload: str
    seed: int
    timing: bool
    waf: float
    host_pages_written: int
    host_pages_read: int
    gc_pages_copied: int
    erases: int
    erase_per_block: dict[str, float]
    gc_invocations: int
    trimmed_pages: int
    unmapped_reads: int
    requests: dict[str, int]
    blocked_requests: int
    sim_time_s: float
    gc_busy_s: float
    latency_us: Latency
    precondition_pages: int
    #: The hybrid SLC/QLC device's report (host pages per mode, migration, GC, write-time
    #: breakdown in ns); None on other device models.
    hybrid: dict[str, Any] | None = None
    #: The host file system's counters of a file-system workload (bytes deleted, trimmed,
    #: pending, reallocated); None otherwise.
    host_fs: dict[str, Any] | None = None
    wall_time_s: float = 0.0
    series: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    #: The host's ``iostat -x`` view, one row per interval, when the run kept it
    #: (``iostat_interval_us``): numpy columns ``t_s``, iostat's fields, ``gc_fraction``, ``gc_copy_fraction``, ``gc``.
    iostat: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_core(cls, raw_json: str, series: dict[str, np.ndarray], wall_time_s: float,
                  iostat: dict[str, np.ndarray] | None = None) -> "Result":
        raw = json.loads(raw_json)
        lat = raw.pop("latency_us")
        latency = Latency(**{k: LatencySummary(**lat[k]) for k in ("read", "write", "all")})
        return cls(**raw, latency_us=latency, wall_time_s=wall_time_s, series=series, iostat=iostat or {})

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (series as lists)."""
        d = asdict(self)
        for k in ("hybrid", "host_fs"):
            if d[k] is None:
                del d[k]
        d["series"] = {k: np.asarray(v).tolist() for k, v in self.series.items()}
        if self.iostat:
            d["iostat"] = {k: np.asarray(v).tolist() for k, v in self.iostat.items()}
        else:
            del d["iostat"]
        return d

    @property
    def blocked_fraction(self) -> float:
        total = self.requests.get("total", 0)
        return self.blocked_requests / total if total else 0.0
