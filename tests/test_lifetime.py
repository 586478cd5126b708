"""``ssdlab experiment lifetime`` end to end (issue 63): a small hybrid device written to its end
of life by both workloads, the TBW table and JSON, the report, and bad options as one line."""
import json

from ssdlab.experiments import lifetime

from test_cli import assert_one_line_error

#: ``tiny`` as a hybrid QLC device retiring blocks at 25 P/E cycles (fractions of a second).
TINY_HYBRID = ["-d", "tiny", "--set", 'ftl.kind="hybrid"', "--set", 'geometry.cell_mode="qlc"',
               "--set", 'cache.slc="dwa"', "--set", "cache.slc_blocks=8", "--set", "cache.free_trigger=2",
               "--retire-pe", "25", "--scale", "2", "--rated-tbw", "0.001"]


def test_both_workloads_reach_the_end_of_life(cli, tmp_path):
    out, rep = tmp_path / "life.json", tmp_path / "life.html"
    p = cli("experiment", "lifetime", *TINY_HYBRID, "--json", str(out), "--report", str(rep))
    assert p.returncode == 0, p.stderr
    assert "TBW / rated" in p.stdout and "not reached" not in p.stdout
    res = json.loads(out.read_text())
    assert res["experiment"] == "lifetime" and res["rows"] == lifetime.ROWS
    assert res["retire_pe"] == 25 and res["scale"] == 2 and res["pages_per_block"] == 16
    c = res["configs"]
    for r in lifetime.ROWS:
        assert c[r]["end_of_life"], r
        assert c[r]["tbw"] == c[r]["endurance"]["end_of_life_host_bytes"] * 2 / 1e12
    assert c["sequential"]["tbw"] > c["jesd219"]["tbw"]
    assert "jesd219" in rep.read_text()


def test_bad_options_are_one_line(cli):
    assert_one_line_error(cli("experiment", "lifetime", *TINY_HYBRID, "--row", "nope"), "--row nope", "jesd219")
    assert_one_line_error(cli("experiment", "lifetime", "-d", "tiny", "--scale", "5"), "--scale:", "32")
    assert_one_line_error(cli("experiment", "lifetime", "-d", "tiny", "--scale", "2", "--set", 'ftl.kind="zoned"'),
                          "endurance.retire_pe")
    assert_one_line_error(cli("experiment", "lifetime", "-d", "tiny", "--scale", "2", "--slc-retire-pe", "5"),
                          "--slc-retire-pe", "cache.slc")
    # Every experiment names a device that is neither a preset nor a file (issue 63's review).
    for name in ("lifetime", "tails", "placement"):
        assert_one_line_error(cli("experiment", name, "-d", "nope"), "-d/--device nope", "not a preset")
