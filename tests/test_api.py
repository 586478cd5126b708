"""The Python API: typed results, seeds, overrides, numpy series, errors as exceptions."""
from __future__ import annotations

import numpy as np
import pytest

import ssdlab
from ssdlab import workload as wl


def test_simulate_returns_typed_result_with_gc_active():
    r = ssdlab.simulate("tiny", wl.synthetic("uniform", 20_000), precondition=True)
    assert isinstance(r, ssdlab.Result)
    assert r.requests["write"] == 20_000 and r.requests["total"] == 20_000
    assert r.host_pages_written == 20_000
    assert r.gc_pages_copied > 0 and r.erases > 0 and r.gc_invocations > 0
    assert r.waf == pytest.approx((r.host_pages_written + r.gc_pages_copied) / r.host_pages_written)
    w = r.latency_us.write
    assert w.count == 20_000
    assert w.p50 <= w.p99 <= w.p99_9 <= w.p99_99 <= w.p99_9999 <= w.max
    assert r.latency_us.read.count == 0


def test_series_are_numpy_arrays_of_equal_length():
    r = ssdlab.simulate("tiny", wl.synthetic("uniform", 20_000), precondition=True, sample_interval_us=10_000)
    lengths = {k: len(v) for k, v in r.series.items()}
    assert set(lengths) == {"time_s", "host_pages", "free_blocks", "waf", "gc_pages", "erases", "requests"}
    assert len(set(lengths.values())) == 1 and lengths["time_s"] > 10
    assert all(isinstance(v, np.ndarray) for v in r.series.values())
    assert np.all(np.diff(r.series["time_s"]) >= 0)
    assert int(r.series["gc_pages"].sum()) == r.gc_pages_copied
    assert int(r.series["requests"].sum()) == r.requests["total"]


def test_same_seed_same_result_and_seed_matters():
    spec = wl.synthetic("hotcold", 10_000, read_fraction=0.3)
    a = ssdlab.simulate("tiny", spec, seed=3, precondition=True, overrides=["gc.victim=random"]).to_dict()
    b = ssdlab.simulate("tiny", spec, seed=3, precondition=True, overrides=["gc.victim=random"]).to_dict()
    c = ssdlab.simulate("tiny", spec, seed=4, precondition=True, overrides=["gc.victim=random"]).to_dict()
    for d in (a, b, c):
        d.pop("wall_time_s")
    assert a == b
    assert a != c


def test_overrides_change_the_device():
    base = ssdlab.simulate("tiny", wl.synthetic("uniform", 5_000), precondition=True, timing=False)
    more_spare = ssdlab.simulate("tiny", wl.synthetic("uniform", 5_000), precondition=True, timing=False,
                                 overrides=["geometry.spare_factor=0.4"])
    assert more_spare.waf < base.waf


def test_timing_free_mode_reports_no_latency():
    r = ssdlab.simulate("tiny", wl.synthetic("uniform", 5_000), timing=False, precondition=True)
    assert not r.timing and r.latency_us.all.count == 0 and r.waf > 1


def test_device_describe_derives_capacity():
    d = ssdlab.Device("mqsim-small").describe()
    assert d["planes"] == 16
    assert d["physical_pages"] == 16 * 512 * 128
    assert d["logical_pages"] == int(16 * 512 * 128 * 0.93)


@pytest.mark.parametrize(
    "overrides, exc, fragment",
    [
        (["geometry.nope=1"], ssdlab.ConfigError, "unknown field `nope`"),
        (["geometry.channels=0"], ssdlab.ConfigError, "geometry.channels"),
        (["geometry.spare_factor=1.5"], ssdlab.ConfigError, "spare_factor"),
        (["gc.victim=best"], ssdlab.ConfigError, "unknown victim policy 'best'"),
        (["gc.scheduler=magic"], ssdlab.ConfigError, "unknown GC scheduler"),
        (["geometry.page_size=1000"], ssdlab.ConfigError, "power of two"),
    ],
)
def test_bad_config_raises_clear_errors(overrides, exc, fragment):
    with pytest.raises(exc, match=None) as info:
        ssdlab.simulate("tiny", wl.synthetic("uniform", 10), overrides=overrides)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_bad_workload_raises_workload_error():
    with pytest.raises(ssdlab.WorkloadError, match="read_fraction"):
        ssdlab.simulate("tiny", wl.synthetic("uniform", 10, read_fraction=2.0))


def test_device_file_round_trip(tmp_path):
    toml = ssdlab.Device("tiny").describe()["toml"]
    path = tmp_path / "dev.toml"
    path.write_text(toml)
    r1 = ssdlab.simulate(str(path), wl.synthetic("uniform", 2_000), precondition=True)
    r2 = ssdlab.simulate("tiny", wl.synthetic("uniform", 2_000), precondition=True)
    assert r1.waf == r2.waf and r1.latency_us.write == r2.latency_us.write
    path.write_text(toml + "\n[extra]\nx = 1\n")
    with pytest.raises(ssdlab.ConfigError, match="unknown field `extra`"):
        ssdlab.simulate(str(path), wl.synthetic("uniform", 10))


def test_a_device_is_parsed_and_validated_once(monkeypatch):
    # resolved_toml, advisories, the memory estimate and describe share one description.
    from ssdlab import _core
    calls = []
    real = _core.device_json
    monkeypatch.setattr(_core, "device_json", lambda *a: calls.append(a) or real(*a))
    d = ssdlab.Device("tiny", ("gc.victim=fifo",))
    d.resolved_toml(), d.advisories(), d.memory_estimate_bytes(), d.describe()
    assert len(calls) == 1
    # A caller's edit of describe()'s answer is its own.
    d.describe()["toml"] = "changed"
    assert d.describe()["toml"] == d.resolved_toml() != "changed"
