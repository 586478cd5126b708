"""Flexible Data Placement (issue 62) from the command line and the Python API: tenants with
placement identifiers of their own (a flows file, a trace's placement column), the result's
``fdp`` section and table rows, and bad placements answered in one line."""
from __future__ import annotations

import json
from pathlib import Path

import ssdlab
from ssdlab import workload
from test_cli import assert_one_line_error

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "flows" / "cache-tenants.toml"


def small_tenants(tmp_path: Path, placements=(0, 1), requests=6000) -> Path:
    """The shipped example's tenants, fewer requests."""
    text = EXAMPLE.read_text().replace("requests = 100000", f"requests = {requests}")
    text = text.replace("requests = 400000", f"requests = {requests * 4}")
    for name, p in zip(("log", "small"), placements):
        text = text.replace(f'name = "{name}"\nplacement = {0 if name == "log" else 1}',
                            f'name = "{name}"\nplacement = {p}')
    f = tmp_path / f"tenants-{'-'.join(map(str, placements))}.toml"
    f.write_text(text)
    return f


def test_tenants_apart_write_amplify_less_and_the_table_shows_fdp(cli, tmp_path):
    runs = {}
    for placements in ((0, 1), (0, 0)):
        out = tmp_path / f"{placements}.json"
        p = cli("run", "-d", "tiny", "--flows", str(small_tenants(tmp_path, placements)),
                "--set", "fdp.handles=2", "--json", str(out))
        assert p.returncode == 0, p.stderr
        runs[placements] = json.loads(out.read_text())
    apart, mixed = runs[(0, 1)], runs[(0, 0)]
    assert "FDP (2 handles × 1 groups, initially-isolated)" in p.stdout
    assert apart["waf"] < 1.25 and mixed["waf"] > apart["waf"] + 0.2, (apart["waf"], mixed["waf"])
    placements = apart["fdp"]["placements"]
    assert [x["placement"] for x in placements] == [0, 1] and all(x["host_pages"] > 0 for x in placements)
    assert [f["placement"] for f in apart["flows"]] == [0, 1]
    # The Result reads the section back.
    r = ssdlab.rerun(apart["setup"])
    assert r.fdp == apart["fdp"] and r.waf == apart["waf"]


def test_the_shipped_example_is_valid():
    spec = workload.flows_file(EXAMPLE)
    assert [f["placement"] for f in spec["flows"]] == [0, 1]


def test_bad_placements_are_one_line(cli, tmp_path):
    f = small_tenants(tmp_path, (0, 2))
    assert_one_line_error(cli("run", "-d", "tiny", "--flows", str(f), "--set", "fdp.handles=2"),
                          "flows[1] (small): placement", "below 2")
    assert_one_line_error(cli("run", "-d", "tiny", "--flows", str(f)), "flows[0] (log): placement", "fdp.handles")
    assert_one_line_error(cli("run", "-d", "tiny", "--flows", str(f), "--set", "fdp.handles=2",
                              "--set", "fdp.reclaim_groups=3"), "fdp.reclaim_groups", "divisor")
    trace = tmp_path / "t.csv"
    trace.write_text("0,W,0,4096,0\n10,W,4096,4096,5\n")
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(trace), "--set", "fdp.handles=4"),
                          "t.csv:2: placement", "below 4")
    trace.write_text("0,W,0,4096,70000\n")
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(trace)), "t.csv:1", "placement")


def test_the_handle_types_are_a_registry_family():
    from ssdlab import registry

    assert registry.names("fdp handle type") == ("initially-isolated", "persistently-isolated")
