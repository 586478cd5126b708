"""Gymnasium environments of ssdlab, registered on import:

- ``ssdlab/GcScheduling-v0``: GC scheduling as in Kang, Shin, Yoo (TECS 2017) — see
  :class:`ssdlab.envs.gc_scheduling.GcSchedulingEnv`.
- ``ssdlab/SlcCache-v0``: SLC-cache size and hot/cold threshold on a hybrid SLC/QLC SSD as in
  Yoo and Shin (HotStorage 2020) — see :class:`ssdlab.envs.slc_cache.SlcCacheEnv`.
"""
from gymnasium.envs.registration import register, registry

from ssdlab.envs.gc_scheduling import GcSchedulingEnv
from ssdlab.envs.slc_cache import SlcCacheEnv

ENV_IDS = ["ssdlab/GcScheduling-v0", "ssdlab/SlcCache-v0"]

if "ssdlab/GcScheduling-v0" not in registry:
    register(id="ssdlab/GcScheduling-v0", entry_point="ssdlab.envs.gc_scheduling:GcSchedulingEnv")
if "ssdlab/SlcCache-v0" not in registry:
    register(id="ssdlab/SlcCache-v0", entry_point="ssdlab.envs.slc_cache:SlcCacheEnv")

__all__ = ["GcSchedulingEnv", "SlcCacheEnv", "ENV_IDS"]
