"""ssdlab: a fast trace-driven SSD simulator for garbage-collection research.

>>> import ssdlab
>>> r = ssdlab.simulate("tiny", ssdlab.workload.synthetic("uniform", 10_000), precondition=True)
>>> r.waf > 1
True
"""
from ssdlab import workload
from ssdlab._core import __version__
from ssdlab.device import Device, presets
from ssdlab.errors import ConfigError, DeviceFullError, SsdlabError, TraceError, WorkloadError
from ssdlab.result import Latency, LatencySummary, Result
from ssdlab.simulate import Simulation, build_options, rerun, simulate

__all__ = [
    "__version__",
    "simulate",
    "rerun",
    "sweep",
    "load",
    "Simulation",
    "build_options",
    "Device",
    "presets",
    "Result",
    "Latency",
    "LatencySummary",
    "workload",
    "SsdlabError",
    "ConfigError",
    "TraceError",
    "WorkloadError",
    "DeviceFullError",
]


def __getattr__(name: str):
    # ``sweep`` and ``load`` come from the sweep package, imported on first use so that
    # ``import ssdlab`` (and every ``ssdlab`` command) does not pay for it.
    if name in ("sweep", "load"):
        from ssdlab import sweeps

        return getattr(sweeps, name)
    raise AttributeError(f"module 'ssdlab' has no attribute {name!r}")
