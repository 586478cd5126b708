"""Names and defaults of every registry family, read from the core (never a second copy).

Each family — victim policy, GC scheduler, placement, allocation, device model, trace format,
synthetic pattern, arrival process, idle distribution, LBA mapping, offline method, toy
distribution, experiment — is one enum in the Rust core; ``ssdlab policies`` prints them all.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from ssdlab import _core


@lru_cache(maxsize=None)
def families() -> tuple[dict[str, Any], ...]:
    """Every family: ``{"family", "key", "default", "members": [{"name", "summary"}]}``."""
    return tuple(json.loads(_core.registries_json()))


def family(name: str) -> dict[str, Any]:
    """One family by its name (``"victim policy"``) or key (``"gc.victim"``)."""
    for f in families():
        if name in (f["family"], f["key"]):
            return f
    raise KeyError(f"no registry family {name!r}; expected one of: {', '.join(f['family'] for f in families())}")


def names(name: str) -> tuple[str, ...]:
    """The member names of a family, in the core's order."""
    return tuple(m["name"] for m in family(name)["members"])


def former(name: str) -> dict[str, str]:
    """A family's former names still read: old name → the member's name now."""
    return dict(family(name).get("former", []))


def default(name: str) -> str:
    """The member a family uses when none is named (empty when there is none)."""
    return family(name)["default"]


@lru_cache(maxsize=None)
def defaults() -> dict[str, Any]:
    """Core defaults: ``synthetic`` and ``trace`` (a workload's fields), ``ttflash_stacks`` and
    ``ttflash_mechanisms``, ``experiment_jobs``, ``toy``."""
    return json.loads(_core.defaults_json())


def auto_jobs() -> int:
    """The experiments' default ``jobs``: simulations at once, 0 meaning one per CPU."""
    return int(defaults()["experiment_jobs"])
