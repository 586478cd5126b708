"""Workload specifications: a trace file, a seeded synthetic generator or a file-system
benchmark (see the core's ``trace::spec`` and ``trace::fs``). These are plain dicts passed to
the core as JSON."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

WorkloadSpec = dict


def _check_name(field: str, name: Optional[str], names: Any) -> None:
    """A name the core would refuse, refused now (not when the workload is first run)."""
    if name is not None and name not in names:
        from ssdlab.errors import WorkloadError

        raise WorkloadError(f"workload: {field}: expected one of {', '.join(names)}, got {name!r}")


def trace(
    path: str | Path,
    *,
    format: str = "auto",
    device: Optional[int] = None,
    lba_map: str = "none",
    max_requests: Optional[int] = None,
    blkparse_action: Optional[str] = None,
    allow_empty: Optional[bool] = None,
    repeat: Optional[int] = None,
    repeat_shift: Optional[bool] = None,
) -> WorkloadSpec:
    """A trace file (MSR, FIU, SPC, DiskSim/SSDsim, blkparse, VSCSI, CSV; gzip allowed).

    A trace that yields no request (an empty file, or every record skipped by ``device``, by
    blkparse action or by opcode) is an error naming the file and why, unless ``allow_empty``.
    ``repeat`` replays it that many times back to back (same addresses, each pass a mean
    inter-arrival gap after the previous one; ``max_requests`` counts over all passes);
    ``repeat_shift`` moves each pass's addresses past the previous pass's, so that every pass
    writes fresh pages (fold them onto the device with ``lba_map="modulo"``).
    """
    spec: dict[str, Any] = {"kind": "trace", "path": str(path), "format": format, "lba_map": lba_map}
    if device is not None:
        spec["device"] = device
    if max_requests is not None:
        spec["max_requests"] = max_requests
    if blkparse_action is not None:
        spec["blkparse_action"] = blkparse_action
    if allow_empty is not None:
        spec["allow_empty"] = allow_empty
    # Left out at the core's defaults, so that a run's setup names only what differs from a
    # plain replay (and reads as it did before these fields existed).
    from ssdlab import registry

    defaults = registry.defaults()["trace"]
    if repeat is not None and repeat != defaults["repeat"]:
        spec["repeat"] = repeat
    if repeat_shift is not None and repeat_shift != defaults["repeat_shift"]:
        spec["repeat_shift"] = repeat_shift
    return spec


def synthetic(
    pattern: Optional[str] = None,
    requests: int = 1_000_000,
    *,
    read_fraction: Optional[float] = None,
    request_pages: Optional[int] = None,
    footprint_fraction: Optional[float] = None,
    hot_write_fraction: Optional[float] = None,
    hot_space_fraction: Optional[float] = None,
    zipf_theta: Optional[float] = None,
    arrival: Optional[dict[str, Any]] = None,
) -> WorkloadSpec:
    """A seeded synthetic workload: a pattern of ``ssdlab.registry.names("synthetic pattern")``
    (``uniform``, ``hotcold``, ``zipf``, ``sequential``). Parameters left out take the core's
    defaults (``ssdlab.registry.defaults()["synthetic"]``).

    ``arrival`` is ``{"kind": "closed"}`` (default: replayed closed-loop), ``{"kind": "fixed",
    "interval_us": ..}``, ``{"kind": "poisson", "iops": ..}`` or ``{"kind": "on-off",
    "burst_requests": .., "burst_interval_us": .., "idle_mean_us": .., "idle": {"dist":
    "exponential" | "pareto" (shape) | "lognormal" (sigma) | "fixed"}}``.
    """
    from ssdlab import registry

    d = registry.defaults()["synthetic"]
    _check_name("pattern", pattern, registry.names("synthetic pattern"))
    given = {
        "pattern": pattern,
        "read_fraction": read_fraction,
        "request_pages": request_pages,
        "footprint_fraction": footprint_fraction,
        "hot_write_fraction": hot_write_fraction,
        "hot_space_fraction": hot_space_fraction,
        "zipf_theta": zipf_theta,
        "arrival": arrival,
    }
    spec: WorkloadSpec = {"kind": "synthetic", "requests": requests}
    spec.update({k: d[k] if v is None else v for k, v in given.items()})
    return spec


def fs(personality: str, requests: int = 100_000, **options: Any) -> WorkloadSpec:
    """A benchmark on a host file system (the core's ``trace::fs``, issue 13): ``personality``
    is one of ``ssdlab.registry.names("fs personality")`` (``fio-randwrite``, ``fileserver``,
    ``varmail``, ``iozone``); ``requests`` counts its reads and writes (prefill, setup and
    TRIMs are extra).

    Options, by the core's field names (``ssdlab.registry.defaults()["fs"]["spec"]``; left out
    or ``None``: the core's default, per personality in ``...["fs"]["personalities"]``):
    ``trim`` (``"none"`` or ``"discard"``), ``stale_fraction`` (the first this fraction of the
    logical space is written once and deleted before the run, not trimmed), ``partition_fraction``,
    ``fileset_fraction``, ``nthreads``, ``mean_file_kib``, ``append_kib`` (filebench),
    ``io_kib``, ``file_mib`` (iozone), ``arrival`` (as for :func:`synthetic`; default closed).
    The core checks every value; an unknown name is a ``ValueError`` listing the known ones.
    """
    from ssdlab import registry

    _check_name("personality", personality, registry.names("fs personality"))
    known = registry.defaults()["fs"]["spec"]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(f"fs: unknown option {unknown[0]!r}; expected one of: {', '.join(known)}")
    spec: WorkloadSpec = {"kind": "fs", "personality": personality, "requests": requests}
    spec.update({k: v for k, v in options.items() if v is not None})
    return spec


def fs_personalities() -> tuple[str, ...]:
    """The personalities :func:`fs` accepts, from the core's registry."""
    from ssdlab import registry

    return registry.names("fs personality")


def preset(name: str, requests: int = 200_000) -> WorkloadSpec:
    """A named synthetic stand-in for one row of Kang et al. (TECS 2017) Table 1 (``home1``…
    ``oltp``; ``ssdlab.workload.preset_names()``). Stand-ins, not the traces: they match the
    row's write ratio, mean interval and mean request size, with bursty idle periods and
    hot/cold overwrites chosen by us."""
    _check_name("preset", name, preset_names())
    return {"kind": "preset", "name": name, "requests": requests}


def preset_names() -> list[str]:
    from ssdlab import _core

    return [row[0] for row in _core.workload_presets()]


def is_closed(spec: WorkloadSpec) -> bool:
    """Whether the workload has no arrival times of its own (then it is replayed closed-loop)."""
    return spec.get("kind") in ("synthetic", "fs") and (spec.get("arrival") or {}).get("kind", "closed") == "closed"


def total_requests(spec: WorkloadSpec) -> Optional[int]:
    """The number of requests when known in advance (for progress bars). An ``fs`` workload's
    prefill, setup and TRIMs come on top of its ``requests``: unknown."""
    if spec.get("kind") in ("synthetic", "preset"):
        return int(spec["requests"])
    return spec.get("max_requests")
