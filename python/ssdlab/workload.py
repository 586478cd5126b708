"""Workload specifications: a trace file or a seeded synthetic generator (see the core's
``trace::spec``). These are plain dicts passed to the core as JSON."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

WorkloadSpec = dict


def trace(
    path: str | Path,
    *,
    format: str = "auto",
    device: Optional[int] = None,
    lba_map: str = "none",
    max_requests: Optional[int] = None,
    blkparse_action: Optional[str] = None,
) -> WorkloadSpec:
    """A trace file (MSR, FIU, SPC, DiskSim/SSDsim, blkparse, VSCSI, CSV; gzip allowed)."""
    spec: dict[str, Any] = {"kind": "trace", "path": str(path), "format": format, "lba_map": lba_map}
    if device is not None:
        spec["device"] = device
    if max_requests is not None:
        spec["max_requests"] = max_requests
    if blkparse_action is not None:
        spec["blkparse_action"] = blkparse_action
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


def preset(name: str, requests: int = 200_000) -> WorkloadSpec:
    """A named synthetic stand-in for one row of Kang et al. (TECS 2017) Table 1 (``home1``…
    ``oltp``; ``ssdlab.workload.preset_names()``). Stand-ins, not the traces: they match the
    row's write ratio, mean interval and mean request size, with bursty idle periods and
    hot/cold overwrites chosen by us."""
    return {"kind": "preset", "name": name, "requests": requests}


def preset_names() -> list[str]:
    from ssdlab import _core

    return [row[0] for row in _core.workload_presets()]


def is_closed(spec: WorkloadSpec) -> bool:
    """Whether the workload has no arrival times of its own (then it is replayed closed-loop)."""
    return spec.get("kind") == "synthetic" and (spec.get("arrival") or {}).get("kind", "closed") == "closed"


def total_requests(spec: WorkloadSpec) -> Optional[int]:
    """The number of requests when known in advance (for progress bars)."""
    if spec.get("kind") in ("synthetic", "preset"):
        return int(spec["requests"])
    return spec.get("max_requests")
