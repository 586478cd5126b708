"""GC scheduling as a Gymnasium environment (Kang, Shin, Yoo, "Reinforcement Learning-Assisted
Garbage Collection to Mitigate Long-Tail Latency in SSD", TECS 2017, §5.2, Algorithm 1)."""
from __future__ import annotations

import json
from typing import Any, Callable, Optional, Sequence, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ssdlab import _core
from ssdlab.device import Device, device_of
from ssdlab.result import Result
from ssdlab.simulate import build_options, precondition_of
from ssdlab.workload import U64, WorkloadSpec, clip, integer, optional_integer, shown, spec_of, wrong_type
from ssdlab.errors import WorkloadError, core_json

#: Default workload: bursty writes with idle periods, light enough that partial GC can hide in
#: the gaps on the ``tiny`` device, heavy enough that GC runs all the time.
DEFAULT_WORKLOAD: WorkloadSpec = {
    "kind": "synthetic",
    "pattern": "hotcold",
    "requests": 20_000,
    "read_fraction": 0.2,
    "arrival": {"kind": "on-off", "burst_requests": 16, "burst_interval_us": 1_000, "idle_mean_us": 20_000,
                "idle": {"dist": "exponential"}},
}

FEATURES = ("prev_interval_us", "interval_us", "prev_action", "free_blocks", "response_us")
RewardFn = Callable[[dict[str, Any]], float]


def _paper_reward(obs: dict[str, Any]) -> float:
    return float(obs["reward"])


def _latency_reward(obs: dict[str, Any]) -> float:
    return -float(obs["response_us"]) / 1000.0


#: Rewards by name. ``"seed"`` is ``"paper"``'s name in the environment's v0 id (its default
#: there), kept so that v0 runs as it did.
REWARDS: dict[str, RewardFn] = {"paper": _paper_reward, "neg-latency-ms": _latency_reward, "seed": _paper_reward}


# Argument checks of both environments (the SLC one imports them): at construction and at
# reset, not at the first step, and never int() of an action (1.5 was action 1).

def reward_of(reward: Any, rewards: dict[str, RewardFn]) -> RewardFn:
    """A reward by name (unknown: ``ValueError`` listing the names) or a callable."""
    if isinstance(reward, str):
        if reward not in rewards:
            raise ValueError(f"reward: expected one of {sorted(rewards)} or a callable, got {shown(reward)}")
        return rewards[reward]
    if not callable(reward):
        raise wrong_type("reward", f"one of {sorted(rewards)} or a callable", reward)
    return reward


def reset_arguments(seed: Any, options: Any) -> tuple[Optional[int], Optional[int]]:
    """``reset``'s ``seed`` (a Python int for Gymnasium, which refuses numpy's) and the
    ``sim_seed`` of ``options`` (``None``: drawn from ``np_random``). An unknown option is
    refused, not ignored: ``{"seed": 1}`` did nothing."""
    seed = None if seed is None else integer("seed", seed, 0, None)
    if options is None:
        return seed, None
    if not isinstance(options, dict):
        raise wrong_type("options", "None or a dict such as {'sim_seed': 7}", options)
    unknown = sorted(map(repr, set(options) - {"sim_seed"}))
    if unknown:
        raise ValueError(f"reset options: expected only 'sim_seed', got {clip(', '.join(unknown))}")
    sim_seed = options.get("sim_seed")
    return seed, None if sim_seed is None else integer("sim_seed", sim_seed, 0, U64)


def action_index(action: Any, space: spaces.Discrete) -> int:
    """``action`` as an index of ``space``: an int or a numpy integer (``space.sample()``'s),
    never a bool, a float (1.0 included: ``Discrete.contains`` refuses it) or a string."""
    return integer("action", action, 0, int(space.n) - 1)


class GcSchedulingEnv(gym.Env):
    """Decide how much partial GC to run after each write request.

    ## Description
    The environment replays a workload on a simulated SSD (``ssdlab``'s Rust core, timing on).
    Whenever a write request completes, the inter-request interval is not zero and some plane has
    at most ``T_GC`` free blocks (``gc.threshold_blocks``), the agent decides how many valid-page
    copies of partial GC to run right after the request (Kang, Shin, Yoo, TECS 2017, §5.2,
    Algorithm 1). A non-zero action on a plane whose victim has no valid page left erases it.
    Intensive GC (one free block left) and forced GC (no free block) run by themselves, as in
    the paper. Every step of the episode is one such decision point.

    ## Action Space
    ``Discrete(n)``: action ``i`` runs ``actions[i]`` page copies on every eligible plane; the
    copy counts come from ``gc.rl.actions`` (default ``[0, 1, …, 7]``).
    An action is an ``int`` or a numpy integer (``action_space.sample()``); a float, even
    ``1.0``, a bool or a string is a ``TypeError``, never rounded, and one outside the space a
    ``ValueError``.

    ## Observation Space
    ``Dict``:

    | Key | Observation | Min | Max |
    |-----|-------------|-----|-----|
    | ``state`` | the paper's state index (Table 3 binning: previous interval 2 bins × current interval 17 bins × previous action 2 bins, edges in ``gc.rl``) | 0 | n_states − 1 |
    | ``features[0]`` | interval before the previous request, µs | 0 | inf |
    | ``features[1]`` | interval before this request, µs | 0 | inf |
    | ``features[2]`` | copies chosen at the previous decision | 0 | max action |
    | ``features[3]`` | fewest free blocks over the planes | 0 | blocks per plane |
    | ``features[4]`` | response time of the request just served (recent latency), µs | 0 | inf |

    ## Rewards
    ``reward="paper"`` (default; ``"seed"`` in the v0 id): the paper's reward for the response
    time of the request that follows the action, against running 70th/90th/99th percentiles of write latency: 1, 0.5, 0
    and −0.5 above the 99th (levels in ``gc.rl.reward_levels``). ``"neg-latency-ms"``: minus the
    response time in ms. Or any callable taking the raw observation dict.

    ## Starting State
    The device is preconditioned (filled sequentially, then overwritten randomly) so that GC is in
    steady state; the episode starts at the first decision point of the workload.

    ## Episode End
    Termination: the workload is exhausted. Truncation: ``max_decisions`` decisions taken (if set).

    ## Arguments
    ``gym.make("ssdlab/GcScheduling-v1", device="tiny", workload=None, overrides=(),
    reward="paper", max_decisions=None, precondition=True)``. ``device`` is a preset name or TOML
    file; ``workload`` a workload spec (``ssdlab.workload``); ``overrides`` ``section.key=value``
    strings. The simulation seed is drawn from ``self.np_random`` at ``reset``, unless
    ``reset(options={"sim_seed": n})`` fixes it (to replay the very workload a native run saw).

    ## Version History
    * v1: the default reward is named ``"paper"`` (the paper's own reward); nothing else changed.
    * v0: initial version (still registered; its default reward is named ``"seed"``).
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        device: Union[str, Device] = "tiny",
        workload: Optional[WorkloadSpec] = None,
        overrides: Sequence[str] = (),
        reward: Union[str, RewardFn] = "paper",
        max_decisions: Optional[int] = None,
        precondition: bool = True,
    ):
        self.workload = DEFAULT_WORKLOAD if workload is None else spec_of(workload)
        self._reward = reward_of(reward, REWARDS)
        self.max_decisions = optional_integer("max_decisions", max_decisions, 1, None)
        self.precondition = precondition_of(precondition)
        # A Device keeps its own TOML and overrides; the external scheduler comes last.
        self.device = device_of(device, overrides).with_overrides(('gc.scheduler="external"',))
        described = self.device.describe()
        rl = described["config"]["gc"]["rl"]
        self.actions: list[int] = list(rl["actions"])
        n_states = described["rl_states"]  # the core's binning (gc.rl), never recomputed here
        self.n_states = n_states
        blocks = described["config"]["geometry"]["blocks_per_plane"]
        big = 1e12  # intervals and latencies in µs: finite bounds keep check_env quiet
        # The last action's bound is at least 1: with the action set [0] a bound of 0 would be a
        # Box whose low equals its high, which Gymnasium's checker warns about (the space would
        # still be right: 0 is the only value).
        high = np.array([big, big, max(1, max(self.actions)), blocks, big], dtype=np.float64)
        self.action_space = spaces.Discrete(len(self.actions))
        self.observation_space = spaces.Dict({
            "state": spaces.Discrete(n_states),
            "features": spaces.Box(low=np.zeros(5), high=high, dtype=np.float64),
        })
        self._sim: Optional[_core.DecisionSimulator] = None
        self._last: Optional[dict[str, Any]] = None
        self._decisions = 0

    def _obs(self, raw: dict[str, Any]) -> dict[str, Any]:
        feats = np.array([raw[k] for k in FEATURES], dtype=np.float64)
        return {"state": int(raw["state"]), "features": feats}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        seed, given = reset_arguments(seed, options)
        super().reset(seed=seed)
        sim_seed = int(self.np_random.integers(0, 2**63 - 1))  # drawn even when given: np_random moves on alike
        if given is not None:
            sim_seed = given
        opts = build_options(self.workload, seed=sim_seed, precondition=self.precondition)
        text, origin = self.device.core_args()
        self._sim = _core.DecisionSimulator(text, origin, list(self.device.overrides), core_json(self.workload, "workload", WorkloadError), core_json(opts, "options"))
        self._decisions = 0
        first = self._sim.advance_to_decision()
        if first is None:
            raise RuntimeError("the workload ended before the first GC decision point; use a longer or heavier workload")
        self._last = json.loads(first)
        return self._obs(self._last), {"raw": self._last}

    def step(self, action):
        if self._sim is None or self._last is None:
            raise RuntimeError("call reset() before step()")
        a = action_index(action, self.action_space)
        self._sim.apply_decision(self.actions[a])
        self._decisions += 1
        nxt = self._sim.advance_to_decision()
        if nxt is None:
            obs = self._obs(self._last)
            return obs, 0.0, True, False, {"raw": self._last, "final": True}
        self._last = json.loads(nxt)
        truncated = self.max_decisions is not None and self._decisions >= self.max_decisions
        return self._obs(self._last), float(self._reward(self._last)), False, truncated, {"raw": self._last}

    def result(self) -> Result:
        """What the simulation measured so far (latency, erases, WAF …)."""
        if self._sim is None:
            raise RuntimeError("call reset() first")
        return Result.from_core(self._sim.result_json(), {}, 0.0)
