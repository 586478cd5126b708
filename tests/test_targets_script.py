"""benches/targets.sh, issue 19's targets in one sitting: its table is read from the five
benchmark scripts' outputs, so a script whose summary line changes must fail it loudly, not
print a wrong figure. `--report DIR` prints the table from kept outputs without running
anything; `tests/data/targets` holds the outputs of the sitting docs/speed-targets.md records (AMD EPYC,
2026-12-01 14:41–14:47 UTC). Its speed figures are measured by the script, never here."""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benches" / "targets.sh"
DATA = ROOT / "tests" / "data" / "targets"


def report(d: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), "--report", str(d)], capture_output=True, text=True, timeout=60)


def test_the_table_is_the_recorded_sittings_figures():
    p = report(DATA)
    assert p.returncode == 0, p.stderr
    rows = [line for line in p.stdout.splitlines() if line.startswith("| ") and "target | figure" not in line]
    assert rows == [
        "| timed preset ≥ 10 M requests/s per core | 8.33 M ✗ (the busy-until C loop 12.33 M, with gap-filling channels 9.81 M) |",
        "| timed within 2× of its bound, measured phase / whole process | 0.676× ✓ / 0.529× ✓ (against the gap-filling loop 0.849×) |",
        "| timing-free ≥ 0.5× its bound, measured phase / whole process | 1.277× ✓ / 0.902× ✓ (bound 10.86 M, ssdlab 13.87 M host writes/s) |",
        "| MQSim-matched, 4 M writes from empty, whole process ≥ 3 M requests/s | 6.17 M ✓ (0.648 s) |",
        "| replay plain ≥ 5 M, timing-free / timed | 5.21 M ✓ / 3.57 M ✗ (whole `ssdlab run`: 5.263 / 3.300 M) |",
        "| replay gzip ≥ 2 M, timing-free / timed | 4.78 M ✓ / 3.90 M ✓ |",
        "| timing-free replay against its C loop, from memory / through the parse thread | 0.915× / 0.934× (the loop 8.35 M) |",
        "| timed replay against the C loop with ssdlab's channel model, from memory / through the parse thread | 0.883× / 0.871× (the loop 4.26 M; with busy-until channels 7.37 M) |",
    ]
    assert p.stdout.startswith("issue 19's targets: 2-core AMD EPYC"), p.stdout


def test_a_met_target_is_marked_met(tmp_path):
    d = tmp_path / "d"
    shutil.copytree(DATA, d)
    t = d / "replay.txt"
    t.write_text(t.read_text().replace("after   plain      7.92     5.21     3.57", "after   plain      7.92     5.21     5.00"))
    assert "| replay plain ≥ 5 M, timing-free / timed | 5.21 M ✓ / 5.00 M ✓" in report(d).stdout


@pytest.mark.parametrize("name, line", [
    ("timed_bound.txt", "measured phase"),
    ("replay.txt", "after   gzip"),
    ("replay_bound.txt", "busy-until channels"),
])
def test_a_changed_summary_line_is_one_error(tmp_path, name, line):
    d = tmp_path / "d"
    shutil.copytree(DATA, d)
    f = d / name
    f.write_text("\n".join(x for x in f.read_text().splitlines() if not x.startswith(line) and line not in x) + "\n")
    p = report(d)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and p.stderr.startswith(f"targets: error: {d / name}: no line with"), p.stderr
    assert "| target |" not in p.stdout


@pytest.mark.parametrize("args, fragment", [
    (["--report"], "--report: expected the DIR"),
    (["--report", "/nonexistent/dir"], "--report: expected the DIR"),
    (["0"], "REQUESTS: expected a positive whole number, got '0'"),
    (["10", "x"], "LINES: expected a positive whole number, got 'x'"),
])
def test_bad_arguments_are_one_error(args, fragment):
    p = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("targets: error: ") and fragment in p.stderr, p.stderr
