"""Several flows (issue 61) from the command line and the Python API: `ssdlab run --flows FILE`,
`ssdlab.workload.flows(...)`, the per-flow results in the JSON and the table, and bad flows files
answered in one line naming the file's line or the flow and its field."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import ssdlab
from ssdlab import workload
from test_cli import assert_one_line_error

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "flows" / "two-tenants.toml"

SMALL = """
[[flow]]
name = "reader"
priority = "high"
replay = { mode = "closed-loop", queue_depth = 2 }
workload = { kind = "synthetic", pattern = "zipf", requests = 1500, read_fraction = 0.9 }

[[flow]]
name = "writer"
priority = "low"
workload = { kind = "synthetic", pattern = "uniform", requests = 3000 }
"""


def test_a_flows_file_runs_and_reports_each_flow(cli, tmp_path):
    f = tmp_path / "two.toml"
    f.write_text(SMALL)
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "--flows", str(f), "--no-precondition", "-q", "8",
            "--set", "host.arbitration=weighted-round-robin", "--set", "host.command_slots=4", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "reader" in p.stdout and "writer" in p.stdout and "flows (latency µs from submission)" in p.stdout
    r = json.loads(out.read_text())
    names = [x["name"] for x in r["flows"]]
    assert names == ["reader", "writer"]
    assert sum(x["requests"]["total"] for x in r["flows"]) == r["requests"]["total"] == 4500
    # The writer has no replay of its own: closed loop at the run's -q 8 (its workload has no times).
    assert r["flows"][0]["priority"] == "high" and r["flows"][1]["priority"] == "low"
    assert r["flows"][1]["latency_us"]["all"]["count"] == 3000
    # The run can be run again from its JSON, to the same figures.
    again = tmp_path / "again.json"
    p = cli("run", "--from", str(out), "--json", str(again))
    assert p.returncode == 0, p.stderr
    assert json.loads(again.read_text())["flows"] == r["flows"]


def test_the_shipped_example_is_valid():
    spec = workload.flows_file(EXAMPLE)
    assert [f["name"] for f in spec["flows"]] == ["reader", "writer"]


def test_the_api_runs_flows_and_one_flow_is_the_workload_alone():
    wl = workload.synthetic("hotcold", 3000, read_fraction=0.3)
    alone = ssdlab.simulate("tiny", wl, seed=2, queue_depth=4)
    one = ssdlab.simulate("tiny", workload.flows({"workload": wl, "range": "shared"}), seed=2, queue_depth=4)
    assert one.latency_us == alone.latency_us and one.waf == alone.waf
    assert one.flows[0]["latency_us"]["all"]["p99"] == alone.latency_us.all.p99
    assert alone.flows == []
    two = ssdlab.simulate("tiny", workload.flows({"workload": wl, "name": "a"}, {"workload": wl, "name": "b"}), seed=2)
    assert [f["name"] for f in two.flows] == ["a", "b"]
    assert "flows" in two.to_dict() and "flows" not in alone.to_dict()


@pytest.mark.parametrize("text, fragments", [
    ('[[flow]]\nqd = 4\nworkload = { kind = "synthetic", pattern = "uniform", requests = 10 }\n', [":2:", "qd"]),
    ('[[flow]]\nname = "x"\n', ["bad.toml", "workload"]),
    ('[[flow]]\nname = "a"\nrange = { start = 0.0, size = 0.6 }\nworkload = { kind = "synthetic", pattern = "uniform", requests = 10 }\n'
     '[[flow]]\nname = "b"\nrange = { start = 0.5, size = 0.5 }\nworkload = { kind = "synthetic", pattern = "uniform", requests = 10 }\n',
     ["flows[1] (b): range", "overlap"]),
    ('[[flow]]\npriority = "highest"\nworkload = { kind = "synthetic", pattern = "uniform", requests = 10 }\n',
     [":2:", "highest"]),
    ("not toml [", ["bad.toml:1"]),
])
def test_bad_flows_files_are_one_line(cli, tmp_path, text, fragments):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    p = cli("run", "-d", "tiny", "--flows", str(f), "--no-precondition")
    assert_one_line_error(p, *fragments)


def test_workload_options_with_flows_are_refused(cli, tmp_path):
    f = tmp_path / "two.toml"
    f.write_text(SMALL)
    assert_one_line_error(cli("run", "-d", "tiny", "--flows", str(f), "-w", "zipf"), "--workload/-w", "--flows")
    assert_one_line_error(cli("run", "-d", "tiny", "--flows", str(f), "-t", str(f)), "--flows", "--trace")
    assert_one_line_error(cli("run", "-d", "tiny", "--flows", str(tmp_path / "none.toml")), "none.toml")
    assert_one_line_error(cli("run", "-d", "tiny", "--flows", str(f), "--set", "host.burst=3"), "host.burst")


def test_the_api_refuses_what_is_not_a_flow():
    with pytest.raises(TypeError):
        workload.flows("uniform")  # type: ignore[arg-type]
    with pytest.raises(ssdlab.WorkloadError, match="flows"):
        ssdlab.simulate("tiny", workload.flows({"name": "x"}))


def test_sweep_columns_have_each_flow_and_no_flows_column_without_flows():
    from ssdlab.sweeps.runner import result_columns

    wl = workload.synthetic("uniform", 500)
    alone = result_columns(ssdlab.simulate("tiny", wl))
    assert not any(k.startswith("flows") for k in alone)
    two = result_columns(ssdlab.simulate("tiny", workload.flows({"workload": wl, "name": "a"},
                                                                {"workload": wl, "name": "b"})))
    assert two["flows.a.requests.total"] == two["flows.b.requests.total"] == 500
    assert two["flows.b.latency_us.read.p99"] >= 0 and "flows.a.queue_wait_us.mean" in two
    assert not any("histogram" in k for k in two)  # distributions are not columns


def test_the_tenants_experiment_reports_slowdowns_and_draws_each_flow(cli, tmp_path):
    from ssdlab import plots

    out, rep = tmp_path / "t.json", tmp_path / "t.html"
    p = cli("experiment", "tenants", "-d", "tiny", "-n", "800", "--row", "rr", "--row", "wrr+fair",
            "--json", str(out), "--report", str(rep))
    assert p.returncode == 0, p.stderr
    assert "fairness" in p.stdout and "reader slowdown" in p.stdout and "Warning" not in p.stderr
    d = json.loads(out.read_text())
    assert d["experiment"] == "tenants" and d["rows"] == ["rr", "wrr+fair"] and d["flows"] == ["reader", "writer"]
    for r in d["rows"]:
        c = d["configs"][r]
        assert len(c["slowdown"]) == 2 and 0 < c["fairness"] <= 1
        assert [f["name"] for f in c["together"]["flows"]] == ["reader", "writer"]
    src = plots.load(out)
    assert src.kind == "tenants" and "ccdf" in plots.available(src)
    labels = [g.label for g in src.groups if "read" in g.histogram]
    assert labels == ["rr · reader", "wrr+fair · reader"]
    assert rep.is_file()
    assert_one_line_error(cli("experiment", "tenants", "--row", "nope"), "--row nope")


def test_a_run_of_flows_keeps_each_flows_distribution_and_draws_its_ccdf(cli, tmp_path):
    from ssdlab import plots

    f = tmp_path / "two.toml"
    f.write_text(SMALL)
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "--flows", str(f), "--no-precondition", "-q", "8", "--json", str(out))
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())
    for fl in r["flows"]:
        h = fl["latency_histogram"]
        # Every request of the flow is in its distribution, each type apart.
        assert sum(h["all"]["count"]) == fl["latency_us"]["all"]["count"]
        for op in ("read", "write"):
            assert sum(h[op]["count"]) == fl["latency_us"][op]["count"] if op in h else fl["latency_us"][op]["count"] == 0
    assert "read" not in r["flows"][1]["latency_histogram"]  # the writer issued no read
    src = plots.load(out)
    assert [g.label for g in src.groups] == ["tiny", "flow · reader", "flow · writer"]
    assert "ccdf" in plots.available(src, "read")
    png = tmp_path / "ccdf.png"
    p = cli("plot", "ccdf", str(out), "-o", str(png), "--op", "read")
    assert p.returncode == 0, p.stderr
    assert png.stat().st_size > 0
    # A result without flows draws as before: one group.
    alone = tmp_path / "alone.json"
    assert cli("run", "-d", "tiny", "-w", "uniform", "-n", "300", "--no-precondition", "--json", str(alone)).returncode == 0
    assert [g.label for g in plots.load(alone).groups] == ["tiny"]


def test_a_sweep_over_a_flows_spec_has_each_flows_columns(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        '[base]\ndevice = "tiny"\noptions.precondition.random_passes = 0.5\n'
        '[base.workload]\nkind = "flows"\n'
        '[[base.workload.flows]]\nname = "reader"\npriority = "high"\n'
        'workload = { kind = "synthetic", pattern = "zipf", requests = 600, read_fraction = 0.9 }\n'
        '[[base.workload.flows]]\nname = "writer"\n'
        'workload = { kind = "synthetic", pattern = "uniform", requests = 900 }\n'
        '[grid]\nset.host.arbitration = ["round-robin", "weighted-round-robin"]\n')
    d = ssdlab.sweep(spec, jobs=0)
    assert len(d) == 2 and (d.status == "ok").all()
    assert (d["flows.reader.requests.total"] == 600).all() and (d["flows.writer.requests.total"] == 900).all()
    assert set(d["set.host.arbitration"]) == {"round-robin", "weighted-round-robin"}
    # The row's setup runs it again to the same per-flow figures.
    r = ssdlab.rerun(json.loads(d.setup[0]))
    assert r.flows[0]["latency_us"]["read"]["p99"] == d["flows.reader.latency_us.read.p99"][0]


def test_a_sweep_varies_flows_files_and_refuses_bad_flows_in_one_line(cli, tmp_path):
    (tmp_path / "a.toml").write_text(SMALL)
    (tmp_path / "b.toml").write_text(SMALL.replace('priority = "high"', 'priority = "urgent"'))
    spec = tmp_path / "spec.toml"
    spec.write_text('[base]\ndevice = "tiny"\noptions.precondition = false\n'
                    '[grid]\nworkload.flows_file = ["a.toml", "b.toml"]\n')
    d = ssdlab.sweep(spec, jobs=0)
    assert list(d["workload.flows_file"]) == ["a.toml", "b.toml"] and (d["flows.writer.requests.total"] == 3000).all()
    for text, fragments in [
        ('[base]\nworkload.flows = "x"\n', ["base.workload.flows", "array of flow tables"]),
        ('[base]\nworkload.kind = "flows"\n', ["workload.flows or workload.flows_file"]),
        ('[base]\nworkload.flows_file = "none.toml"\n', ["workload.flows_file", "none.toml"]),
        ('[base]\nworkload.flows_file = "a.toml"\nworkload.flows = [{workload = {kind = "preset", name = "home1"}}]\n',
         ["workload.flows_file", "got both"]),
        ('[base]\nworkload.flows_file = "a.toml"\nworkload.pattern = "zipf"\n', ["one workload kind per run"]),
    ]:
        spec.write_text(text)
        assert_one_line_error(cli("sweep", str(spec), "--dry-run"), *fragments)
