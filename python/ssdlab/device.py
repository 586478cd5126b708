"""Devices: shipped presets or TOML files, with ``section.key=value`` overrides."""
from __future__ import annotations

import copy
import dataclasses
import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Sequence

from ssdlab import _core
from ssdlab.errors import ConfigError
from ssdlab.workload import overrides_of, wrong_type


@dataclass(frozen=True)
class Device:
    """A device description: a preset name or a TOML file, plus overrides.

    ``Device("mqsim-small", ["gc.victim=fifo"])`` or ``Device("my.toml")``.
    """

    source: str = "mqsim-small"
    overrides: Sequence[str] = field(default_factory=tuple)
    #: The device as TOML text (``source`` then only names where it came from): a result's
    #: resolved configuration, :meth:`from_toml`.
    toml: str | None = None

    def __post_init__(self) -> None:
        # Checked (and a path made a string, the overrides a tuple) when made, not at first
        # use: one string of overrides would otherwise be read one character at a time.
        if not isinstance(self.source, (str, os.PathLike)):
            raise wrong_type("source", "a preset name or a TOML file's path", self.source)
        if self.toml is not None and not isinstance(self.toml, str):
            raise wrong_type("toml", "None or the device's TOML text", self.toml)
        object.__setattr__(self, "source", os.fspath(self.source))
        object.__setattr__(self, "overrides", overrides_of(self.overrides))

    def with_overrides(self, overrides: Sequence[str]) -> "Device":
        """This device with ``overrides`` after its own (its TOML text, if any, kept)."""
        more = overrides_of(overrides)
        return dataclasses.replace(self, overrides=tuple(self.overrides) + more) if more else self

    @classmethod
    def from_toml(cls, text: str, origin: str) -> "Device":
        """A device from TOML text (``origin`` names it in errors)."""
        return cls(origin, (), text)

    def resolved_toml(self) -> str:
        """The full configuration, overrides applied, as TOML (what ``devices --show`` prints)."""
        return str(self._described["toml"])

    def core_args(self) -> tuple[str, str]:
        """(preset name or TOML text, origin for error messages)."""
        if self.toml is not None:
            return self.toml, self.source
        if self.source in _core.preset_names():
            return self.source, f"preset {self.source}"
        from ssdlab.inputs import check_name, is_file, read_text

        check_name(str(self.source), "-d/--device")
        path = Path(self.source)
        if not is_file(path):
            names = ", ".join(_core.preset_names())
            raise ConfigError(f"--device {self.source}: not a preset ({names}) nor a readable TOML file")
        return read_text(path), str(path)

    def describe(self) -> dict[str, Any]:
        """Validated configuration and derived sizes (planes, pages, capacities), and ``memory``:
        the core's estimate of the heap a simulation needs (``estimate_bytes``, ``breakdown``)
        beside what the machine has (``available_bytes``, ``available_source``, ``fits``)."""
        return copy.deepcopy(self._described)

    @cached_property
    def _described(self) -> dict[str, Any]:
        # Parsed and validated once per Device (resolved_toml, advisories and the memory
        # estimate all read it); a frozen dataclass's cached_property lives in its __dict__.
        text, origin = self.core_args()
        return json.loads(_core.device_json(text, origin, list(self.overrides)))

    def advisories(self) -> list[str]:
        """What this valid configuration does that its numbers do not suggest, one
        ``field: message`` line each (the core's ``DeviceConfig::advisories``; usually none).
        ``ssdlab run`` and ``ssdlab sweep`` print them as warnings."""
        return [advisory_line(a) for a in self._described["advisories"]]

    def memory_estimate_bytes(self) -> int:
        """Heap bytes a simulation of this device needs (the core's estimate: FTL tables, RAIN
        stripes, the hybrid model's index; not a workload's own tables). A device that needs
        more than the machine has is refused; ``SSDLAB_MEMORY_LIMIT`` overrides the figure."""
        return int(self._described["memory"]["estimate_bytes"])


def device_of(device: Any, overrides: Any = ()) -> Device:
    """``device`` (a preset name, a TOML file's path or a :class:`Device`) as a Device with
    ``overrides`` after its own; anything else is a ``TypeError`` naming ``device``."""
    if isinstance(device, Device):
        return device.with_overrides(overrides)
    if not isinstance(device, (str, os.PathLike)):
        raise wrong_type("device", "a preset name, a TOML file's path or an ssdlab.Device", device)
    return Device(os.fspath(device), overrides_of(overrides))


def advisory_line(advisory: dict[str, str]) -> str:
    """One of :meth:`Device.describe`'s ``advisories`` (``field``, ``message``) as its line."""
    return f"{advisory['field']}: {advisory['message']}"


def presets() -> list[str]:
    return list(_core.preset_names())
