"""Gymnasium environments of ssdlab, registered on import:

- ``ssdlab/GcScheduling-v0``: GC scheduling as in Kang, Shin, Yoo (TECS 2017) — see
  :class:`ssdlab.envs.gc_scheduling.GcSchedulingEnv`.
"""
from gymnasium.envs.registration import register, registry

from ssdlab.envs.gc_scheduling import GcSchedulingEnv

ENV_IDS = ["ssdlab/GcScheduling-v0"]

if "ssdlab/GcScheduling-v0" not in registry:
    register(id="ssdlab/GcScheduling-v0", entry_point="ssdlab.envs.gc_scheduling:GcSchedulingEnv")

__all__ = ["GcSchedulingEnv", "ENV_IDS"]
