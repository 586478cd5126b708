"""Wear levelling (issue 63) in sweeps and plots: a sweep's rows have the erase distribution
(its deciles as one JSON column) and the ``wear_leveling`` section, ``ssdlab plot wear`` draws
the deciles and the spread from them (checked on the figure's data), and the kind is offered
only where wear levelling ran."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the plot extra is not installed: pip install 'ssdlab[plot]'")

import ssdlab  # noqa: E402
from ssdlab import plots  # noqa: E402
from ssdlab.plots import wear  # noqa: E402

from test_sweep import write_spec  # noqa: E402


@pytest.fixture(scope="module")
def wear_sweep(tmp_path_factory) -> Path:
    """No levelling and static levelling at T = 4, every write to a fifth of the tiny device,
    timing off: seconds."""
    d = tmp_path_factory.mktemp("wear")
    spec = write_spec(d, '[sweep]\nname = "wear"\n[base]\ndevice = "tiny"\nworkload.requests = 60000\n'
                      'workload.pattern = "hotcold"\nworkload.hot_write_fraction = 1.0\n'
                      'workload.hot_space_fraction = 0.2\noptions.timing = false\n'
                      'options.precondition = { sequential = true, random_passes = 0.0 }\n'
                      '[grid]\nset.wear_leveling = [{ static = false }, { static = true, static_threshold = 4.0 }]\n')
    ssdlab.sweep(spec, out=d / "res", jobs=0)
    return d / "res"


def test_a_wear_sweep_has_the_distribution_and_the_levellers_counts(wear_sweep):
    df = ssdlab.load(wear_sweep)
    assert (df["status"] == "ok").all() and len(df) == 2
    for _, r in df.iterrows():
        d = json.loads(r["erase_per_block.deciles"])
        assert len(d) == 11 and d == sorted(d)
        assert (d[0], d[-1]) == (r["erase_per_block.min"], r["erase_per_block.max"])
    off = df[df["set.wear_leveling.static"] == False].iloc[0]  # noqa: E712
    on = df[df["set.wear_leveling.static"] == True].iloc[0]  # noqa: E712
    assert on["wear_leveling.static_pages_copied"] > 0
    assert on["erase_per_block.cov"] < off["erase_per_block.cov"]
    assert on["waf"] > off["waf"]


def test_the_wear_plot_draws_the_deciles_and_the_spread(wear_sweep):
    src = plots.load(wear_sweep)
    assert "wear" in plots.available(src)
    fig = plots.figure("wear", src)
    df = ssdlab.load(wear_sweep)
    (curve_ax,) = [ax for ax in fig.axes if ax.get_lines()]
    lines = {l.get_label(): l for l in curve_ax.get_lines()}
    assert set(lines) == {"off", "static T=4"}
    for name, static in (("off", False), ("static T=4", True)):
        row = df[df["set.wear_leveling.static"] == static].iloc[0]
        assert list(lines[name].get_xdata()) == list(range(0, 101, 10))
        assert list(lines[name].get_ydata()) == json.loads(row["erase_per_block.deciles"])
    bars = {ax.get_ylabel(): ax for ax in fig.axes if ax.patches}
    assert set(bars) == {label for _, label in wear.BARS}
    cov = [p.get_height() for p in bars["erase count CoV"].patches]
    assert sorted(cov) == pytest.approx(sorted(df["erase_per_block.cov"]))


def test_the_wear_plot_is_for_runs_with_wear_levelling(tmp_path, cli):
    args = ["run", "-d", "tiny", "-n", "20000", "--timing", "none", "--no-progress"]
    assert cli(*args, "--json", str(tmp_path / "plain.json")).returncode == 0
    assert "wear" not in plots.available(plots.load(tmp_path / "plain.json"))
    r = cli(*args, "--set", "wear_leveling.static=true", "--set", "wear_leveling.static_threshold=4",
            "--json", str(tmp_path / "wl.json"))
    assert r.returncode == 0, r.stderr
    assert "wear levelling (static)" in r.stdout and "erase spread" in r.stdout
    one = plots.load(tmp_path / "wl.json")
    assert "wear" in plots.available(one)
    (line,) = [l for ax in plots.figure("wear", one).axes for l in ax.get_lines()]
    assert list(line.get_ydata()) == json.loads((tmp_path / "wl.json").read_text())["erase_per_block"]["deciles"]
