"""Read reclaim from the command line (issue 63): ``reliability.reclaim_reads`` moves the blocks
a read-only run reads hard, the summary says so, and the JSON has its counts."""
import json


def test_a_read_only_run_reclaims_and_reports(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "--set", "reliability.errors=true", "--set", "reliability.reclaim_reads=2000",
            "-w", "zipf", "--read-fraction", "1", "--footprint", "0.02", "-n", "40000", "--timing", "none",
            "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "read reclaim" in p.stdout
    r = json.loads(out.read_text())
    rr = r["read_reclaim"]
    assert rr["blocks"] > 0 and rr["pages_copied"] == r["gc_pages_copied"]
