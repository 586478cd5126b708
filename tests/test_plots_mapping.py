"""The cached mapping table (issue 59) in sweeps, plots and reports: a sweep's rows have the
result's ``mapping`` section as ``mapping.*`` columns, ``ssdlab plot mapping`` draws a CMT-size
sweep from them (checked on the figure's data), and neither it nor the report's mapping columns
appear for the full map."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the plot extra is not installed: pip install 'ssdlab[plot]'")

import ssdlab  # noqa: E402
from ssdlab import plots  # noqa: E402
from ssdlab.plots import html, mapping  # noqa: E402

from test_sweep import write_spec  # noqa: E402

SIZES = [64, 1024]
#: The report's mapping columns (headings) and the scalars they show.
REPORT = {"CMT read hits": "mapping.read_hit_ratio", "CMT write hits": "mapping.write_hit_ratio",
          "translation reads": "mapping.translation_reads", "translation writes": "mapping.translation_writes",
          "translation GC copies": "mapping.translation_gc_copies", "WAF: translation": "mapping.waf.translation"}


@pytest.fixture(scope="module")
def cached_sweep(tmp_path_factory) -> Path:
    """2 CMT sizes × 2 patterns on the tiny device (1,024 mappings a translation page), preconditioned
    so that GC runs: seconds."""
    d = tmp_path_factory.mktemp("mapping")
    spec = write_spec(d, '[sweep]\nname = "cmt"\n[base]\ndevice = "tiny"\nworkload.requests = 3000\n'
                      'workload.read_fraction = 0.3\nset.ftl.mapping = "cached"\noptions.precondition = true\n'
                      f'[grid]\nset.ftl.cmt_entries = {SIZES}\nworkload.pattern = ["uniform", "hotcold"]\n')
    ssdlab.sweep(spec, out=d / "res", jobs=0)
    return d / "res"


def run_json(cli, path: Path, *sets: str) -> Path:
    args = [a for s in sets for a in ("--set", s)]
    r = cli("run", "-d", "tiny", "-n", "3000", "--read-fraction", "0.3", *args, "--json", str(path), "--no-progress")
    assert r.returncode == 0, r.stderr
    return path


def test_a_cached_sweep_has_the_mapping_section_as_columns(cached_sweep):
    df = ssdlab.load(cached_sweep)
    assert (df["status"] == "ok").all() and len(df) == 4
    assert sorted(df["mapping.cmt_entries"].unique()) == SIZES
    assert (df["mapping.cmt_entries"] == df["set.ftl.cmt_entries"]).all()
    assert (df["mapping.cmt_policy"] == "lru").all()
    for col in ("read_hit_ratio", "write_hit_ratio", "translation_reads", "translation_writes", "translation_gc_copies",
                "write_backs", "gc_updates", "data_gc_copies"):
        assert df[f"mapping.{col}"].notna().all(), col
    assert (df["mapping.translation_writes"] > 0).all()
    # The WAF's parts sum to the run's WAF (which counts the translation writes).
    parts = sum(df[f"mapping.waf.{p}"] for p in ("host", "data_gc", "translation", "translation_gc"))
    assert list(parts) == pytest.approx(list(df["waf"]), rel=1e-3)
    # A bigger CMT hits more often, on either pattern.
    for _, rows in df.groupby("workload.pattern"):
        rows = rows.sort_values("set.ftl.cmt_entries")
        assert list(rows["mapping.write_hit_ratio"]) == sorted(rows["mapping.write_hit_ratio"])


def test_the_mapping_plot_draws_a_cmt_size_sweep(cached_sweep):
    src = plots.load(cached_sweep)
    assert "mapping" in plots.available(src)
    assert mapping.size_axis(src) == ("set.ftl.cmt_entries", "workload.pattern")
    fig = plots.figure("mapping", src)
    panels = {ax.get_ylabel(): ax for ax in fig.axes if ax.get_visible() and ax.get_lines()}
    assert set(panels) == {"read hit ratio", "write hit ratio", "mean response (µs)", "p99 response (µs)"}
    df = ssdlab.load(cached_sweep)
    for label, col in (("read hit ratio", "mapping.read_hit_ratio"), ("write hit ratio", "mapping.write_hit_ratio"),
                       ("mean response (µs)", "latency_us.all.mean")):
        ax = panels[label]
        assert ax.get_xscale() == "log"
        assert sorted(l.get_label() for l in ax.get_lines()) == ["hotcold", "uniform"]
        for line in ax.get_lines():
            rows = df[df["workload.pattern"] == line.get_label()].sort_values("set.ftl.cmt_entries")
            assert list(line.get_xdata()) == SIZES
            assert list(line.get_ydata()) == pytest.approx(list(rows[col]))
    # Below: one WAF panel per pattern, each bar the four parts stacked up to the run's WAF.
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "WAF" or (ax.patches and not ax.get_lines())]
    titles = sorted(ax.get_title() for ax in bars)
    assert titles == ["hotcold", "uniform"]
    for ax in bars:
        rows = df[df["workload.pattern"] == ax.get_title()].sort_values("set.ftl.cmt_entries")
        assert len(ax.patches) == len(mapping.WAF_PARTS) * len(SIZES)
        tops = [max(p.get_y() + p.get_height() for p in ax.patches if round(p.get_x() + p.get_width() / 2) == i)
                for i in range(len(SIZES))]
        assert tops == pytest.approx(list(rows["waf"]), rel=1e-3)
    # --op read: the response panels are the reads'.
    labels = {ax.get_ylabel() for ax in plots.figure("mapping", src, "read").axes}
    assert {"mean read (µs)", "p99 read (µs)"} <= labels


def test_the_mapping_plot_and_columns_are_not_for_the_full_map(tmp_path, cli, cached_sweep):
    plain = plots.load(run_json(cli, tmp_path / "plain.json"))
    assert "mapping" not in json.loads((tmp_path / "plain.json").read_text())
    assert "mapping" not in plots.available(plain)
    with pytest.raises(ValueError, match="nothing to draw as mapping"):
        plots.figure("mapping", plain)
    # A plain sweep (victims compared) has no mapping to draw either.
    spec = write_spec(tmp_path, '[sweep]\nname = "plain"\n[base]\ndevice = "tiny"\nworkload.requests = 2000\n'
                      '[grid]\nset.gc.victim = ["greedy", "fifo"]\n')
    ssdlab.sweep(spec, out=tmp_path / "res", jobs=0)
    assert "mapping" not in plots.available(plots.load(tmp_path / "res"))
    page = html.render(plain)
    assert not [h for h in REPORT if f"<th>{h}</th>" in page]


def test_the_report_has_the_mapping_columns_of_a_cached_run(tmp_path, cli, cached_sweep):
    p = run_json(cli, tmp_path / "cached.json", "ftl.mapping=cached", "ftl.cmt_entries=256")
    one = plots.load(p)
    # One run has nothing over time to draw (the mapping has no series): the figure is a sweep's.
    assert "mapping" not in plots.available(one)
    page = html.render(one)
    m = json.loads(p.read_text())["mapping"]
    for head, key in REPORT.items():
        assert f"<th>{head}</th>" in page, head
    for value in (f"{m['read_hit_ratio']:.2%}", f"{m['write_hit_ratio']:.2%}", f"{m['translation_reads']:,}",
                  f"{m['translation_writes']:,}", f"{m['waf']['translation']:.3f}"):
        assert f"<td>{value}</td>" in page, value
    # A sweep's report: the figure and the columns.
    page = html.render(plots.load(cached_sweep))
    assert "alt='mapping'" in page and all(f"<th>{h}</th>" in page for h in REPORT)
