"""ssdlab's exception classes (raised by the compiled core), one per kind of bad input, and the
one way specifications cross into the core."""
import json
import math
from typing import Any

from ssdlab._core import ConfigError, DeviceFullError, SsdlabError, TraceError, WorkloadError

__all__ = ["SsdlabError", "ConfigError", "TraceError", "WorkloadError", "DeviceFullError", "core_json"]


def _non_finite(obj: Any, path: str) -> str | None:
    if isinstance(obj, float) and not math.isfinite(obj):
        return path
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, (list, tuple)) else ()
    for k, v in items:
        found = _non_finite(v, f"{path}.{k}" if path else str(k))
        if found is not None:
            return found
    return None


def core_json(obj: Any, what: str, error: type = ConfigError) -> str:
    """``obj`` as JSON for the core. JSON has no NaN or infinity: a non-finite number is an
    ``error`` naming its field (``workload: read_fraction: expected a finite number, got nan``),
    not the core's "expected value at line 1 column 80"."""
    path = _non_finite(obj, "")
    if path is not None:
        value = obj
        for k in path.split("."):
            value = value[int(k)] if isinstance(value, (list, tuple)) else value[k]
        raise error(f"{what}: {path}: expected a finite number, got {value}")
    return json.dumps(obj)
