"""What each key of a sweep specification may hold: its type, its range, its registry family.

A run takes a device (``device``, ``set.<section>.<key>``), a workload (``workload.<field>``),
run options (``options.<name>``) and a ``seed``. Names come from the core's registries
(``ssdlab.registry``), workload fields and their defaults from the workload builders (which take
them from the core), run options from :func:`ssdlab.build_options`' signature, and numeric ranges
from the command line's one table (``ssdlab.cli_params.RANGES``, by the matching ``ssdlab run``
option), so a value the CLI refuses is refused here with the same words. Device keys (``set.*``)
are checked by the core itself when the spec is expanded (``spec.resolve_device``).
"""
from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ssdlab import registry, workload as wl
from ssdlab.cli_params import U64, Range, range_of
from ssdlab.errors import ConfigError
from ssdlab.simulate import build_options


class SpecError(ConfigError):
    """A sweep specification that cannot be run: ``<key>: <what was expected>, got <value>``
    (a :class:`ssdlab.ConfigError`)."""


#: The namespaces of a run's keys (``device`` and ``seed`` are keys themselves).
NAMESPACES = ("device", "seed", "set", "workload", "options")

#: The ``ssdlab run`` option whose range a spec key shares (cli_params.RANGES is the one table).
CLI_OPTION = {
    "seed": "--seed",
    "workload.requests": "--requests", "workload.read_fraction": "--read-fraction",
    "workload.request_pages": "--request-pages", "workload.footprint_fraction": "--footprint",
    "workload.hot_write_fraction": "--hot-writes", "workload.hot_space_fraction": "--hot-space",
    "workload.zipf_theta": "--zipf-theta", "workload.stale_fraction": "--stale-fraction",
    "workload.device": "--disk", "workload.max_requests": "--max-requests", "workload.repeat": "--repeat",
    "workload.arrival.iops": "--iops", "workload.arrival.interval_us": "--interval-us",
    "workload.arrival.burst_requests": "--burst-requests", "workload.arrival.burst_interval_us": "--burst-interval-us",
    "workload.arrival.idle_mean_us": "--idle-mean-us", "workload.arrival.idle.shape": "--idle-shape",
    "workload.arrival.idle.sigma": "--idle-shape",
    "options.queue_depth": "--queue-depth", "options.time_scale": "--time-scale",
    "options.max_requests": "--max-requests", "options.sample_interval_us": "--sample-interval",
    "options.precondition.random_passes": "--precondition-passes",
}
#: Ranges of keys no ``ssdlab run`` option shares.
OWN_RANGES = {"options.precondition.fill_fraction": Range(0, 1, lo_open=True)}

#: Keys whose value is a member of a registry family (checked against the core's names).
FAMILY = {
    "workload.pattern": "synthetic pattern", "workload.personality": "fs personality",
    "workload.trim": "TRIM mode", "workload.format": "trace format", "workload.lba_map": "LBA mapping",
    "workload.arrival.kind": "arrival process", "workload.arrival.idle.dist": "idle distribution",
}

#: Arrival processes' own fields (serde names of the core's ``trace::Arrival``; a test checks
#: that the kinds are the registry's).
ARRIVAL_FIELDS = {"closed": (), "fixed": ("interval_us",), "poisson": ("iops",),
                  "on-off": ("burst_requests", "burst_interval_us", "idle_mean_us", "idle")}
IDLE_FIELDS = ("dist", "shape", "sigma")
#: The parameter each idle distribution needs (the others need none).
IDLE_PARAM = {"pareto": "shape", "lognormal": "sigma"}
#: The core's ``device::Precondition`` fields.
PRECONDITION_FIELDS = {"sequential": bool, "random_passes": float, "fill_fraction": float}

#: Run options a sweep does not take (the sweep stores no iostat view) and why.
OPTIONS_REFUSED = {"iostat_interval_us": "the sweep stores no iostat view (use ssdlab run --iostat)",
                   "seed": "the seed is the key 'seed'"}
#: Sweep defaults that differ from ``build_options``': preconditioning on, as ``ssdlab run``
#: does (GC studies measure steady state).
OPTION_DEFAULTS = {"precondition": True}
REPLAY_MODES = ("auto", "open", "closed")

#: Which identifying field makes a workload of each kind (``workload.kind`` may also say it).
KIND_BY_FIELD = {"pattern": "synthetic", "name": "preset", "personality": "fs", "path": "trace",
                 "flows": "flows", "flows_file": "flows"}


def _signature_defaults(fn: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    return {n: p.default for n, p in inspect.signature(fn).parameters.items()
            if p.kind is p.KEYWORD_ONLY or (p.default is not p.empty and n not in skip)}


@lru_cache(maxsize=None)
def option_defaults() -> dict[str, Any]:
    """Every run option a sweep takes and its default (``build_options``' keyword arguments)."""
    d = {n: v for n, v in _signature_defaults(build_options).items() if n not in OPTIONS_REFUSED}
    d.update(OPTION_DEFAULTS)
    return d


@lru_cache(maxsize=None)
def workload_fields() -> dict[str, dict[str, Any]]:
    """Each workload kind's fields and their defaults (None: the core's own)."""
    synth = dict(registry.defaults()["synthetic"])
    synth["requests"] = inspect.signature(wl.synthetic).parameters["requests"].default
    fs_spec = {"personality": None, "requests": inspect.signature(wl.fs).parameters["requests"].default,
               **registry.defaults()["fs"]["spec"]}
    trace = {"path": None, **{n: p.default for n, p in inspect.signature(wl.trace).parameters.items() if n != "path"}}
    preset = {"name": None, "requests": inspect.signature(wl.preset).parameters["requests"].default}
    # Several flows (issue 61): inline (a list of flow tables, as ssdlab.workload.flows takes)
    # or a [[flow]] file; either is one value, not an axis (a grid varies flows_file).
    flows = {"flows": None, "flows_file": None}
    return {"synthetic": synth, "fs": fs_spec, "trace": trace, "preset": preset, "flows": flows}


@lru_cache(maxsize=None)
def _example_types() -> dict[str, type]:
    """The type of each numeric workload field, from the core's defaults (per personality too)."""
    out: dict[str, type] = {}
    samples = [f for f in workload_fields().values()] + list(registry.defaults()["fs"]["personalities"].values())
    for fields in samples:
        for k, v in fields.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in out:
                out[k] = type(v)
    return out


def got(value: Any) -> str:
    return repr(value)


def _number(key: str, value: Any, kind: type) -> Any:
    if isinstance(value, list):
        raise SpecError(f"{key}: expected one value (a list of values is an axis: put it in [grid]), got {got(value)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(f"{key}: expected {'a whole number' if kind is int else 'a number'}, got {got(value)}")
    if kind is int and isinstance(value, float):
        raise SpecError(f"{key}: expected a whole number, got {got(value)}")
    r = OWN_RANGES.get(key) or range_of([CLI_OPTION[key]] if key in CLI_OPTION else [], kind)
    if not r.holds(float(value)) or (kind is int and value > U64):
        raise SpecError(f"{key}: expected {r.describe(kind is int)}, got {got(value)}")
    return float(value) if kind is float else value


def _name(key: str, value: Any, names: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise SpecError(f"{key}: expected a name, one of: {', '.join(names)}, got {got(value)}")
    if value not in names:
        raise SpecError(f"{key}: expected one of: {', '.join(names)}, got {got(value)}")
    return value


def check_value(key: str, value: Any) -> Any:
    """``value`` of the flat ``key`` (``workload.read_fraction``) checked and made canonical
    (whole numbers given to a float field become floats); a :class:`SpecError` naming ``key``
    otherwise. ``set.*`` values pass through (the core checks them)."""
    ns = key.split(".", 1)[0]
    if isinstance(value, float) and not math.isfinite(value):
        raise SpecError(f"{key}: expected a finite number, got {got(value)}")
    if ns == "set":
        if key.count(".") < 2:
            raise SpecError(f"{key}: expected set.<section>.<key> (a device field, e.g. set.gc.victim)")
        return value
    if key == "device":
        if not isinstance(value, str) or not value:
            raise SpecError(f"device: expected a preset name or a device TOML file, got {got(value)}")
        return value
    if key == "seed":
        return _number(key, value, int)
    if ns == "workload":
        return _check_workload(key, value)
    if ns == "options":
        return _check_option(key, value)
    raise SpecError(f"{key}: unknown key; expected device, seed, set.<section>.<key>, workload.<field> or options.<name>")


def _check_workload(key: str, value: Any) -> Any:
    field = key[len("workload."):]
    if key in FAMILY:
        return _name(key, value, registry.names(FAMILY[key]))
    if field == "kind":
        return _name(key, value, tuple(workload_fields()))
    if field == "name":
        return _name(key, value, tuple(wl.preset_names()))
    if field == "flows":
        if not isinstance(value, list) or not value or not all(isinstance(f, Mapping) for f in value):
            raise SpecError(f"{key}: expected an array of flow tables ([[base.workload.flows]], each with a "
                            f"workload), got {got(value)}")
        return value
    if field in ("path", "blkparse_action", "flows_file"):
        if not isinstance(value, str) or not value:
            raise SpecError(f"{key}: expected a {'name' if field == 'blkparse_action' else 'file path'}, got {got(value)}")
        return value
    top = field.split(".", 1)[0]
    if top == "arrival":
        return _check_arrival(key, value)
    known = {f for fields in workload_fields().values() for f in fields} | {"kind"}
    if top not in known or "." in field:
        raise SpecError(f"{key}: unknown workload field; expected one of: {', '.join(sorted(known))}")
    kind = _example_types().get(field, float if isinstance(value, float) else int)
    return _number(key, value, kind)


def _check_arrival(key: str, value: Any) -> Any:
    parts = key.split(".")[2:]
    if not parts:
        raise SpecError(f"{key}: expected a table (kind = one of: {', '.join(registry.names('arrival process'))}, and its fields)")
    fields = {f for fs in ARRIVAL_FIELDS.values() for f in fs} | {"kind"}
    if parts[0] not in fields or (parts[0] != "idle" and len(parts) > 1):
        raise SpecError(f"{key}: unknown arrival field; expected one of: {', '.join(sorted(fields))}")
    if parts[0] == "idle":
        if len(parts) != 2 or parts[1] not in IDLE_FIELDS:
            raise SpecError(f"{key}: expected workload.arrival.idle.<{'|'.join(IDLE_FIELDS)}>")
        if parts[1] == "dist":
            return _name(key, value, registry.names("idle distribution"))
    if parts[0] == "kind":
        return _name(key, value, registry.names("arrival process"))
    return _number(key, value, float)


def _check_option(key: str, value: Any) -> Any:
    name = key[len("options."):]
    top = name.split(".", 1)[0]
    if top in OPTIONS_REFUSED:
        raise SpecError(f"{key}: not a sweep option: {OPTIONS_REFUSED[top]}")
    defaults = option_defaults()
    if top not in defaults:
        raise SpecError(f"{key}: unknown run option; expected one of: {', '.join(defaults)}")
    if top == "precondition":
        sub = name.split(".")[1:]
        if not sub:
            if not isinstance(value, bool):
                raise SpecError(f"{key}: expected true, false or a table of {', '.join(PRECONDITION_FIELDS)}, got {got(value)}")
            return value
        if len(sub) > 1 or sub[0] not in PRECONDITION_FIELDS:
            raise SpecError(f"{key}: unknown precondition field; expected one of: {', '.join(PRECONDITION_FIELDS)}")
        if PRECONDITION_FIELDS[sub[0]] is bool:
            return _bool(key, value)
        return _number(key, value, float)
    if "." in name:
        raise SpecError(f"{key}: {top} is not a table")
    if top == "replay":
        return _name(key, value, REPLAY_MODES)
    default = defaults[top]
    if isinstance(default, bool):
        return _bool(key, value)
    kind = type(default) if isinstance(default, (int, float)) else _optional_kind(top)
    return _number(key, value, kind)


def _optional_kind(name: str) -> type:
    """int or float for an option whose default is None, from its annotation."""
    ann = str(inspect.signature(build_options).parameters[name].annotation)
    return int if "int" in ann else float


def _bool(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise SpecError(f"{key}: expected true or false, got {got(value)}")
    return value


def kind_of(fields: dict[str, Any], where: dict[str, str]) -> str:
    """The workload kind of a run's ``workload.*`` fields: ``workload.kind`` or the one
    identifying field given (``pattern``, ``name``, ``personality``, ``path``); synthetic when
    none is. ``where`` maps each key to the spec location that set it (for the message)."""
    named = {f: KIND_BY_FIELD[f] for f in KIND_BY_FIELD if f in fields}
    kinds = set(named.values())
    if "kind" in fields:
        kinds.add(fields["kind"])
    if len(kinds) > 1:
        keys = [where.get(f"workload.{f}", f"workload.{f}") for f in (*named, "kind") if f in fields]
        raise SpecError(f"{keys[0]}: expected one workload kind per run, got {' and '.join(sorted(kinds))} "
                        f"({', '.join(keys)}); identifying fields: "
                        + ", ".join(f"{f} ({k})" for f, k in KIND_BY_FIELD.items()))
    return kinds.pop() if kinds else "synthetic"


def check_arrival(arrival: dict[str, Any], where: str) -> None:
    """An arrival table has its kind's fields, all of them (``idle`` may be left to the core's
    default), and no other."""
    kind = arrival.get("kind", "closed")
    own = set(ARRIVAL_FIELDS.get(kind, ())) | {"kind"}
    extra = sorted(set(arrival) - own)
    if extra:
        raise SpecError(f"{where}.{extra[0]}: does not apply to arrival kind {kind} "
                        f"(its fields: {', '.join(sorted(own - {'kind'})) or 'none'})")
    missing = sorted(own - {"kind", "idle"} - set(arrival))
    if missing:
        raise SpecError(f"{where}.{missing[0]}: missing; arrival kind {kind} needs {', '.join(sorted(own - {'kind', 'idle'}))}")
    idle = arrival.get("idle") or {}
    dist = idle.get("dist", registry.default("idle distribution"))
    needed = IDLE_PARAM.get(dist)
    for p in IDLE_PARAM.values():
        if p in idle and p != needed:
            raise SpecError(f"{where}.idle.{p}: does not apply to idle distribution {dist}")
    if needed and needed not in idle:
        raise SpecError(f"{where}.idle.{needed}: missing; idle distribution {dist} needs it")


def check_kind_fields(kind: str, fields: dict[str, Any], where: dict[str, str]) -> None:
    """Every ``workload.*`` field given belongs to the run's workload kind."""
    own = set(workload_fields()[kind]) | {"kind"}
    for f in fields:
        if f not in own:
            key = where.get(f"workload.{f}", f"workload.{f}")
            raise SpecError(f"{key}: does not apply to a {kind} workload (its fields: {', '.join(sorted(own))})")

