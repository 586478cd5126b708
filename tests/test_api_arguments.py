"""The Python API and the Gymnasium environments check their arguments (issue 58): a wrong type
is a ``TypeError``, a value out of range a ``ValueError`` (the environments) or the ssdlab error
of its kind (``ConfigError`` for run options, ``WorkloadError`` for a workload's fields), and
every message names the argument — never an ``AttributeError`` from inside, a string of
overrides read character by character, or an action silently rounded. One test per kind of
argument; each case failed before the checks (the case's comment says how)."""
from __future__ import annotations

import numpy as np
import pytest

import ssdlab
from ssdlab import workload as wl
from ssdlab.envs.gc_scheduling import GcSchedulingEnv
from ssdlab.envs.slc_cache import SlcCacheEnv

#: A few hundred requests on the tiny device: every case here runs in milliseconds.
W = wl.synthetic("uniform", 300)
#: Bursty writes with idle gaps, enough for GC decision points on ``tiny`` (the GC env's default
#: workload, shorter).
GC_W = {**ssdlab.envs.gc_scheduling.DEFAULT_WORKLOAD, "requests": 3_000}


def raises(exc: type, name: str, call) -> BaseException:
    """``call()`` raises ``exc`` with a one-line message under 300 characters naming ``name``."""
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert name in msg, msg
    assert len(msg) < 300 and "\n" not in msg, msg
    assert not isinstance(info.value, AttributeError)
    return info.value


def sim(**kw):
    return lambda: ssdlab.simulate("tiny", W, **kw)


def fresh() -> ssdlab.Simulation:
    return ssdlab.Simulation("tiny", W, ssdlab.build_options(W))


@pytest.fixture(scope="module")
def gc_env() -> GcSchedulingEnv:
    env = GcSchedulingEnv(workload=GC_W)
    env.reset(seed=0)
    return env


@pytest.fixture(scope="module")
def slc_env() -> SlcCacheEnv:
    env = SlcCacheEnv()
    env.reset(seed=0)
    return env


@pytest.mark.parametrize("call", [
    sim(overrides="gc.victim=fifo"),  # read as 14 one-character overrides: "config --set g"
    sim(overrides=3),  # "'int' object is not iterable"
    sim(overrides=None),  # "'NoneType' object is not iterable"
    sim(overrides=[3]),  # the binding's "argument 'overrides': 'int' object cannot be converted"
    lambda: ssdlab.Device("tiny", "gc.victim=fifo"),  # character by character, at first use
    lambda: GcSchedulingEnv(overrides="gc.victim=fifo"),  # character by character
    lambda: SlcCacheEnv(overrides="cache.theta_kib=16"),  # a ValueError, not a TypeError
    lambda: SlcCacheEnv(overrides=[3]),  # the binding's error, naming no element
], ids=["simulate-str", "simulate-int", "simulate-none", "simulate-element", "device-str", "gc-env-str",
        "slc-env-str", "slc-env-element"])
def test_overrides_are_a_list_of_strings(call):
    raises(TypeError, "overrides", call)


@pytest.mark.parametrize("call, name", [
    (lambda: ssdlab.simulate("tiny", 3), "workload"),  # AttributeError: 'int' object has no attribute 'get'
    (lambda: ssdlab.simulate("tiny", "uniform"), "workload"),  # the same AttributeError
    (lambda: ssdlab.simulate("tiny", [W]), "workload"),  # the same AttributeError
    (lambda: ssdlab.build_options(3), "workload"),  # the same AttributeError
    (lambda: ssdlab.Simulation("tiny", 3, ssdlab.build_options(W)), "workload"),  # serde's "internally tagged enum"
    (lambda: GcSchedulingEnv(workload=3), "workload"),  # accepted; failed at reset
    (lambda: GcSchedulingEnv(workload="pc"), "workload"),  # accepted; failed at reset
    (lambda: SlcCacheEnv(workload=3), "workload"),  # a ValueError, not a TypeError
    (lambda: ssdlab.simulate("tiny", wl.synthetic("uniform", 10, arrival="closed")), "arrival"),  # AttributeError
    (lambda: wl.trace(3), "path"),  # a TraceError "3: No such file or directory" at run time
], ids=["simulate-int", "simulate-str", "simulate-list", "build-options", "simulation", "gc-env-int", "gc-env-str",
        "slc-env-int", "synthetic-arrival", "trace-path"])
def test_a_workload_is_a_workload_spec(call, name):
    raises(TypeError, name, call)


@pytest.mark.parametrize("call, name", [
    (lambda: ssdlab.simulate(3, W), "device"),  # pathlib's "expected str, bytes or os.PathLike object"
    (lambda: ssdlab.simulate(None, W), "device"),  # the same
    (lambda: ssdlab.Device(3).describe(), "source"),  # the same
    (lambda: ssdlab.Device("mine", (), 3).describe(), "toml"),  # the binding's "argument 'device'"
    (lambda: GcSchedulingEnv(device={"geometry": {}}), "device"),  # pathlib's
    (lambda: SlcCacheEnv(device=3), "device"),  # pathlib's
], ids=["simulate-int", "simulate-none", "device-source", "device-toml", "gc-env", "slc-env"])
def test_a_device_is_a_name_a_path_or_a_device(call, name):
    raises(TypeError, name, call)


def test_a_device_from_toml_keeps_its_toml_with_more_overrides():
    # The envs and simulate(overrides=...) rebuilt the Device from its source alone: a
    # Device.from_toml then was "--device mine: not a preset ... nor a readable TOML file".
    dev = ssdlab.Device.from_toml(ssdlab.Device("tiny").resolved_toml(), "mine")
    r = ssdlab.simulate(dev, W, overrides=["gc.victim=fifo"])
    assert r.setup["device"]["overrides"] == ["gc.victim=fifo"]
    env = GcSchedulingEnv(device=dev, workload=GC_W)
    assert env.device.toml == dev.toml


@pytest.mark.parametrize("action", [1.0, 1.5, np.float64(1.0), "1", None, True, np.bool_(True), [1], np.array([1])],
                         ids=repr)
@pytest.mark.parametrize("which", ["gc", "slc"])
def test_an_action_is_an_integer_never_rounded(action, which, gc_env, slc_env):
    # The GC env took int(action): 1.5 ran action 1, "1" and True ran action 1, np.float64(1.0)
    # too; the SLC env's were ValueErrors (and True ran action 1).
    env = gc_env if which == "gc" else slc_env
    raises(TypeError, "action", lambda: env.step(action))


@pytest.mark.parametrize("which", ["gc", "slc"])
def test_an_action_is_in_the_action_space(which, gc_env, slc_env):
    env = gc_env if which == "gc" else slc_env
    n = env.action_space.n
    for bad in (-1, n, np.int64(n)):
        err = raises(ValueError, "action", lambda: env.step(bad))
        assert f"0..{n - 1}" in str(err)  # what was expected: "outside Discrete(n)" said no range
    for ok in (np.int64(1), np.array(1), np.uint8(0)):  # numpy integers, as action_space.sample() gives
        env.step(ok)


@pytest.mark.parametrize("call, exc", [
    (lambda: GcSchedulingEnv(max_decisions=-1), ValueError),  # accepted
    (lambda: GcSchedulingEnv(max_decisions=0), ValueError),  # accepted
    (lambda: GcSchedulingEnv(max_decisions=1.5), TypeError),  # accepted
    (lambda: GcSchedulingEnv(max_decisions="10"), TypeError),  # accepted
    (lambda: SlcCacheEnv(max_decisions=2.0), TypeError),  # a ValueError
    (lambda: SlcCacheEnv(max_decisions=True), TypeError),  # a ValueError
], ids=["gc-negative", "gc-zero", "gc-float", "gc-str", "slc-float", "slc-bool"])
def test_an_episode_length_is_a_positive_integer(call, exc):
    raises(exc, "max_decisions", call)


@pytest.mark.parametrize("call, exc, name", [
    (sim(max_requests=0), ssdlab.ConfigError, "max_requests"),  # ran nothing, WAF 0
    (sim(max_requests=1.5), TypeError, "max_requests"),  # serde's "invalid type: floating point"
    (sim(max_requests="5"), TypeError, "max_requests"),
    (sim(queue_depth=1.5), TypeError, "queue_depth"),  # "replay: invalid type", naming no queue_depth
    (sim(check_every=2.5), TypeError, "check_every"),
    (lambda: wl.synthetic("uniform", -1), ssdlab.WorkloadError, "requests"),  # "invalid value: integer `-1`"
    (lambda: wl.synthetic("uniform", 1.5), TypeError, "requests"),  # naming no field
    (lambda: wl.preset("home1", 0), ssdlab.WorkloadError, "requests"),  # at run time
    (lambda: wl.fs("fio-randwrite", 2.5), TypeError, "requests"),
    (lambda: wl.synthetic("uniform", 10, request_pages=1.5), TypeError, "request_pages"),
    (lambda: wl.synthetic("uniform", 10, read_fraction="x"), TypeError, "read_fraction"),  # naming no field
    (lambda: wl.trace("t.csv", max_requests=0), ssdlab.WorkloadError, "max_requests"),
    (lambda: wl.trace("t.csv", repeat=2.0), TypeError, "repeat"),
], ids=["max-requests-zero", "max-requests-float", "max-requests-str", "queue-depth", "check-every",
        "requests-negative", "requests-float", "preset-requests", "fs-requests", "request-pages", "read-fraction",
        "trace-max-requests", "trace-repeat"])
def test_counts_are_integers_in_range(call, exc, name):
    raises(exc, name, call)


def test_numpy_numbers_are_accepted():
    # json.dumps refused them: "Object of type int64 is not JSON serializable", from inside.
    w = wl.synthetic("uniform", np.int64(300), read_fraction=np.float32(0.25))
    r = ssdlab.simulate("tiny", w, seed=np.int64(3), max_requests=np.int32(200))
    assert r.requests["total"] == 200 and r.seed == 3


@pytest.mark.parametrize("call, exc", [
    (lambda: GcSchedulingEnv(reward="nope"), ValueError),
    (lambda: GcSchedulingEnv(reward=1), TypeError),  # accepted; failed at the first step
    (lambda: SlcCacheEnv(reward="nope"), ValueError),
    (lambda: SlcCacheEnv(reward=1), TypeError),  # a ValueError
], ids=["gc-unknown", "gc-int", "slc-unknown", "slc-int"])
def test_a_reward_is_a_known_name_or_a_callable(call, exc):
    err = raises(exc, "reward", call)
    assert "paper" in str(err)  # the names it knows


@pytest.mark.parametrize("call, exc, name", [
    (sim(seed=1.5), TypeError, "seed"),  # ConfigError "invalid type: floating point"
    (sim(seed="1"), TypeError, "seed"),
    (sim(seed=True), TypeError, "seed"),
    (sim(seed=2**64), ssdlab.ConfigError, "18446744073709551616"),  # "floating point `1.8446744073709552e+19`"
    (lambda: GcSchedulingEnv(workload=GC_W).reset(seed=-1), ValueError, "seed"),  # gymnasium.error.Error
    (lambda: GcSchedulingEnv(workload=GC_W).reset(options={"sim_seed": 1.5}), TypeError, "sim_seed"),  # int(1.5)
    (lambda: GcSchedulingEnv(workload=GC_W).reset(options={"sim_seed": -1}), ValueError, "sim_seed"),  # ConfigError
    (lambda: GcSchedulingEnv(workload=GC_W).reset(options={"seed": 1}), ValueError, "sim_seed"),  # ignored
    (lambda: GcSchedulingEnv(workload=GC_W).reset(options=[1]), TypeError, "options"),  # ignored
    (lambda: SlcCacheEnv().reset(options={"sim_seed": "3"}), TypeError, "sim_seed"),  # int("3")
    (lambda: SlcCacheEnv().reset(options={"sim_seed": 2**64}), ValueError, "sim_seed"),  # ConfigError
    (lambda: SlcCacheEnv().reset(options=[1]), TypeError, "options"),  # a ValueError
], ids=["float", "str", "bool", "too-large", "gc-reset-negative", "gc-sim-seed-float", "gc-sim-seed-negative",
        "gc-unknown-option", "gc-options-list", "slc-sim-seed-str", "slc-sim-seed-too-large", "slc-options-list"])
def test_seeds_are_integers_in_range(call, exc, name):
    raises(exc, name, call)


def test_numpy_seeds_reset_an_env():
    # gymnasium's "Seed must be a python integer" for np.int64.
    env = GcSchedulingEnv(workload=GC_W)
    a, _ = env.reset(seed=np.int64(3))
    b, _ = env.reset(seed=3)
    assert a["state"] == b["state"] and np.array_equal(a["features"], b["features"])


@pytest.mark.parametrize("call, exc, name", [
    (sim(timing="no"), TypeError, "timing"),
    (sim(precondition="yes"), TypeError, "precondition"),  # ran preconditioned
    (sim(precondition=1), TypeError, "precondition"),  # ran preconditioned
    (sim(replay=3), TypeError, "replay"),
    (sim(time_scale="x"), TypeError, "time_scale"),  # "replay: invalid type: string"
    (sim(iostat_interval_us=[1]), TypeError, "iostat_interval_us"),
    (sim(check_every=-1), ssdlab.ConfigError, "check_every"),
    (sim(sed=1), TypeError, "sed"),
    (sim(progress=3), TypeError, "progress"),  # never called in a short run; TypeError from inside otherwise
    (lambda: ssdlab.rerun({}, progress="bar"), TypeError, "progress"),
    (lambda: ssdlab.Simulation("tiny", W, [1]), TypeError, "options"),  # read as seed 1
    (lambda: ssdlab.Simulation("tiny", W, None), TypeError, "options"),
    (lambda: fresh().advance(-1), ValueError, "budget"),  # OverflowError
    (lambda: fresh().advance(0), ValueError, "budget"),  # advanced nothing
    (lambda: fresh().advance(2.5), TypeError, "budget"),
    (lambda: ssdlab.rerun(3), TypeError, "setup"),  # ConfigError "missing 'int' object is not subscriptable"
    (lambda: GcSchedulingEnv(precondition="no"), TypeError, "precondition"),  # accepted: preconditioned
], ids=["timing", "precondition-str", "precondition-int", "replay", "time-scale", "iostat-interval", "check-every",
        "unknown-option", "progress", "rerun-progress", "options-list", "options-none", "budget-negative",
        "budget-zero", "budget-float", "rerun-setup", "gc-env-precondition"])
def test_run_options_are_checked(call, exc, name):
    raises(exc, name, call)


def test_a_long_value_is_shortened_in_the_message():
    err = raises(TypeError, "workload", lambda: ssdlab.simulate("tiny", "x" * 10_000))
    assert "..." in str(err) or "…" in str(err)
    raises(TypeError, "overrides", lambda: ssdlab.simulate("tiny", W, overrides="gc.victim=fifo" * 1000))


def test_type_errors_are_value_errors_too():
    # The SLC env raised ValueError for a wrong type; code catching that keeps catching it.
    with pytest.raises(ValueError, match="overrides"):
        SlcCacheEnv(overrides="cache.theta_kib=16")
    with pytest.raises(ValueError, match="action"):
        env = SlcCacheEnv()
        env.reset(seed=0)
        env.step(1.5)
