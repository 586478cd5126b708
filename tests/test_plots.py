"""``ssdlab plot`` and ``ssdlab report`` (issue 14): every plot kind draws what its source holds
(checked on the figure's data, not by eye), sources are recognised whatever wrote them, the
report is one self-contained file, and bad input is one line."""
from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="the plot extra is not installed: pip install 'ssdlab[plot]'")

import ssdlab  # noqa: E402
from ssdlab import plots  # noqa: E402
from ssdlab.plots import ccdf, source  # noqa: E402

from test_sweep import write_spec  # noqa: E402


@pytest.fixture(scope="module")
def run_json(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("run") / "r.json"
    r = subprocess.run([sys.executable, "-m", "ssdlab", "run", "-d", "tiny", "-n", "20000", "--read-fraction", "0.3",
                        "--json", str(p), "--no-progress"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return p


@pytest.fixture(scope="module")
def sweep_store(tmp_path_factory) -> Path:
    """A 2 victims × 2 spare factors × 2 seeds grid on the tiny device."""
    d = tmp_path_factory.mktemp("sweep")
    spec = write_spec(d, '[sweep]\nname = "plots"\n[base]\ndevice = "tiny"\nworkload.requests = 3000\n'
                      'workload.read_fraction = 0.2\noptions.precondition = true\n[grid]\n'
                      'set.gc.victim = ["greedy", "random"]\nset.geometry.spare_factor = [0.1, 0.2]\nseed = [1, 2]\n')
    ssdlab.sweep(spec, out=d / "res", jobs=0)
    return d / "res"


@pytest.fixture(scope="module")
def rlgc_json(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("rlgc")
    r = subprocess.run([sys.executable, "-m", "ssdlab", "experiment", "rlgc", "-d", "tiny", "-n", "10000", "--repeat", "2",
                        "--schedulers", "lazyrtgc,rlgc", "--no-references", "--report", str(d / "rlgc.html")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return d / "rlgc.json"


def ccdf_lines(fig):
    return {l.get_label(): l for ax in fig.axes for l in ax.get_lines()}


def test_a_run_has_the_kinds_its_data_allows_and_the_ccdf_is_its_histogram(run_json):
    src = plots.load(run_json)
    assert src.kind == "run" and plots.available(src) == ["ccdf", "percentiles", "series"]
    d = json.loads(run_json.read_text())
    for op in ("read", "write", "all"):
        fig = plots.figure("ccdf", src, op)
        (line,) = ccdf_lines(fig).values()
        x, y = line.get_xdata(), line.get_ydata()
        count = d["latency_us"][op]["count"]
        # Starts at 1, ends at the maximum (to the histogram's 3 digits) at the height of the
        # slowest bucket's share.
        last = d["latency_histogram"][op]["count"][-1]
        assert y[0] == 1.0 and y[-1] == pytest.approx(last / count)
        assert x[-1] * 1000 == pytest.approx(d["latency_us"][op]["max"], rel=1e-3)
        assert np.all(np.diff(y) <= 0) and np.all(np.diff(x) >= 0)
        ax = fig.axes[0]
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log" and ax.get_ylim()[0] <= 1e-6
        assert "(ms)" in ax.get_xlabel() or "(µs)" in ax.get_xlabel()
    # Percentile bars are the result's percentiles.
    fig = plots.figure("percentiles", src, "write")
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights == [d["latency_us"]["write"][k] for k in ("p50", "p99", "p99_9", "p99_99")]


def test_ccdf_points_are_the_fraction_slower():
    x, y = ccdf.ccdf_points(np.array([1.0, 2.0, 4.0]), np.array([2, 1, 1]))
    assert list(x) == [1.0, 1.0, 2.0, 4.0] and list(y) == [1.0, 0.5, 0.25, 0.25]


def test_a_sweep_compares_its_axes_with_seeds_merged(sweep_store):
    src = plots.load(sweep_store)
    assert src.kind == "sweep" and src.axes == ["set.gc.victim", "set.geometry.spare_factor"]
    assert [g.label for g in src.groups] == ["victim=greedy, spare_factor=0.1", "victim=greedy, spare_factor=0.2",
                                             "victim=random, spare_factor=0.1", "victim=random, spare_factor=0.2"]
    df = ssdlab.load(sweep_store)
    for g in src.groups:
        rows = df[(df["set.gc.victim"] == g.keys["set.gc.victim"])
                  & (df["set.geometry.spare_factor"] == g.keys["set.geometry.spare_factor"])]
        assert len(rows) == 2  # two seeds, averaged and merged
        assert g.scalars["waf"] == pytest.approx(rows.waf.mean())
        assert g.histogram["all"][1].sum() == rows["latency_us.all.count"].sum()
    # A grid draws as lines against its numeric axis, one line per victim.
    fig = plots.figure("waf", src)
    lines = {l.get_label(): l for l in fig.axes[0].get_lines()}
    assert set(lines) == {"victim=greedy", "victim=random"}
    assert list(lines["victim=random"].get_xdata()) == [0.1, 0.2]
    # The CCDF: one panel per spare factor.
    fig = plots.figure("ccdf", src)
    assert [ax.get_title() for ax in fig.axes] == ["spare_factor=0.1", "spare_factor=0.2"]


def test_sweep_store_keeps_each_runs_latency_distribution_and_the_spec(sweep_store):
    from ssdlab.sweeps.store import Store

    st = Store(sweep_store)
    df = ssdlab.load(sweep_store)
    for _, row in df.iterrows():
        h = st.histogram(row.id)
        assert set(h) == {"read", "write", "all"} or set(h) == {"write", "all"}
        assert h["all"][1].sum() == row["latency_us.all.count"]
        assert h["write"][0][-1] == pytest.approx(row["latency_us.write.max"])
    assert "spare_factor" in st.specs()["plots"]


def test_experiment_json_names_itself_and_draws_its_groups(rlgc_json):
    d = json.loads(rlgc_json.read_text())
    assert d["experiment"] == "rlgc" and d["command"].startswith("ssdlab experiment rlgc -d tiny")
    src = plots.load(rlgc_json)
    assert [g.label for g in src.groups] == ["lazyrtgc", "rlgc"] and src.op == "write"
    lines = ccdf_lines(plots.figure("ccdf", src))
    # Two seeds merged: the line ends at one request of both runs' writes.
    writes = sum(r["latency_us"]["write"]["count"] for r in d["schedulers"]["rlgc"]["runs"])
    assert lines["rlgc"].get_ydata()[-1] == pytest.approx(1 / writes, rel=0.02)
    # Without its name (a JSON from before the report), it is recognised by its keys.
    del d["experiment"]
    assert source.from_dict(d, rlgc_json).kind == "rlgc"


def test_report_is_one_self_contained_file_with_every_figure(rlgc_json, sweep_store, tmp_path, cli):
    html = (rlgc_json.with_suffix(".html")).read_text()
    imgs = re.findall(r"<img [^>]*src='data:image/png;base64,([^']+)'", html)
    assert len(imgs) == len(plots.available(plots.load(rlgc_json))) >= 3
    assert all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in imgs)
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", html)  # nothing fetched from a network
    assert "ssdlab experiment rlgc -d tiny" in html and "ssdlab plot ccdf" in html
    assert "write latency normalised to LazyRTGC" in html  # the experiment's own tables
    out = tmp_path / "sweep.html"
    r = cli("report", str(sweep_store), "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "ssdlab sweep" in text and "specs/plots.toml" in text and "victim=random, spare_factor=0.2" in text
    assert text.count("<img ") == len(plots.available(plots.load(sweep_store)))


def test_plot_writes_png_and_svg(run_json, tmp_path, cli):
    for suffix in ("png", "svg"):
        out = tmp_path / f"c.{suffix}"
        r = cli("plot", "ccdf", str(run_json), "-o", str(out))
        assert r.returncode == 0, r.stderr
        head = out.read_bytes()[:200]
        assert head.startswith(b"\x89PNG") if suffix == "png" else b"<svg" in head or b"<?xml" in head


@pytest.mark.parametrize("args, fragments", [
    (["plot", "pie", "{run}"], ["KIND: expected one of ccdf", "got 'pie'"]),
    (["plot", "qtable", "{run}"], ["qtable: ", "has nothing to draw as qtable", "it has: ccdf, percentiles"]),
    (["plot", "ccdf", "{run}", "-o", "{tmp}/x.gif"], ["--output/-o", "expected a file name ending in .png, .svg, .pdf"]),
    (["plot", "ccdf", "{run}", "--op", "trim"], ["--op: expected one of read, write, all"]),
    (["plot", "ccdf", "{tmp}/none.json"], ["none.json: no such file or folder"]),
    (["plot", "ccdf", "{tmp}/bad.json"], ["bad.json:1: expected the JSON ssdlab writes"]),
    (["plot", "ccdf", "{tmp}/other.json"], ["other.json: expected the --json of ssdlab run or of an experiment"]),
    (["report", "{tmp}", "-o", "{tmp}/r.html"], ["not a sweep results store"]),
    (["report", "{run}", "-o", "{tmp}/no/r.html"], ["--output", "does not exist"]),
])
def test_bad_input_is_one_line(run_json, tmp_path, cli, args, fragments):
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text('{"a": 1}')
    r = cli(*(a.format(run=run_json, tmp=tmp_path) for a in args))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("ssdlab: error: ")
    for f in fragments:
        assert f in r.stderr, r.stderr


def test_without_matplotlib_plot_and_report_name_the_extra(run_json, tmp_path):
    block = ("import sys, importlib.abc\n"
             "class B(importlib.abc.MetaPathFinder):\n"
             "    def find_spec(self, name, path, target=None):\n"
             "        if name.split('.')[0] == 'matplotlib': raise ImportError('blocked')\n"
             "sys.meta_path.insert(0, B())\n"
             "from ssdlab.cli import main\n"
             "main(sys.argv[1:])\n")
    for args in (["plot", "ccdf", str(run_json)], ["report", str(run_json), "-o", str(tmp_path / "r.html")],
                 ["experiment", "offline", "--toy", "--report", str(tmp_path / "t.html")]):
        r = subprocess.run([sys.executable, "-c", block, *args], capture_output=True, text=True)
        assert r.returncode == 2 and "pip install 'ssdlab[plot]'" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t.json").exists()  # refused before the experiment ran


def test_a_cache_size_sweep_draws_its_ratios_per_size_and_a_run_its_dirty_pages(tmp_path, cli):
    d = tmp_path
    spec = write_spec(d, '[sweep]\nname = "cache"\n[base]\ndevice = "tiny"\nworkload.requests = 3000\n'
                      'workload.pattern = "hotcold"\nset.write_cache.mode = "write-back"\n'
                      'options.precondition = true\n[grid]\nset.write_cache.size_mib = [0, 0.125, 1]\n'
                      'workload.read_fraction = [0.0, 0.5]\n')
    ssdlab.sweep(spec, out=d / "res", jobs=0)
    src = plots.load(d / "res")
    assert "cache" in plots.available(src)
    fig = plots.figure("cache", src)
    panels = {ax.get_ylabel(): ax for ax in fig.axes if ax.get_visible()}
    assert set(panels) == {"read hit ratio", "write hit ratio", "flash writes / host write", "write p99 (µs)"}
    df = ssdlab.load(d / "res")
    for line in panels["write hit ratio"].get_lines():
        rows = df[df["workload.read_fraction"] == float(line.get_label())].sort_values("set.write_cache.size_mib")
        # Sizes evenly spaced; no cache (0 MiB) has no ratio to draw.
        assert list(line.get_xdata()) == [1, 2]
        assert list(line.get_ydata()) == pytest.approx(list(rows["write_cache.write_hit_ratio"].dropna()))
    assert list(panels["write p99 (µs)"].get_lines()[0].get_xdata()) == [0, 1, 2]
    # One run with its time series: the dirty pages over time, under the cache's capacity.
    p = d / "one.json"
    cli("run", "-d", "tiny", "-n", "5000", "--write-cache", "write-back", "--set", "write_cache.size_mib=0.25",
        "--json", str(p), "--sample-interval", "0.01")
    one = plots.load(p)
    assert "cache" in plots.available(one)
    ax = plots.figure("cache", one).axes[0]
    dirty = ax.get_lines()[0].get_ydata()
    assert len(dirty) > 2 and max(dirty) <= 64 and max(dirty) > 0
    # The HTML report: the cache's figure and its columns in the results table.
    from ssdlab.plots import html
    page = html.render(one)
    r = json.loads(p.read_text())
    assert "alt='cache'" in page and "cache write hits" in page
    assert f"{r['write_cache']['write_hit_ratio']:.2%}" in page
