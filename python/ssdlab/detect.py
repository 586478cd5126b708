"""Host-side GC detection (issue 13; Park & Kim, "SSD Garbage Collection Detection and Management
with Machine Learning Algorithm", §III-IV): the names of the compiled core's detector, under short
names. Everything here is computed by the core (``ssdlab_core::detect``).

- :func:`iostat_series` — the ``iostat -x`` fields of one device per interval of a recorded
  ``/proc/diskstats`` sequence, as dicts keyed by sysstat's JSON names (``r/s``, ``wkB/s``,
  ``aqu-sz``, ``util`` …; also ``svctm``, ``avgrq-sz``, ``avgqu-sz`` of sysstat 11).
- :func:`feature_names`, :func:`recording_features` — the detector's attributes (§3.1): the kept
  ``iostat -x`` columns and ``std_<column>``, standard deviations over the last
  :data:`DEFAULT_WINDOW` (50) samples.
- :class:`Tree` — a C4.5 tree (``fit``, ``predict``, ``rules_text``, ``features_used``,
  ``save``/``load``, ``to_json``/``from_json``).
- :class:`Detector` — the streaming detector of one device (§4): ``push(proc_uptime,
  proc_diskstats)`` or ``replay(path)``, one dict per interval with the tree's verdict and the
  detection episode (a run of consecutive GC intervals).

>>> from ssdlab import detect
>>> detect.feature_names()[:3], detect.DEFAULT_WINDOW
(['rrqm/s', 'wrqm/s', 'r/s'], 50)
"""
from ssdlab._core import DETECT_DEFAULT_WINDOW as DEFAULT_WINDOW
from ssdlab._core import Detector, Tree, iostat_columns, iostat_series, proc_snapshot_text, recording_features
from ssdlab._core import detect_feature_names as feature_names

__all__ = [
    "DEFAULT_WINDOW",
    "Detector",
    "Tree",
    "feature_names",
    "iostat_columns",
    "iostat_series",
    "proc_snapshot_text",
    "recording_features",
]
