"""Flash errors (issue 63) in sweeps and plots: a sweep's rows have the result's
``flash.errors`` section as columns, ``ssdlab plot errors`` draws a P/E sweep from them (checked
on the figure's data: the retry rate and read p99.9 rise with wear), and the kind is not offered
for runs without the error model."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the plot extra is not installed: pip install 'ssdlab[plot]'")

import ssdlab  # noqa: E402
from ssdlab import plots  # noqa: E402

from test_sweep import write_spec  # noqa: E402

PE = [0, 1000, 2000]
AGES = [30, 365]


@pytest.fixture(scope="module")
def wear_sweep(tmp_path_factory) -> Path:
    """3 P/E values × 2 ages on the tiny device (TLC), reads only after preconditioning: seconds."""
    d = tmp_path_factory.mktemp("errors")
    spec = write_spec(d, '[sweep]\nname = "wear"\n[base]\ndevice = "tiny"\nworkload.requests = 4000\n'
                      'workload.read_fraction = 1.0\nset.reliability.errors = true\noptions.precondition = true\n'
                      f'[grid]\nset.reliability.initial_pe = {PE}\nset.reliability.age_days = {AGES}\n')
    ssdlab.sweep(spec, out=d / "res", jobs=0)
    return d / "res"


def test_a_wear_sweep_has_the_errors_section_as_columns(wear_sweep):
    df = ssdlab.load(wear_sweep)
    assert (df["status"] == "ok").all() and len(df) == len(PE) * len(AGES)
    for col in ("page_reads", "retried_reads", "retry_rate", "retry_steps", "uncorrectable_reads", "uber",
                "retry_time_s", "max_rber"):
        assert df[f"flash.errors.{col}"].notna().all(), col
    old = df[df["set.reliability.age_days"] == 365].sort_values("set.reliability.initial_pe")
    assert list(old["flash.errors.retry_rate"]) == sorted(old["flash.errors.retry_rate"])
    assert old["flash.errors.retry_rate"].iloc[0] == 0 and old["flash.errors.retry_rate"].iloc[-1] > 0.5


def test_the_errors_plot_draws_a_wear_sweep(wear_sweep):
    src = plots.load(wear_sweep)
    assert "errors" in plots.available(src)
    fig = plots.figure("errors", src)
    panels = {ax.get_ylabel(): ax for ax in fig.axes if ax.get_lines()}
    assert set(panels) == {"reads retried", "retry steps per read", "largest RBER", "reads uncorrectable",
                           "read p99 (µs)", "read p99.9 (µs)"}
    df = ssdlab.load(wear_sweep)
    for label, col in (("reads retried", "flash.errors.retry_rate"), ("read p99.9 (µs)", "latency_us.read.p99_9")):
        ax = panels[label]
        assert ax.get_xlabel() == "P/E cycles before the run"
        assert sorted(l.get_label() for l in ax.get_lines()) == ["data 30 days old", "data 365 days old"]
        for line in ax.get_lines():
            age = int(line.get_label().split()[1])
            rows = df[df["set.reliability.age_days"] == age].sort_values("set.reliability.initial_pe")
            assert list(line.get_xdata()) == PE
            assert list(line.get_ydata()) == pytest.approx(list(rows[col]))
    steps = panels["retry steps per read"].get_lines()
    old = next(l for l in steps if "365" in l.get_label())
    rows = df[df["set.reliability.age_days"] == 365].sort_values("set.reliability.initial_pe")
    want = rows["flash.errors.retry_steps"] / rows["flash.errors.page_reads"]
    assert list(old.get_ydata()) == pytest.approx(list(want))


def test_the_errors_plot_is_not_for_runs_without_the_model(tmp_path, cli):
    r = cli("run", "-d", "tiny", "-n", "2000", "--json", str(tmp_path / "plain.json"), "--no-progress")
    assert r.returncode == 0, r.stderr
    plain = plots.load(tmp_path / "plain.json")
    assert "errors" not in plots.available(plain)
    with pytest.raises(ValueError, match="nothing to draw as errors"):
        plots.figure("errors", plain)
