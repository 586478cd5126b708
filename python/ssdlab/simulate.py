"""``ssdlab.simulate``: run one workload on one device and return a typed :class:`Result`."""
from __future__ import annotations

import inspect
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Union

from ssdlab import _core, registry
from ssdlab.device import Device, device_of
from ssdlab.result import Result
from ssdlab.workload import (U32, U64, ArgumentTypeError, WorkloadSpec, callback, flag, integer, is_closed,
                             optional_integer, optional_real, real, spec_of, synthetic, wrong_type)
from ssdlab.errors import ConfigError, WorkloadError, core_json

if TYPE_CHECKING:
    import numpy as np

CHUNK = 200_000


def precondition_of(precondition: Any) -> Union[bool, dict[str, Any]]:
    """``True``, ``False`` or a dict of precondition settings; ``"yes"`` or ``1`` are refused:
    they preconditioned, being true."""
    if not (isinstance(precondition, dict) or precondition is True or precondition is False):
        raise wrong_type("precondition", "True, False or a dict of precondition settings", precondition)
    return precondition


def build_options(
    workload: WorkloadSpec,
    *,
    seed: int = 1,
    timing: bool = True,
    replay: str = "auto",
    queue_depth: Optional[int] = None,
    time_scale: float = 1.0,
    precondition: Union[bool, dict[str, Any]] = False,
    max_requests: Optional[int] = None,
    sample_interval_us: Optional[float] = None,
    check_every: int = 0,
    iostat_interval_us: Optional[float] = None,
    power_cut_us: Optional[float] = None,
) -> dict[str, Any]:
    """Run options for the core. ``replay='auto'``: closed loop for workloads without arrival
    times (closed synthetic), open loop at trace timestamps otherwise; ``queue_depth``: the
    closed loop's (default: the core's, 16). ``precondition`` is off by default here, on in
    ``ssdlab run`` and ``ssdlab sweep``: the API runs the device as given (a study of a fresh
    drive, or one the caller fills itself), the command line is for comparing policies at GC
    steady state; pass ``precondition=True`` for the command line's.

    Each option's type is checked here, and the integers' ranges (a ``ConfigError``, as the
    core's own checks of the options give): serde's "invalid type: floating point, expected
    u64" named no option, and a numpy integer was a JSON error from inside."""
    spec_of(workload)
    seed = integer("seed", seed, 0, U64, ConfigError)
    timing = flag("timing", timing)
    if not isinstance(replay, str):
        raise wrong_type("replay", "'auto', 'open' or 'closed'", replay)
    # The core's field is the replay's (replay.queue_depth): the message says whose.
    queue_depth = optional_integer("queue_depth of the closed-loop replay", queue_depth, 1, U32, ConfigError)
    time_scale = real("time_scale", time_scale)
    precondition = precondition_of(precondition)
    max_requests = optional_integer("max_requests", max_requests, 1, U64, ConfigError)
    sample_interval_us = optional_real("sample_interval_us", sample_interval_us)
    check_every = integer("check_every", check_every, 0, U64, ConfigError)
    iostat_interval_us = optional_real("iostat_interval_us", iostat_interval_us)
    power_cut_us = optional_real("power_cut_us", power_cut_us)
    if replay == "auto":
        replay = "closed" if is_closed(workload) else "open"
    if replay == "closed":
        qd = registry.defaults()["queue_depth"] if queue_depth is None else queue_depth
        rep: dict[str, Any] = {"mode": "closed-loop", "queue_depth": qd}
    elif replay == "open":
        rep = {"mode": "open-loop", "time_scale": time_scale}
    else:
        raise ValueError(f"replay: expected auto, open or closed, got {replay!r}")
    opts: dict[str, Any] = {"seed": seed, "timing": timing, "replay": rep, "check_every": check_every}
    if precondition:
        opts["precondition"] = precondition if isinstance(precondition, dict) else {}
    if max_requests is not None:
        opts["max_requests"] = max_requests
    if sample_interval_us is not None:
        opts["sample_interval_us"] = sample_interval_us
    if iostat_interval_us is not None:
        opts["iostat_interval_us"] = iostat_interval_us
    if power_cut_us is not None:
        opts["power_cut_us"] = power_cut_us
    return opts


def _absolute(workload: WorkloadSpec) -> WorkloadSpec:
    """The spec with a trace's path made absolute, so that a result can be re-run from elsewhere."""
    if workload.get("kind") == "trace" and "path" in workload:
        return {**workload, "path": str(Path(workload["path"]).resolve())}
    if workload.get("kind") == "flows" and isinstance(workload.get("flows"), list):
        return {**workload, "flows": [{**f, "workload": _absolute(f["workload"])}
                                      if isinstance(f, dict) and isinstance(f.get("workload"), dict) else f
                                      for f in workload["flows"]]}
    return workload


class Simulation:
    """A simulation advanced in chunks (for progress reporting and long runs)."""

    def __init__(self, device: Union[Device, str], workload: WorkloadSpec, options: dict[str, Any]):
        dev = device_of(device)
        spec_of(workload)
        if not isinstance(options, dict):  # serde reads a list as the fields in order: [1] was seed 1
            raise wrong_type("options", "a dict of run options (ssdlab.build_options)", options)
        text, origin = dev.core_args()
        self._core = _core.Simulation(text, origin, list(dev.overrides), core_json(workload, "workload", WorkloadError), core_json(options, "options"))
        self._started = time.perf_counter()
        self.setup = {"ssdlab_version": _core.__version__, "git_commit": _core.__git_commit__,
                      "device": {"source": dev.source, "overrides": list(dev.overrides), "toml": dev.resolved_toml()},
                      "workload": _absolute(workload), "options": options}

    def advance(self, budget: int = CHUNK) -> bool:
        """Run up to ``budget`` (≥ 1) more requests; whether the run is over."""
        return self._core.advance(integer("budget", budget, 1, U64))

    @property
    def requests_done(self) -> int:
        return self._core.requests_done()

    def result(self, arrays: bool = True) -> Result:
        """The run's result; ``arrays=False`` leaves out the numpy parts (time series, iostat
        view, latency histograms), so that a caller that needs none of them (``ssdlab run``
        without ``--json`` or ``--iostat``) never imports numpy (≈ 0.06 s of start-up)."""
        if not arrays:
            return Result.from_core(self._core.result_json(), {}, time.perf_counter() - self._started,
                                    setup=self.setup)
        r = Result.from_core(self._core.result_json(), self._core.series(), time.perf_counter() - self._started,
                             iostat=self._core.iostat(), setup=self.setup,
                             latency_histogram={op: self._core.latency_distribution(op) for op in ("read", "write", "all")})
        if r.flows:
            # Each flow's distributions in the core's logarithmic bins (what its CCDF needs;
            # types it never issued left out), as the JSON keeps them.
            for f, h in zip(r.flows, json.loads(self._core.flow_distributions_json())):
                f["latency_histogram"] = {op: v for op, v in h.items() if v["count"]}
        return r

    def iostat(self) -> dict:
        """The host view (run option ``iostat_interval_us``): one row per simulated interval, as
        numpy columns — ``t_s``, the ``iostat -x`` fields, ``svctm`` and the other pre-12
        columns, ``gc_fraction`` and the ``gc`` label."""
        return self._core.iostat()

    def latency_distribution(self, op: Optional[str] = None):
        return self._core.latency_distribution(op)

    def latency_distributions(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Every type's (``read``, ``write``, ``all``) latency distribution in the core's
        logarithmic bins (200 per decade: at most 1.2 % coarser than the histogram, exact
        counts) as ``(latency µs, count)`` arrays — what a CCDF plot needs, small enough to keep
        per run."""
        import numpy as np

        d = json.loads(self._core.latency_distributions_json())
        return {op: (np.asarray(v["latency_us"], dtype=np.float64), np.asarray(v["count"], dtype=np.int64))
                for op, v in d.items()}

    def erase_counts(self):
        return self._core.erase_counts()

    def save_q_table(self, path: str) -> None:
        """Save the learned Q-table (RL schedulers) as JSON, reusable with ``gc.rl.q_table``."""
        self._core.save_q_table(path)


def rerun(setup: dict[str, Any], progress: Optional[Callable[[int], None]] = None) -> Result:
    """Run a result's ``setup`` (``Result.setup``, or a ``--json`` file's ``setup``) again:
    the same device (its resolved TOML), workload and options give the same result."""
    callback("progress", progress)
    if not isinstance(setup, dict):
        raise wrong_type("setup", "a result's setup dict (Result.setup, or a --json file's setup)", setup)
    try:
        dev = Device.from_toml(setup["device"]["toml"], setup["device"].get("source", "result"))
        wl, opts = setup["workload"], setup["options"]
    except (KeyError, TypeError) as e:
        raise ConfigError(f"setup: expected device.toml, workload and options (a result's setup), missing {e}") from None
    sim = Simulation(dev, wl, opts)
    sim.setup["device"] = dict(setup["device"])  # as first given (its preset and overrides)
    while not sim.advance(CHUNK):
        if progress is not None:
            progress(sim.requests_done)
    return sim.result()


def simulate(
    device: Union[Device, str] = "mqsim-small",
    workload: Optional[WorkloadSpec] = None,
    *,
    overrides: Sequence[str] = (),
    progress: Optional[Callable[[int], None]] = None,
    **options: Any,
) -> Result:
    """Simulate ``workload`` (default: 100k uniform random single-page writes) on ``device``
    (a preset name, a TOML path, or a :class:`Device`). Keyword options: ``seed``, ``timing``,
    ``replay`` (auto/open/closed), ``queue_depth``, ``time_scale``, ``precondition`` (off unless
    asked, unlike ``ssdlab run``: :func:`build_options` says why),
    ``max_requests``, ``sample_interval_us``, ``iostat_interval_us`` (the host's ``iostat -x``
    view, returned as ``Result.iostat``), ``power_cut_us`` (cut the power then: requests after
    it are not served, ``Result.write_cache["power_cut"]`` says what a volatile write cache lost).
    """
    wl = spec_of(workload) if workload is not None else synthetic("uniform", 100_000)
    dev = device_of(device, overrides)  # a Device's own TOML kept, the overrides after its own
    callback("progress", progress)
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ArgumentTypeError(f"simulate: unknown option {unknown[0]!r}; expected one of: {', '.join(OPTIONS)}")
    sim = Simulation(dev, wl, build_options(wl, **options))
    while not sim.advance(CHUNK):
        if progress is not None:
            progress(sim.requests_done)
    return sim.result()


#: :func:`simulate`'s keyword options: :func:`build_options`'s.
OPTIONS = tuple(inspect.signature(build_options).parameters)[1:]
