"""``ssdlab experiment tails`` end to end (issue 60): every tail lever on one small device and
workload, the flash-layer levers moving times but not flash work, the report's CCDF."""
import json

from typer.testing import CliRunner

from ssdlab.cli import app
from ssdlab.experiments import tails

from test_cli import assert_one_line_error


def test_every_row_runs_and_the_flash_levers_change_no_flash_work(tmp_path):
    out = tmp_path / "tails.json"
    r = CliRunner().invoke(app, ["experiment", "tails", "-w", "mixed70-small", "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert "read p99.9" in r.output and "WAF" in r.output
    res = json.loads(out.read_text())
    assert res["experiment"] == "tails" and res["rows"] == list(tails.ROWS)
    cfg = res["configs"]
    for name, c in cfg.items():
        assert c["erases"] > 0, name
        assert c["throughput_iops"] > 0, name
        assert c["latency_histogram"]["read"]["count"], name
    base = cfg["blocking"]
    # Suspension and the die's schedulers move times, not data: the same flash work.
    for name in ("suspend-erase", "suspend-program-erase", "read-first", "preemptible-gc"):
        for key in ("erases", "gc_pages_copied", "host_pages_written", "waf"):
            assert cfg[name][key] == base[key], (name, key)
        assert cfg[name]["flash"], name
    assert "flash" not in base
    # On this GC-heavy load, passing queued copies cuts the read tail (measured: p99.9 10,863 ->
    # 890 µs on ttflash-small at seed 1); suspension alone less so.
    for name in ("read-first", "preemptible-gc"):
        assert cfg[name]["latency_us"]["read"]["p99_9"] < 0.5 * base["latency_us"]["read"]["p99_9"], name
    assert cfg["suspend-erase"]["latency_us"]["read"]["p99_9"] <= base["latency_us"]["read"]["p99_9"]


def test_a_subset_of_rows_and_the_report(tmp_path):
    out = tmp_path / "t.json"
    rep = tmp_path / "t.html"
    r = CliRunner().invoke(app, ["experiment", "tails", "-w", "mixed70-small", "--max-requests", "4000",
                                 "--row", "blocking", "--row", "read-first", "--json", str(out), "--report", str(rep)])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["rows"] == ["blocking", "read-first"]
    html = rep.read_text()
    assert "read-first" in html and "ccdf" in html.lower()


def test_bad_rows_and_workloads_are_one_line_errors(cli):
    for args, where in ((["--row", "fastest"], "--row fastest"), (["-w", "nope"], "--workload nope")):
        p = cli("experiment", "tails", *args)
        assert_one_line_error(p, where)
