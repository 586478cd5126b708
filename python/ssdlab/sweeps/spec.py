"""A sweep specification (TOML or a dict) expanded into runs, each with its id.

Format (docs/sweep.md)::

    [sweep]                      # optional: name, description
    [base]                       # every run's values unless an axis or a run sets them
    device = "tiny"
    workload.requests = 4000
    [grid]                       # axes: key = [values]; the runs are their cartesian product
    set.gc.victim = ["greedy", "fifo"]
    seed = [1, 2]
    [[runs]]                     # explicit runs, each on top of [base], after the grid's

Keys are flat and dotted (``set.gc.victim``; TOML's nested tables spell the same keys): ``device``,
``seed``, ``set.<section>.<key>`` (a device override), ``workload.<field>``, ``options.<name>``
(``keys.py`` says what each holds). An axis whose values are tables sets several keys at once
(``workload = [{pattern = "uniform"}, {name = "home1"}]``).

A run's id hashes its full resolved configuration: the device's TOML after overrides
(``Device.resolved_toml()``), the workload spec (defaults filled from the core, trace paths made
absolute) and the run options (seed included), so two spellings of one run are one run.
"""
from __future__ import annotations

import hashlib
import inspect
import itertools
import math
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Union

from ssdlab import _core, workload as wl
from ssdlab.workload import shown
from ssdlab.device import Device, advisory_line
from ssdlab.errors import ConfigError, SsdlabError
from ssdlab.inputs import InputError, check_name, load_toml, read_text
from ssdlab.simulate import _absolute, build_options, simulate
from ssdlab.sweeps.keys import (KIND_BY_FIELD, NAMESPACES, SpecError, check_arrival, check_kind_fields, check_value, kind_of,
                                option_defaults)


#: Bumped when what the id hashes changes (old stores' runs then run again).
ID_VERSION = 1
TABLES = ("sweep", "base", "grid", "runs")
SWEEP_FIELDS = ("name", "description")
#: The device when a spec names none: ``ssdlab.simulate``'s.
DEFAULT_DEVICE = inspect.signature(simulate).parameters["device"].default
#: The seed when a spec names none: ``build_options``'.
DEFAULT_SEED = inspect.signature(build_options).parameters["seed"].default


@dataclass(frozen=True)
class RunTask:
    """One run, everything a worker needs (picklable, JSON-able: a remote worker needs no file
    but a trace's)."""

    id: str
    #: The run's keys as the spec gave them (after [base], axes and [[runs]] merged): columns.
    config: dict[str, Any]
    device_source: str
    #: The device file's text (None for a preset).
    device_text: Optional[str]
    overrides: tuple[str, ...]
    #: The device's TOML after overrides; None when the core refuses the combination (the
    #: run then fails with the core's message, as an error row).
    resolved_toml: Optional[str]
    workload: dict[str, Any]
    options: dict[str, Any]

    def device(self) -> Device:
        return Device(self.device_source, self.overrides, self.device_text)

    def setup(self) -> dict[str, Any]:
        """What ``Result.setup`` records (``ssdlab.rerun`` runs it again)."""
        return {"ssdlab_version": _core.__version__, "git_commit": _core.__git_commit__,
                "device": {"source": self.device_source, "overrides": list(self.overrides), "toml": self.resolved_toml},
                "workload": self.workload, "options": self.options}


@dataclass
class Sweep:
    """An expanded specification: its runs in spec order (duplicates dropped)."""

    name: str
    origin: str
    tasks: list[RunTask]
    #: Keys whose value differs between runs (the summary groups by them).
    axes: list[str] = field(default_factory=list)
    duplicates: int = 0
    #: The devices' advisories (``Device.advisories``), each once, prefixed by the spec location
    #: of the first run whose device has it (what ``ssdlab sweep`` prints as warnings).
    advisories: list[str] = field(default_factory=list)


def toml_literal(value: Any) -> str:
    """A Python value as a TOML value (for ``--set section.key=value``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_literal(v)}" for k, v in value.items()) + "}"
    raise SpecError(f"cannot write {value!r} as a TOML value")


def read_spec(spec: Union[str, Path, Mapping[str, Any]]) -> tuple[dict[str, Any], str, Path]:
    """(the spec as a dict, its name in messages, the folder its relative paths start from)."""
    if isinstance(spec, Mapping):
        return dict(spec), "spec", Path.cwd()
    path = Path(spec)
    try:
        data = load_toml(path)
    except InputError as e:
        raise SpecError(str(e)) from None
    return data, str(path), path.resolve().parent


def flatten(table: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Nested tables as dotted keys (``{"set": {"gc": {"victim": v}}}`` → ``set.gc.victim``);
    lists are values."""
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, Mapping):
            yield from flatten(v, key)
        else:
            yield key, v


def _checked(key: str, value: Any, where: str) -> Any:
    """``check_value`` with the message naming the spec location ``where``."""
    try:
        return check_value(key, value)
    except SpecError as e:
        msg = str(e)
        raise SpecError(where + msg[len(key):] if msg.startswith(key) else f"{where}: {msg}") from None


def _namespace_ok(key: str, where: str) -> None:
    if key.split(".", 1)[0] not in NAMESPACES or key in ("set", "workload", "options"):
        raise SpecError(f"{where}: unknown key; expected device, seed, set.<section>.<key>, workload.<field> "
                        "or options.<name>")


def _assignment(table: Any, where: str) -> dict[str, tuple[Any, str]]:
    """A table of keys (``[base]``, one ``[[runs]]`` entry) as ``key → (value, location)``."""
    if not isinstance(table, Mapping):
        raise SpecError(f"{where}: expected a table of keys, got {shown(table)}")
    out = {}
    for key, value in flatten(table):
        loc = f"{where}.{key}"
        _namespace_ok(key, loc)
        if key in out:  # `"set.gc.victim" = …` beside `set.gc.victim = …`: one key, two spellings
            raise SpecError(f"{loc}: set twice (two spellings of one key); expected each key once")
        out[key] = (_checked(key, value, loc), loc)
    return out


def _axes(grid: Any) -> list[list[dict[str, tuple[Any, str]]]]:
    """Each axis as its list of points; a point sets one key, or several (a table value)."""
    if not isinstance(grid, Mapping):
        raise SpecError(f"grid: expected a table of axes (key = [values]), got {shown(grid)}")
    axes, owner = [], {}
    for n, (key, values) in enumerate(flatten(grid)):
        where = f"grid.{key}"
        if not isinstance(values, list):
            raise SpecError(f"{where}: expected a list of values (an axis), got {shown(values)}")
        if not values:
            raise SpecError(f"{where}: expected a non-empty list of values, got []")
        points = []
        for i, v in enumerate(values):
            items = flatten(v, key) if isinstance(v, Mapping) else [(key, v)]
            point = {}
            for k, val in items:
                loc = f"{where}[{i}]" + k[len(key):]
                _namespace_ok(k, loc)
                point[k] = (_checked(k, val, loc), loc)
            if not point:
                raise SpecError(f"{where}[{i}]: expected a value or a non-empty table")
            points.append(point)
        for k in sorted({k for p in points for k in p}):
            if k in owner and owner[k][0] != n:
                other = owner[k][1] if owner[k][1] != where else f"{where} (spelled another way)"
                raise SpecError(f"{where}: sets {k}, which axis {other} sets too; expected each key on one axis")
            owner[k] = (n, where)
        axes.append(points)
    return axes


#: The most runs a spec may expand to unless told otherwise (``--max-runs``, ``max_runs=``).
#: Building a run's task (its device resolved, its id hashed) takes ~0.17 ms (10,000 tasks of
#: `tiny` in 1.66 s, 2026-12-02), so the limit is ~3.4 s of expansion before the run count
#: shows; a grid of a million is more likely a mistake (one axis too many) than a plan, and is
#: refused before it is built.
MAX_RUNS = 20_000


def combinations(data: Mapping[str, Any], max_runs: int = MAX_RUNS) -> Iterator[dict[str, tuple[Any, str]]]:
    """Every run of the spec as ``key → (value, location)``: [base] ⊕ grid point, then
    [base] ⊕ each [[runs]] entry. More than ``max_runs`` is a :class:`SpecError`, raised before
    any run is built."""
    unknown = [k for k in data if k not in TABLES]
    if unknown:
        raise SpecError(f"{unknown[0]}: unknown table; expected [sweep], [base], [grid] or [[runs]]")
    meta = data.get("sweep", {})
    if not isinstance(meta, Mapping) or any(k not in SWEEP_FIELDS or not isinstance(v, str) for k, v in meta.items()):
        raise SpecError(f"sweep: expected a table of {' and '.join(SWEEP_FIELDS)} (text)")
    base = _assignment(data.get("base", {}), "base")
    runs = data.get("runs", [])
    if not isinstance(runs, list) or not all(isinstance(r, Mapping) for r in runs):
        raise SpecError("runs: expected an array of tables ([[runs]])")
    explicit = [_assignment(r, f"runs[{i}]") for i, r in enumerate(runs)]
    axes = _axes(data["grid"]) if data.get("grid") else []
    count = (math.prod(len(a) for a in axes) if axes or not explicit else 0) + len(explicit)
    if count > max_runs:
        sizes = " × ".join(str(len(a)) for a in axes) or "0"
        raise SpecError(f"grid: {count:,} runs ({sizes} grid points + {len(explicit)} [[runs]]), more than the limit "
                        f"of {max_runs:,}; expected a smaller grid, or raise the limit (--max-runs, max_runs=)")
    if axes or not explicit:
        for point in itertools.product(*axes):
            run = dict(base)
            for p in point:
                run.update(p)
            yield run
    for r in explicit:
        yield {**base, **r}


def _unflatten(items: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in sorted(k for k in items if k.startswith(prefix + ".")):
        parts = key[len(prefix) + 1:].split(".")
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise SpecError(f"{key}: {'.'.join(parts[:-1])} is given a value and fields; expected one")
        if isinstance(node.get(parts[-1]), dict):
            raise SpecError(f"{key}: given a value and fields; expected one")
        node[parts[-1]] = items[key]
    return out


class Resolver:
    """Turns runs' keys into tasks, asking the core about each device once."""

    def __init__(self, base_dir: Path):
        self.base_dir = base_dir
        self._devices: dict[str, tuple[str, Optional[str]]] = {}
        self._resolved: dict[tuple, tuple[Optional[str], Optional[str]]] = {}
        #: Advisory → where the first run with it sets the advised field (or its device).
        self.advisories: dict[str, str] = {}

    def device_source(self, name: str, where: str) -> tuple[str, Optional[str]]:
        """(source, file text or None for a preset); a device that does not load on its own is a
        spec error."""
        if name not in self._devices:
            if name in _core.preset_names():
                src = (name, None)
            else:
                if not isinstance(name, str):
                    raise SpecError(f"{where}: expected a device name (text), got {shown(name)}")
                check_name(name, where)
                path = Path(name) if Path(name).is_absolute() else self.base_dir / name
                check_name(str(path), where)
                if not path.is_file():
                    raise SpecError(f"{where}: expected a preset ({', '.join(_core.preset_names())}) or a device "
                                    f"TOML file, got {shown(name)}")
                try:
                    src = (str(path), read_text(path))
                except InputError as e:
                    raise SpecError(f"{where}: {e}") from None
            try:
                Device(src[0], (), src[1]).resolved_toml()
            except SsdlabError as e:
                raise SpecError(f"{where}: {e}") from None
            self._devices[name] = src
        return self._devices[name]

    def resolve(self, source: str, text: Optional[str], overrides: tuple[str, ...],
                where: dict[str, str]) -> tuple[Optional[str], Optional[str]]:
        """(resolved TOML, None) or (None, the core's message) when the core refuses the values
        together (a validation rule: an error row). An override that is not a device field or
        has the wrong type for it — the core fails to read it — is a spec error naming its key."""
        key = (source, text, overrides)
        if key not in self._resolved:
            try:
                described = Device(source, overrides, text).describe()
                self._resolved[key] = (described["toml"], None)
                for a in described["advisories"]:
                    loc = where.get("set." + a["field"], where.get("device", "device"))
                    self.advisories.setdefault(advisory_line(a), loc)
            except ConfigError as e:
                for o in overrides:
                    try:
                        Device(source, (o,), text).resolved_toml()
                    except ConfigError as one:
                        if _not_a_field(str(one)):
                            path, msg = o.split("=", 1)[0], str(one)
                            for head in ("(with --set overrides): ", f"--set {o}: "):
                                msg = msg.split(head, 1)[1] if head in msg else msg
                            msg = msg[len(path) + 2:] if msg.startswith(path + ": ") else msg
                            raise SpecError(f"{where.get('set.' + path, 'set.' + path)}: {msg}") from None
                self._resolved[key] = (None, str(e))
        return self._resolved[key]


def _not_a_field(message: str) -> bool:
    """Whether the core failed to *read* an override (unknown field, wrong type, unknown name:
    serde's errors, reported "with --set overrides", or the override's own syntax) rather than
    refused a readable configuration by a validation rule."""
    return "(with --set overrides)" in message or message.startswith("--set ")


def build_task(run: dict[str, tuple[Any, str]], resolver: Resolver) -> RunTask:
    values = {k: v for k, (v, _) in run.items()}
    where = {k: loc for k, (_, loc) in run.items()}
    values.setdefault("device", DEFAULT_DEVICE)
    values.setdefault("seed", DEFAULT_SEED)
    source, text = resolver.device_source(values["device"], where.get("device", "device"))
    overrides = tuple(f"{k[4:]}={_literal(v, where[k])}" for k, v in sorted(values.items()) if k.startswith("set."))
    resolved, _error = resolver.resolve(source, text, overrides, where)
    work = workload_spec(values, where, resolver.base_dir)
    options = run_options(values, where, work)
    ident = run_id(resolved if resolved is not None else {"source": source, "text": text, "overrides": list(overrides)},
                   work, options)
    config = {k: values[k] for k in sorted(values, key=_column_order)}
    return RunTask(ident, config, source, text, overrides, resolved, work, options)


def _literal(value: Any, where: str) -> str:
    try:
        return toml_literal(value)
    except SpecError as e:
        raise SpecError(f"{where}: {e}") from None


def _column_order(key: str) -> tuple[int, str]:
    return (NAMESPACES.index(key.split(".", 1)[0]), key)


def workload_spec(values: dict[str, Any], where: dict[str, str], base_dir: Path) -> dict[str, Any]:
    """The run's workload spec, built by ``ssdlab.workload``'s builders (defaults from the core)."""
    fields = _unflatten(values, "workload")
    kind = kind_of(fields, where)
    check_kind_fields(kind, fields, where)
    fields.pop("kind", None)
    idents = [f for f, k in KIND_BY_FIELD.items() if k == kind]
    if kind != "synthetic" and not any(f in fields for f in idents):
        raise SpecError(f"{where.get('workload.kind', 'workload')}: a {kind} workload needs "
                        + " or ".join(f"workload.{f}" for f in idents))
    if kind == "flows":
        return _flows_spec(fields, where, base_dir)
    if "arrival" in fields:
        loc = where.get("workload.arrival.kind", "workload.arrival.kind")
        check_arrival(fields["arrival"], loc[:-len(".kind")])
    first = next((where[k] for k in where if k.startswith("workload.")), "workload")
    try:
        if kind == "synthetic":
            known = set(inspect.signature(wl.synthetic).parameters)
            spec = wl.synthetic(**{k: v for k, v in fields.items() if k in known})
            spec.update({k: v for k, v in fields.items() if k not in known})
            return spec
        if kind == "preset":
            return wl.preset(**fields)
        if kind == "fs":
            return wl.fs(fields.pop("personality", None), **fields)
        path = Path(fields.pop("path", ""))
        path = path if path.is_absolute() else base_dir / path
        if not path.is_file():
            raise SpecError(f"{where.get('workload.path', 'workload.path')}: expected a trace file, got {str(path)!r}")
        return _absolute(wl.trace(path, **fields))
    except (SsdlabError, ValueError, TypeError) as e:
        if isinstance(e, SpecError):
            raise
        raise SpecError(f"{first}: {e}") from None


def _flows_spec(fields: dict[str, Any], where: dict[str, str], base_dir: Path) -> dict[str, Any]:
    """Several flows (issue 61): ``workload.flows`` (flow tables, a trace's relative path taken
    from the spec's folder) or ``workload.flows_file`` (a ``[[flow]]`` file, its traces' paths
    from its own folder); the core checks every flow when the run starts."""
    if len(fields) > 1:
        second = sorted(fields)[1]
        raise SpecError(f"{where.get('workload.' + second, 'workload.' + second)}: expected one of workload.flows "
                        f"or workload.flows_file, got both")
    if "flows_file" in fields:
        path = Path(fields["flows_file"])
        path = path if path.is_absolute() else base_dir / path
        loc = where.get("workload.flows_file", "workload.flows_file")
        if not path.is_file():
            raise SpecError(f"{loc}: expected a flows file ([[flow]] tables), got {str(path)!r}")
        try:
            return wl.flows_file(path)
        except SsdlabError as e:
            raise SpecError(f"{loc}: {e}") from None
    flows = []
    for f in fields["flows"]:
        w = f.get("workload")
        if isinstance(w, Mapping) and w.get("kind") == "trace" and isinstance(w.get("path"), str):
            p = Path(w["path"])
            f = {**f, "workload": {**w, "path": str(p if p.is_absolute() else (base_dir / p).resolve())}}
        flows.append(dict(f))
    return wl.flows(*flows)


def run_options(values: dict[str, Any], where: dict[str, str], work: dict[str, Any]) -> dict[str, Any]:
    """The run options as ``build_options`` makes them (the core's JSON)."""
    values = dict(values)
    if "options.precondition" in values and any(k.startswith("options.precondition.") for k in values):
        if values.pop("options.precondition") is False:  # true with fields: on, with those fields
            raise SpecError(f"{where['options.precondition']}: false, but precondition fields are given too")
    opts = {**option_defaults(), **_unflatten(values, "options")}
    try:
        return build_options(work, seed=values["seed"], **opts)
    except (ValueError, TypeError) as e:
        raise SpecError(f"options: {e}") from None


def run_id(device: Any, work: dict[str, Any], options: dict[str, Any]) -> str:
    """16 hex digits of the SHA-256 of the run's resolved configuration."""
    text = json.dumps({"v": ID_VERSION, "device": device, "workload": work, "options": options},
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def expand(spec: Union[str, Path, Mapping[str, Any]], max_runs: int = MAX_RUNS) -> Sweep:
    """The spec's runs (a :class:`SpecError` whose message starts with the spec's name when it
    cannot be run, or expands to more than ``max_runs``)."""
    data, origin, base_dir = read_spec(spec)
    try:
        resolver = Resolver(base_dir)
        tasks, seen, dups = [], set(), 0
        for run in combinations(data, max_runs):
            t = build_task(run, resolver)
            if t.id in seen:
                dups += 1
                continue
            seen.add(t.id)
            tasks.append(t)
    except (SpecError, InputError) as e:
        raise SpecError(f"{origin}: {e}") from None
    keys = sorted({k for t in tasks for k in t.config}, key=_column_order)
    axes = [k for k in keys if len({json.dumps(t.config.get(k)) for t in tasks}) > 1]
    meta = data.get("sweep", {})
    advisories = [f"{origin}: {loc}: {a}" for a, loc in resolver.advisories.items()]
    return Sweep(meta.get("name") or (Path(origin).stem if origin != "spec" else "sweep"), origin, tasks, axes, dups,
                 advisories)
