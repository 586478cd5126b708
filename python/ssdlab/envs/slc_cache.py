"""SLC-cache tuning as a Gymnasium environment (Yoo and Shin, "Reinforcement Learning-Based SLC
Cache Technique for Enhancing SSD Write Performance", HotStorage 2020, slides 8–11)."""
from __future__ import annotations

import json
import math
import numbers
from typing import Any, Callable, Optional, Sequence, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ssdlab import _core
from ssdlab.device import Device, device_of
from ssdlab.envs.gc_scheduling import action_index, reset_arguments, reward_of
from ssdlab.result import Result
from ssdlab.simulate import build_options
from ssdlab.workload import U32, WorkloadSpec, integer, optional_integer, overrides_of, shown, wrong_type
from ssdlab.errors import WorkloadError, core_json

#: The stand-ins of ``ssdlab experiment slc`` (the core's ``experiments::slc::StandIn``).
STAND_INS = ("pc", "ycsb-a")
#: Default workload: the PC-like stand-in, the one with hot data for the cache to catch (slide
#: 14: "PC trace includes a larger number of hot data").
DEFAULT_STAND_IN = "pc"
#: Data a stand-in writes, GB. 1 GB of the PC-like stand-in is about 240 decision points (one
#: per SLC block per plane of host writes, 4 MiB on ``yoo-qlc``): enough for the start
#: region (1/8 of the free space at 50 %) to fill and migrate, so size actions matter, and an
#: episode runs in well under a second, so ``check_env`` and the tests stay fast.
DEFAULT_DATA_GB = 1.0
#: Space utilisation (``precondition.fill_fraction``): the middle of the paper's 30–90 % (slide 7).
DEFAULT_UTILISATION = 0.5
#: Requests in flight, closed loop: ``ssdlab experiment slc``'s ``--queue-depth`` default, so an
#: episode replays exactly what that experiment runs.
DEFAULT_QUEUE_DEPTH = 8
#: 2**53: every count up to it is exact in float64 and no run writes that many pages in a period;
#: a finite bound keeps ``check_env`` quiet.
COUNT_BOUND = float(2**53)

FEATURES = ("utilisation", "slc_hit_ratio", "slc_blocks", "slc_target", "size_level", "theta_level", "theta_pages",
            "period_host_pages")
RewardFn = Callable[[dict[str, Any]], float]


def _paper_reward(obs: dict[str, Any]) -> float:
    return float(obs["reward"])


#: Rewards by name. ``"seed"`` is ``"paper"``'s name in the environment's v0 id (its default
#: there), kept so that v0 runs as it did.
REWARDS: dict[str, RewardFn] = {"paper": _paper_reward, "seed": _paper_reward}


def _real(name: str, x: Any, expected: str) -> float:
    """A real number (not a bool): else a ``TypeError`` (a ``ValueError`` too, as before)."""
    if not isinstance(x, numbers.Real) or isinstance(x, (bool, np.bool_)):
        raise wrong_type(name, expected, x)
    return float(x)


def stand_in(name: str, data_gb: float = DEFAULT_DATA_GB, utilisation: float = DEFAULT_UTILISATION) -> WorkloadSpec:
    """The core's stand-in ``name`` (``pc``, ``ycsb-a``) writing about ``data_gb`` GB over the
    first ``utilisation`` of the logical space, as a workload spec."""
    return json.loads(_core.SlcDecisionSimulator.stand_in_json(name, data_gb, utilisation))


class SlcCacheEnv(gym.Env):
    """Tune the SLC cache of a hybrid SLC/QLC SSD: its size and hot/cold threshold θ.

    ## Description
    The environment replays a workload on a simulated hybrid SLC/QLC SSD (``ssdlab``'s Rust
    core, timing on; Yoo and Shin, HotStorage 2020). Any block can be used in SLC mode (fast,
    a quarter of the pages) or in QLC mode; the SLC region caches writes and is migrated to QLC
    when it runs out of free blocks (slides 3–4, trigger ≤ 5 free blocks, slide 12). A write
    request of at most θ goes to SLC, a larger one to QLC (hot/cold separation, slide 5). Every
    decision period (``cache.decision_period_blocks`` SLC blocks per plane of host page writes)
    the agent changes the region's size and θ by one level or keeps them (slide 9) — the SLC
    cache manager of the paper's Figure "SLC cache management with RL", whose native tabular
    Q-learning agent is ``cache.slc = "rl"``. Here the core runs ``cache.slc = "external"``
    and stops at each period's end (at the next request boundary) for the action. Every step
    of the episode is one decision point.

    ## Action Space
    ``Discrete(9)`` (the count is the core's): action ``i`` changes the (size, θ) levels by
    ``actions[i]`` — each of the two one level down, kept or up, clamped to the levels; action
    0 keeps both (the core's ``cache::slc::ACTIONS``). Size levels are fractions of the space
    the data leaves (``size_levels``: 0 to 3/4), θ levels KiB (``theta_levels_kib``, the last
    one every write); both tables are the core's (``config::cache``), read at construction.
    An action is an ``int`` or a numpy integer (``action_space.sample()``); a float, even
    ``1.0``, a bool or a string is a ``TypeError``, never rounded, and one outside the space a
    ``ValueError``.

    ## Observation Space
    ``Dict``:

    | Key | Observation | Min | Max |
    |-----|-------------|-----|-----|
    | ``state`` | the binned state of the native ``rl`` agent (utilisation × SLC-hit share × size level × θ level, six bins each: the paper's 1,296 states, slide 10) | 0 | n_states − 1 |
    | ``features[0]`` | space utilisation (mapped / logical pages) | 0 | 1 |
    | ``features[1]`` | share of the period's host page writes that overwrote data still in SLC (how hot the cached data is) | 0 | 1 |
    | ``features[2]`` | blocks in SLC mode now | 0 | total blocks |
    | ``features[3]`` | the region's size (target), blocks | 0 | total blocks |
    | ``features[4]`` | size level | 0 | size levels − 1 |
    | ``features[5]`` | θ level | 0 | θ levels − 1 |
    | ``features[6]`` | θ in pages (every write: the logical pages, which admit every request just the same) | 0 | logical pages |
    | ``features[7]`` | host page writes in the period that just ended | 0 | 2^53 |

    ``info["raw"]`` has the core's observation (bins, reward, θ pages with ``None`` for every
    write); ``info["slc_fraction"]`` and ``info["theta_kib"]`` the current levels' values.

    ## Rewards
    ``reward="paper"`` (default; ``"seed"`` in the v0 id): the core's reward of the period the action governed (slide 11:
    every write cost counts — SLC and QLC program time of the host pages and the time writes
    waited for migration and QLC GC): 1 − cost / (host pages × tPROG_QLC), the write time saved
    per host page against writing in QLC only, in QLC page programs (``CacheState::reward``).
    Or any callable taking the raw observation dict. The step that ends the episode rewards 0
    (the workload ended inside a period; no observation closes it).

    ## Starting State
    The first ``utilisation`` of the logical space is written sequentially with timing off
    (large cold writes: QLC), as ``ssdlab experiment slc`` does; the region starts at the
    core's start levels (``cache.rl.start_size_level``, ``start_theta_level``: 1/8 of the free
    space, 64 KiB, slide 7's setting 1). The first observation is the decision due at the end of
    the fill, so the first action governs the first period of the measured run.

    ## Episode End
    Termination: the workload is exhausted. Truncation: ``max_decisions`` decisions taken (if
    set). Stepping after either raises ``RuntimeError`` until ``reset``.

    ## Arguments
    ``gym.make("ssdlab/SlcCache-v1", device="yoo-qlc", workload=None, overrides=(),
    utilisation=0.5, reward="paper", max_decisions=None, data_gb=1.0, queue_depth=8)``.
    ``device`` is a preset name or TOML file (``cache.slc`` is set to ``"external"``; default:
    the paper's 32 GB device, slide 12); ``workload`` ``None`` (the PC-like stand-in of
    ``ssdlab experiment slc``), a stand-in name (``"pc"``, ``"ycsb-a"``: synthetic
    streams, not the paper's traces, addressing the filled part) or any workload spec
    (``ssdlab.workload``); ``data_gb`` the data a stand-in writes; ``overrides``
    ``section.key=value`` strings (e.g. ``cache.decision_period_blocks=4``); ``utilisation``
    the space utilisation, in (0, 1] (``precondition.fill_fraction`` and the stand-in's
    footprint); ``queue_depth`` the requests in flight (replayed closed loop, as fast as the
    device goes: the paper reports throughput). The simulation seed is drawn from
    ``self.np_random`` at ``reset``, unless ``reset(options={"sim_seed": n})`` fixes it (to
    replay the very workload a native run saw).

    ## Version History
    * v1: the default reward is named ``"paper"`` (the paper's own reward); nothing else changed.
    * v0: initial version (still registered; its default reward is named ``"seed"``).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        device: Union[str, Device] = "yoo-qlc",
        workload: Union[None, str, WorkloadSpec] = None,
        overrides: Sequence[str] = (),
        utilisation: float = DEFAULT_UTILISATION,
        reward: Union[str, RewardFn] = "paper",
        max_decisions: Optional[int] = None,
        data_gb: float = DEFAULT_DATA_GB,
        queue_depth: int = DEFAULT_QUEUE_DEPTH,
    ):
        overrides = overrides_of(overrides)
        if not 0.0 < _real("utilisation", utilisation, "a fraction in (0, 1]") <= 1.0:
            raise ValueError(f"utilisation: expected a fraction in (0, 1], got {shown(utilisation)}")
        if not (math.isfinite(_real("data_gb", data_gb, "a positive amount of GB")) and data_gb > 0):
            raise ValueError(f"data_gb: expected a positive amount of GB, got {shown(data_gb)}")
        queue_depth = integer("queue_depth", queue_depth, 1, U32)
        max_decisions = optional_integer("max_decisions", max_decisions, 1, None)
        self._reward = reward_of(reward, REWARDS)
        # A Device keeps its own TOML and overrides; the external cache manager comes last.
        self.device = device_of(device, overrides).with_overrides(('cache.slc="external"',))
        described = self.device.describe()
        # The agent's shape and levels are the core's (api::slc_agent), never copied here.
        agent = described["slc_agent"]
        self.actions: list[tuple[int, int]] = [tuple(a) for a in agent["actions"]]
        self.size_levels: list[float] = list(agent["size_levels"])
        self.theta_levels_kib: list[int] = list(agent["theta_levels_kib"])
        self.n_states: int = agent["states"]
        self.rl_config: dict[str, Any] = described["config"]["cache"]["rl"]
        self.utilisation = float(utilisation)
        self.queue_depth = int(queue_depth)
        self.max_decisions = None if max_decisions is None else int(max_decisions)
        if workload is None:
            workload = DEFAULT_STAND_IN
        if isinstance(workload, str):
            if workload not in STAND_INS:
                raise ValueError(f"workload: expected a stand-in ({', '.join(STAND_INS)}) or a workload spec, "
                                 f"got {shown(workload)}")
            self.workload: WorkloadSpec = stand_in(workload, float(data_gb), self.utilisation)
        elif isinstance(workload, dict):
            self.workload = workload
        else:
            raise wrong_type("workload", "None, a stand-in name or a workload spec dict", workload)
        blocks = float(described["total_blocks"])
        self._logical_pages = int(described["logical_pages"])
        high = np.array([1.0, 1.0, blocks, blocks, len(self.size_levels) - 1, len(self.theta_levels_kib) - 1,
                         self._logical_pages, COUNT_BOUND], dtype=np.float64)
        self.action_space = spaces.Discrete(len(self.actions))
        self.observation_space = spaces.Dict({
            "state": spaces.Discrete(self.n_states),
            "features": spaces.Box(low=np.zeros(len(FEATURES)), high=high, dtype=np.float64),
        })
        self._sim: Optional[_core.SlcDecisionSimulator] = None
        self._last: Optional[dict[str, Any]] = None
        self._decisions = 0
        self._done = False

    def run_options(self, sim_seed: int) -> dict[str, Any]:
        """The core's run options of an episode: closed loop, and the sequential fill to the
        utilisation with no random overwrites (``ssdlab experiment slc``'s precondition)."""
        fill = {"sequential": True, "random_passes": 0.0, "fill_fraction": self.utilisation}
        return build_options(self.workload, seed=sim_seed, replay="closed", queue_depth=self.queue_depth,
                             precondition=fill)

    def _obs(self, raw: dict[str, Any]) -> dict[str, Any]:
        vals = dict(raw)
        theta = raw["theta_pages"]
        vals["theta_pages"] = self._logical_pages if theta is None else min(theta, self._logical_pages)
        feats = np.array([vals[k] for k in FEATURES], dtype=np.float64)
        return {"state": int(raw["state"]), "features": feats}

    def _info(self, raw: dict[str, Any]) -> dict[str, Any]:
        return {"raw": raw, "slc_fraction": self.size_levels[raw["size_level"]],
                "theta_kib": self.theta_levels_kib[raw["theta_level"]]}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        seed, given = reset_arguments(seed, options)
        super().reset(seed=seed)
        sim_seed = int(self.np_random.integers(0, 2**63 - 1))
        if given is not None:
            sim_seed = given
        text, origin = self.device.core_args()
        self._sim = _core.SlcDecisionSimulator(text, origin, list(self.device.overrides), core_json(self.workload, "workload", WorkloadError),
                                               core_json(self.run_options(sim_seed), "options"))
        self._decisions = 0
        self._done = False
        first = self._sim.first()
        if first is None:
            raise RuntimeError("the workload ended before the first SLC decision point; use a longer workload")
        self._last = json.loads(first)
        return self._obs(self._last), self._info(self._last)

    def step(self, action):
        if self._sim is None or self._last is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        a = action_index(action, self.action_space)
        nxt = self._sim.step(a)  # applies the action and runs to the next decision: one crossing
        self._decisions += 1
        if nxt is None:
            self._done = True
            info = self._info(self._last)
            info["final"] = True
            return self._obs(self._last), 0.0, True, False, info
        self._last = json.loads(nxt)
        truncated = self.max_decisions is not None and self._decisions >= self.max_decisions
        self._done = truncated
        return self._obs(self._last), float(self._reward(self._last)), False, truncated, self._info(self._last)

    def result(self) -> Result:
        """What the simulation measured so far (latency, WAF, the hybrid report …)."""
        if self._sim is None:
            raise RuntimeError("call reset() first")
        return Result.from_core(self._sim.result_json(), {}, 0.0)
