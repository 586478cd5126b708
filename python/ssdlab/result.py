"""Typed results of a simulation, with the same fields as ``ssdlab run --json``."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    #: Flush commands (``OpKind::Flush``; a workload without them has count 0).
    flush: LatencySummary = LatencySummary(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


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
    #: Erase counts per block in the measured phase: ``min``, ``mean``, ``max``, ``cov``
    #: (standard deviation over mean), ``max_over_mean`` and ``deciles`` (a list: the count at
    #: 0 %, 10 %, …, 100 % of the blocks sorted by count; a sweep keeps it as JSON text).
    erase_per_block: dict[str, float]
    gc_invocations: int
    trimmed_pages: int
    unmapped_reads: int
    requests: dict[str, int]
    blocked_requests: int
    sim_time_s: float
    #: Simulated seconds from the first to the last arrival (see :attr:`backlog_fraction`).
    arrival_span_s: float
    gc_busy_s: float
    latency_us: Latency
    precondition_pages: int
    #: The hybrid SLC/QLC device's report (host pages per mode, migration, GC, write-time
    #: breakdown in ns); None on other device models.
    hybrid: dict[str, Any] | None = None
    #: The RAIN FTL's report (stripes, parity pages, rebuilt reads, the GC-tolerant flush's
    #: buffer); None on other FTLs.
    rain: dict[str, Any] | None = None
    #: The write cache's report (hit ratios, flushes, dirty pages, flash writes per host write,
    #: a power cut's losses); None without a write cache (``write_cache.mode = "off"``).
    write_cache: dict[str, Any] | None = None
    #: The cached map's report (``ftl.mapping = "cached"``: CMT hit ratios, translation page
    #: reads and writes, translation GC copies, WAF split by what wrote); None with the full map.
    mapping: dict[str, Any] | None = None
    #: The flash layer's report with suspension, a die scheduler or the error model on: ``suspension``
    #: (``flash.suspend``: reads that found their die busy, program and erase suspensions, the
    #: time they cost) and ``scheduling`` (``flash.scheduler``: reads and writes that passed
    #: queued work, how far it moved) and ``errors`` (``reliability.errors``: page reads,
    #: retried reads and their rate, retry steps, reads per soft tier, uncorrectable reads and
    #: the UBER, time spent retrying, the largest RBER seen), each present when on; None with
    #: none of them.
    flash: dict[str, Any] | None = None
    #: The host file system's counters of a file-system workload (bytes deleted, trimmed,
    #: pending, reallocated); None otherwise.
    host_fs: dict[str, Any] | None = None
    #: Flexible Data Placement (``[fdp]`` on): ``handle_type``, ``reclaim_groups``, ``handles``,
    #: ``reclaim_unit_bytes``, the statistics log page's ``host_bytes_written``,
    #: ``media_bytes_written`` and ``media_bytes_erased``, ``shared_gc_units_opened`` and
    #: ``placements`` (per placement identifier: ``host_pages``, ``units_opened``); None
    #: otherwise.
    fdp: dict[str, Any] | None = None
    #: A zoned device (``ftl.kind = "zoned"``): ``host`` (``cleaner`` or ``none``), ``zones``,
    #: ``blocks_per_zone``, ``zone_size_pages``, ``zone_capacity_pages``, what the device did
    #: (``device_pages_written``, ``device_pages_read``, ``block_erases``, ``device_waf``), the
    #: cleaner's ``host_pages_written``, ``cleaner_pages_copied`` and ``host_waf`` (None without
    #: it), the zone ``commands`` and rule ``violations`` by status, ``open_zones`` and
    #: ``active_zones`` at the end; None otherwise. The top-level ``waf`` is end to end.
    zns: dict[str, Any] | None = None
    #: Wear levelling (``[wear_leveling]`` on): ``dynamic``, ``static``, the static leveler's
    #: ``static_victims`` and ``static_pages_copied`` (in ``gc_pages_copied`` too) and
    #: ``table_resets``; None when off. The erase distribution itself is ``erase_per_block``
    #: (``min``, ``mean``, ``max``, ``cov``, ``max_over_mean``, ``deciles``) in every run.
    wear_leveling: dict[str, Any] | None = None
    #: Bad blocks and end of life (``[endurance]`` on): ``factory_bad_blocks``,
    #: ``worn_out_blocks``, ``failed_blocks``, ``program_failed_blocks`` and
    #: ``program_failed_pages_moved``, ``good_blocks``, ``spare_blocks`` (good blocks
    #: beyond what the logical space fills), ``host_bytes_written`` over the drive's life
    #: (preconditioning included) and ``end_of_life_host_bytes`` (None until the drive reached
    #: its end of life, where the run stopped); None when off.
    endurance: dict[str, Any] | None = None
    #: Read reclaim and refresh (``reliability.reclaim_reads``, ``reclaim_retries``,
    #: ``refresh_days``): ``asked`` (blocks asked to move), ``skipped`` (open, a victim already,
    #: empty or queued), ``blocks`` moved for their reads and their ``pages_copied``,
    #: ``refresh_blocks`` and ``refresh_pages_copied`` for their age (all in
    #: ``gc_pages_copied`` too); None when off.
    read_reclaim: dict[str, Any] | None = None
    #: Each flow's figures in a run of several (``{"kind": "flows", ...}``; ``[]`` otherwise):
    #: ``name``, ``priority``, ``first_page`` and ``pages`` (its logical range), ``requests``,
    #: ``latency_us`` (from submission, the queue wait included; ``read``/``write``/``all``
    #: summaries), ``queue_wait_us`` (submission to fetch), ``span_s``, ``iops``,
    #: ``read_mib_s``, ``write_mib_s``; and, with the numpy parts (``arrays``), its
    #: ``latency_histogram`` (``{op: {latency_us, count}}`` in the core's logarithmic bins, what
    #: a per-flow CCDF needs).
    flows: list[dict[str, Any]] = field(default_factory=list)
    wall_time_s: float = 0.0
    series: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    #: The host's ``iostat -x`` view, one row per interval, when the run kept it
    #: (``iostat_interval_us``): numpy columns ``t_s``, iostat's fields, ``gc_fraction``, ``gc_copy_fraction``, ``gc``.
    iostat: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    #: Everything needed to run it again (``ssdlab run --from result.json``,
    #: :func:`ssdlab.rerun`): ``ssdlab_version``, ``git_commit``, ``device`` (``source``,
    #: ``overrides`` and the resolved ``toml``), ``workload`` (the spec) and ``options``.
    setup: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: Latency distributions (timed runs): for ``read``, ``write`` and ``all``, an (n, 2) array
    #: of the HDR histogram's recorded buckets — (latency µs: the bucket's highest equivalent
    #: value, within 0.1 %; number of requests) in increasing latency. :meth:`cdf` turns one
    #: into a CDF; the JSON has them as ``latency_histogram.<op>.{latency_us, count}``.
    latency_histogram: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_core(cls, raw_json: str, series: dict[str, np.ndarray], wall_time_s: float,
                  iostat: dict[str, np.ndarray] | None = None, setup: dict[str, Any] | None = None,
                  latency_histogram: dict[str, np.ndarray] | None = None) -> "Result":
        raw = json.loads(raw_json)
        lat = raw.pop("latency_us")
        latency = Latency(**{k: LatencySummary(**lat[k]) for k in ("read", "write", "all", "flush") if k in lat})
        return cls(**raw, latency_us=latency, wall_time_s=wall_time_s, series=series, iostat=iostat or {},
                   setup=setup or {}, latency_histogram=latency_histogram or {})

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (series as lists)."""
        import numpy as np

        d = asdict(self)
        for k in ("hybrid", "rain", "write_cache", "mapping", "flash", "host_fs", "fdp", "zns", "wear_leveling", "endurance",
                  "read_reclaim"):
            if d[k] is None:
                del d[k]
        if not d["flows"]:
            del d["flows"]
        d["series"] = {k: np.asarray(v).tolist() for k, v in self.series.items()}
        if self.iostat:
            d["iostat"] = {k: np.asarray(v).tolist() for k, v in self.iostat.items()}
        else:
            del d["iostat"]
        if not self.setup:
            del d["setup"]
        d["latency_histogram"] = {op: {"latency_us": h[:, 0].tolist(), "count": h[:, 1].astype(np.int64).tolist()}
                                  for op, h in self.latency_histogram.items() if len(h)}
        if not d["latency_histogram"]:
            del d["latency_histogram"]
        return d

    def cdf(self, op: str = "all") -> tuple[np.ndarray, np.ndarray]:
        """The latency CDF of ``op`` (``read``, ``write`` or ``all``): (latency µs, fraction of
        requests at or below it), one point per histogram bucket."""
        import numpy as np

        if op not in ("read", "write", "all"):
            raise ValueError(f"op: expected read, write or all, got {op!r}")
        h = self.latency_histogram.get(op)
        if h is None or not len(h):
            return np.zeros(0), np.zeros(0)
        counts = np.cumsum(h[:, 1])
        return h[:, 0].copy(), counts / counts[-1]

    @property
    def backlog_fraction(self) -> float:
        """How far the last completion trailed the last arrival, as a fraction of the arrivals'
        span: near 0 when the device kept up with an open-loop workload; well above it when the
        offered load exceeded what the device (with its GC) could serve, so that latencies
        measure the growing queue rather than the device."""
        return (self.sim_time_s - self.arrival_span_s) / self.arrival_span_s if self.arrival_span_s > 0 else 0.0

    @property
    def blocked_fraction(self) -> float:
        total = self.requests.get("total", 0)
        return self.blocked_requests / total if total else 0.0
