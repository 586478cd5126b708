"""Gymnasium environments of ssdlab, registered on import:

- ``ssdlab/GcScheduling-v1``: GC scheduling as in Kang, Shin, Yoo (TECS 2017) — see
  :class:`ssdlab.envs.gc_scheduling.GcSchedulingEnv`.
- ``ssdlab/SlcCache-v1``: SLC-cache size and hot/cold threshold on a hybrid SLC/QLC SSD as in
  Yoo and Shin (HotStorage 2020) — see :class:`ssdlab.envs.slc_cache.SlcCacheEnv`.

The v0 ids are still registered: the same environments, whose default reward is named
``"seed"`` there (``"paper"`` in v1; the same reward, the same results).
"""
from gymnasium.envs.registration import register, registry

from ssdlab.envs.gc_scheduling import GcSchedulingEnv
from ssdlab.envs.slc_cache import SlcCacheEnv

ENV_IDS = ["ssdlab/GcScheduling-v1", "ssdlab/SlcCache-v1"]
#: The former ids: the same environments, the default reward under its old name.
OLD_ENV_IDS = ["ssdlab/GcScheduling-v0", "ssdlab/SlcCache-v0"]

_ENTRY = {"GcScheduling": "ssdlab.envs.gc_scheduling:GcSchedulingEnv", "SlcCache": "ssdlab.envs.slc_cache:SlcCacheEnv"}
for _name, _entry in _ENTRY.items():
    if f"ssdlab/{_name}-v1" not in registry:
        register(id=f"ssdlab/{_name}-v1", entry_point=_entry)
    if f"ssdlab/{_name}-v0" not in registry:
        register(id=f"ssdlab/{_name}-v0", entry_point=_entry, kwargs={"reward": "seed"})

__all__ = ["GcSchedulingEnv", "SlcCacheEnv", "ENV_IDS", "OLD_ENV_IDS"]
