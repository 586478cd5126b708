"""Workload specifications: a trace file, a seeded synthetic generator or a file-system
benchmark (see the core's ``trace::spec`` and ``trace::fs``). These are plain dicts passed to
the core as JSON."""
from __future__ import annotations

import operator
import os
from pathlib import Path
from typing import Any, Optional

WorkloadSpec = dict

#: The core's integer widths: what its JSON fields (u32, u64) take.
U32 = 2**32 - 1
U64 = 2**64 - 1


# -- Argument checks, shared by the API (simulate, Device, the builders here) and the Gymnasium
# environments (issue 58): a wrong type or value is refused at the boundary with a message that
# names the argument, says what was expected and shows what was given, instead of an
# AttributeError from inside, serde's "invalid type ... expected u64" naming no field, or an
# action rounded by int(). They live here because this module imports no other ssdlab module
# at load time, so that every other one can use them.


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type: a ``TypeError``, and a ``ValueError`` too, because the
    SLC environment raised ``ValueError`` for these before (callers catching it still do)."""


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters: a message stays one short line even when the
    value it shows is a 10 kB string."""
    return text if len(text) <= limit else f"{text[:limit - 3]}..."


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, clipped (:func:`clip`); a value nested too deep to repr (a damaged
    file's) is described instead."""
    try:
        return clip(repr(value), limit)
    except RecursionError:
        return f"<a {type(value).__name__} nested too deep to show>"


def wrong_type(name: str, expected: str, value: Any) -> ArgumentTypeError:
    return ArgumentTypeError(f"{name}: expected {expected}, got {shown(value)} ({type(value).__name__})")


def _is_bool(value: Any) -> bool:
    # numpy's bool is no integer either; told by name, so that this module never imports numpy.
    return isinstance(value, bool) or type(value).__name__ in ("bool_", "bool")


def _span(lo: int, hi: Optional[int]) -> str:
    if hi is None:
        return f"an integer >= {lo}"
    return f"an integer in {lo}..{hi}" if hi - lo < 10_000 else f"an integer >= {lo} (at most {hi})"


def integer(name: str, value: Any, lo: int = 0, hi: Optional[int] = U64, error: type = ValueError) -> int:
    """``value`` as a Python int in ``lo..hi``: ints and numpy integers (what a numpy
    computation or ``action_space.sample()`` gives), never a bool or a float — 1.5 is not
    rounded, and 1.0 is refused alike (``Discrete.contains`` refuses it too). Out of range:
    ``error`` (the ssdlab error of the argument's kind, or ``ValueError``)."""
    try:
        v = None if _is_bool(value) else operator.index(value)
    except TypeError:
        v = None
    if v is None:
        raise wrong_type(name, _span(lo, hi), value)
    if v < lo or (hi is not None and v > hi):
        raise error(f"{name}: expected {_span(lo, hi)}, got {v}")
    return v


def optional_integer(name: str, value: Any, lo: int = 0, hi: Optional[int] = U64,
                     error: type = ValueError) -> Optional[int]:
    return None if value is None else integer(name, value, lo, hi, error)


def real(name: str, value: Any) -> float:
    """``value`` as a Python float (numpy floats included; JSON takes no ``float32``); its
    range is the core's to check (one copy of each limit)."""
    if _is_bool(value) or isinstance(value, (str, bytes)):
        raise wrong_type(name, "a number", value)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise wrong_type(name, "a number", value) from None


def optional_real(name: str, value: Any) -> Optional[float]:
    return None if value is None else real(name, value)


def flag(name: str, value: Any) -> bool:
    if value is True or value is False:
        return value
    if type(value).__name__ in ("bool_", "bool"):
        return bool(value)
    raise wrong_type(name, "True or False", value)


def text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise wrong_type(name, "a string", value)
    return value


def overrides_of(value: Any, name: str = "overrides") -> tuple[str, ...]:
    """``section.key=value`` strings as a tuple. One string is refused: iterated, it would be
    one override per character (``config --set g: expected section.key=value``)."""
    if isinstance(value, (str, bytes)):
        raise wrong_type(name, "a list of 'section.key=value' strings, not one string", value)
    try:
        items = tuple(value)
    except TypeError:
        raise wrong_type(name, "a list of 'section.key=value' strings", value) from None
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise wrong_type(f"{name}[{i}]", "a 'section.key=value' string", item)
    return items


def spec_of(value: Any, name: str = "workload") -> WorkloadSpec:
    """A workload spec: a dict (:func:`synthetic`, :func:`trace`, :func:`fs`, :func:`preset`)."""
    if not isinstance(value, dict):
        raise wrong_type(name, "a workload spec dict (ssdlab.workload.synthetic, trace, fs or preset)", value)
    return value


def callback(name: str, value: Any) -> None:
    """``None`` or a callable: checked before the run, not when first called, a chunk in."""
    if value is not None and not callable(value):
        raise wrong_type(name, "None or a callable", value)


def _count(name: str, value: Any, hi: int = U64, lo: int = 1) -> int:
    """A workload's count (requests, passes, pages: at least 1 unless ``lo`` says): out of
    range, the ``WorkloadError`` the core's own checks of a workload give."""
    from ssdlab.errors import WorkloadError

    return integer(f"workload: {name}", value, lo, hi, WorkloadError)


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
    if not isinstance(path, (str, os.PathLike)):
        raise wrong_type("workload: path", "a trace file's path", path)
    spec: dict[str, Any] = {"kind": "trace", "path": os.fspath(path), "format": text("workload: format", format),
                            "lba_map": text("workload: lba_map", lba_map)}
    if device is not None:
        spec["device"] = _count("device", device, U32, lo=0)
    if max_requests is not None:
        spec["max_requests"] = _count("max_requests", max_requests)
    if blkparse_action is not None:
        spec["blkparse_action"] = text("workload: blkparse_action", blkparse_action)
    if allow_empty is not None:
        spec["allow_empty"] = flag("workload: allow_empty", allow_empty)
    repeat = None if repeat is None else _count("repeat", repeat, U32)
    repeat_shift = None if repeat_shift is None else flag("workload: repeat_shift", repeat_shift)
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
    requests = _count("requests", requests)
    if request_pages is not None:
        request_pages = _count("request_pages", request_pages, U32)
    reals = {"read_fraction": read_fraction, "footprint_fraction": footprint_fraction,
             "hot_write_fraction": hot_write_fraction, "hot_space_fraction": hot_space_fraction,
             "zipf_theta": zipf_theta}
    read_fraction, footprint_fraction, hot_write_fraction, hot_space_fraction, zipf_theta = (
        optional_real(f"workload: {k}", v) for k, v in reals.items())
    if arrival is not None and not isinstance(arrival, dict):
        raise wrong_type("workload: arrival", "None or a dict such as {'kind': 'poisson', 'iops': 1000}", arrival)
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
    spec: WorkloadSpec = {"kind": "fs", "personality": personality, "requests": _count("requests", requests)}
    # numpy scalars as Python numbers: JSON takes no np.int64 (the core checks every value).
    spec.update({k: v.item() if type(v).__module__ == "numpy" and hasattr(v, "item") else v
                 for k, v in options.items() if v is not None})
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
    return {"kind": "preset", "name": name, "requests": _count("requests", requests)}


def preset_names() -> list[str]:
    from ssdlab import _core

    return [row[0] for row in _core.workload_presets()]


def is_closed(spec: WorkloadSpec) -> bool:
    """Whether the workload has no arrival times of its own (then it is replayed closed-loop)."""
    arrival = spec.get("arrival") or {}
    if not isinstance(arrival, dict):  # a hand-written spec's; the builders check their own
        raise wrong_type("workload: arrival", "a dict such as {'kind': 'closed'}", arrival)
    if spec.get("kind") == "flows":
        # A run of flows replays each flow its own way; the run's replay is closed when any
        # flow's workload is (its queue depth then reaches those flows).
        return any(isinstance(f, dict) and isinstance(f.get("workload"), dict) and is_closed(f["workload"])
                   for f in spec.get("flows") or [])
    return spec.get("kind") in ("synthetic", "fs") and arrival.get("kind", "closed") == "closed"


def total_requests(spec: WorkloadSpec) -> Optional[int]:
    """The number of requests when known in advance (for progress bars). An ``fs`` workload's
    prefill, setup and TRIMs come on top of its ``requests``: unknown."""
    if spec.get("kind") in ("synthetic", "preset"):
        return int(spec["requests"])
    if spec.get("kind") == "flows":
        each = [total_requests(f["workload"]) if isinstance(f, dict) and isinstance(f.get("workload"), dict) else None
                for f in spec.get("flows") or []]
        return None if None in each or not each else sum(each)  # type: ignore[arg-type]
    return spec.get("max_requests")


def flows(*flow_specs: dict[str, Any]) -> WorkloadSpec:
    """Several flows in one run, each through its own submission queue: every argument is a
    dict with ``workload`` (a spec from :func:`trace`, :func:`synthetic`, :func:`preset` or
    :func:`fs`) and optionally ``name``, ``replay`` (``{"mode": "closed-loop", "queue_depth":
    4}`` or ``{"mode": "open-loop", "time_scale": 1.0}``; default: as the workload alone would
    be replayed), ``priority`` (``urgent``, ``high``, ``medium`` (default) or ``low``: the
    NVMe class its queue has under ``host.arbitration = "weighted-round-robin"``) and
    ``range`` (``"partition"`` (default: flow i of n gets the i-th n-th of the logical space),
    ``"shared"`` or ``{"start": 0.5, "size": 0.25}``, fractions of the space). The core checks
    each field and names the flow in its error."""
    if not flow_specs:
        raise ArgumentTypeError("flows: expected at least one flow (a dict with a 'workload')")
    for i, f in enumerate(flow_specs):
        if not isinstance(f, dict):
            raise wrong_type(f"flows[{i}]", "a dict with a 'workload' and optional name, replay, priority, range", f)
    return {"kind": "flows", "flows": [dict(f) for f in flow_specs]}


def flows_file(path: "str | os.PathLike[str]") -> WorkloadSpec:
    """A flows file's spec: TOML with one ``[[flow]]`` table per flow, with :func:`flows`'s
    fields (``workload`` an inline table such as ``{kind = "preset", name = "home1", requests
    = 50000}``); a trace's relative path is taken from the file's directory."""
    import json

    from ssdlab import _core  # here, not at the top: this module imports no other ssdlab module
    from ssdlab.errors import WorkloadError

    p = os.fspath(path)
    try:
        text = open(p, encoding="utf-8-sig").read()
    except (OSError, UnicodeDecodeError) as e:
        raise WorkloadError(f"{p}: cannot read the flows file: {getattr(e, 'strerror', None) or e}") from None
    return json.loads(_core.flows_json(text, p))
