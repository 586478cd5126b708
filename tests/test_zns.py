"""Zoned Namespace devices (issue 62) from the command line and the Python API: a block workload
through the host's zone cleaner (device WAF 1, the cleaner's own WAF, the table's ZNS rows), the
workload writing zones itself (refused writes counted, or one line in strict mode), bad zone
settings in one line, and ``ssdlab experiment placement``."""
from __future__ import annotations

import json

import ssdlab
from test_cli import assert_one_line_error

ZONED = ("--set", 'ftl.kind="zoned"')


def test_the_cleaner_amplifies_and_the_device_does_not(cli, tmp_path):
    out = tmp_path / "z.json"
    p = cli("run", "-d", "tiny", "-n", "8000", *ZONED, "--set", 'ftl.placement="hot-cold"', "--json", str(out))
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())
    z = r["zns"]
    assert z["device_waf"] == 1.0 and z["host_waf"] > 1.0 and abs(z["host_waf"] - r["waf"]) < 1e-12
    assert z["cleaner_pages_copied"] > 0 and r["erases"] == z["block_erases"]
    assert "ZNS (" in p.stdout and "device WAF" in p.stdout
    again = ssdlab.rerun(r["setup"])
    assert again.zns == z and again.waf == r["waf"]


def test_zones_written_by_the_workload(cli, tmp_path):
    trace = tmp_path / "zones.csv"
    # tiny's zones are 512 KiB: the second write skips the pointer.
    trace.write_text("0,W,0,8192\n10,W,65536,4096\n20,T,0,524288\n30,W,0,4096\n")
    out = tmp_path / "z.json"
    none = (*ZONED, "--set", 'zns.host="none"', "--no-precondition")
    p = cli("run", "-d", "tiny", "-t", str(trace), *none, "--json", str(out))
    assert p.returncode == 0, p.stderr
    z = json.loads(out.read_text())["zns"]
    assert z["violations"]["off_write_pointer"] == 1 and z["commands"]["resets"] == 1
    assert z["host_waf"] is None
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(trace), *none, "--set", "zns.strict=true"),
                          "write at byte offset 65536", "zns.strict: write refused")


def test_bad_zone_settings_are_one_line(cli):
    assert_one_line_error(cli("run", "-d", "tiny", *ZONED, "--set", "zns.zone_size_kib=200"),
                          "zns.zone_size_kib", "whole number of 128 KiB erase blocks")
    assert_one_line_error(cli("run", "-d", "tiny", "--set", "zns.max_open=3"), "zns", 'ftl.kind = "zoned"')
    assert_one_line_error(cli("run", "-d", "tiny", *ZONED, "--set", 'write_cache.mode="write-back"'),
                          "write_cache.mode", "zoned device")


def test_the_placement_experiment(cli, tmp_path):
    out = tmp_path / "placement.json"
    p = cli("experiment", "placement", "-d", "tiny", "-n", "1500", "--json", str(out))
    assert p.returncode == 0, p.stderr
    res = json.loads(out.read_text())
    rows = res["configs"]
    assert res["rows"] == ["conventional", "hot-cold", "fdp", "zns", "zns-hot-cold"] and set(rows) == set(res["rows"])
    for name, c in rows.items():
        zoned = name.startswith("zns")
        assert (c["device_waf"] == 1.0) == zoned, name
        assert abs(c["waf"] - c["device_waf"] * c["host_waf"]) < 1e-9, name
    assert rows["fdp"]["fdp"]["placements"][0]["host_pages"] > 0
    assert "placement on tiny" in p.stdout


def test_the_zone_families_are_registries():
    from ssdlab import registry

    assert registry.names("zone layout") == ("striped", "die-group")
    assert registry.names("zone host") == ("cleaner", "none")
