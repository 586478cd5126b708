"""ssdlab's exception classes (raised by the compiled core), one per kind of bad input."""
from ssdlab._core import ConfigError, DeviceFullError, SsdlabError, TraceError, WorkloadError

__all__ = ["SsdlabError", "ConfigError", "TraceError", "WorkloadError", "DeviceFullError"]
