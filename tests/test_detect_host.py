"""The host's iostat view of a simulated device (issue 13): ``ssdlab run --iostat`` writes one
row per simulated interval with the GC ground truth, as CSV or Parquet; the Python API returns
the same table; bad paths and intervals are one-line errors before the run."""
from __future__ import annotations

import numpy as np
import pytest

import ssdlab
from ssdlab.table import read_csv_table
from test_cli import assert_one_line_error

DEVICE = ("-d", "mqsim-small", "--set", "geometry.blocks_per_plane=128")


def test_run_writes_the_iostat_view_as_csv_with_the_gc_label(cli, tmp_path):
    out = tmp_path / "io.csv"
    p = cli("run", *DEVICE, "-n", "200000", "--request-pages", "2", "--no-precondition", "--iostat", str(out))
    assert p.returncode == 0, p.stderr
    t = read_csv_table(out)
    for col in ("t_s", "r/s", "w/s", "wkB/s", "w_await", "aqu-sz", "%util", "avgrq-sz", "avgqu-sz", "svctm", "gc_fraction", "gc_copy_fraction", "gc"):
        assert col in t, col
    assert np.array_equal(t["t_s"], np.arange(1, len(t["t_s"]) + 1, dtype=float))
    # From an empty device: no GC at first, then GC; the label is gc_fraction > 0.
    assert t["gc"][0] == 0 and t["gc"][-1] == 1
    assert np.array_equal(t["gc"], (t["gc_fraction"] > 0).astype(float))
    # GC slows the writes the host sees, and svctm (1 / IOPS at 100 % util) rises with it.
    assert t["w/s"][0] > 2 * t["w/s"][-1]
    assert t["svctm"][-1] > 2 * t["svctm"][0]


def test_parquet_and_the_python_api_give_the_same_table(cli, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="Parquet needs the parquet extra (pyarrow)")
    out = tmp_path / "io.parquet"
    p = cli("run", *DEVICE, "-n", "50000", "--no-precondition", "--iostat", str(out), "--iostat-interval", "0.5", "--seed", "3")
    assert p.returncode == 0, p.stderr
    table = pq.read_table(out).to_pydict()
    r = ssdlab.simulate(ssdlab.Device("mqsim-small", ("geometry.blocks_per_plane=128",)),
                        ssdlab.workload.synthetic("uniform", 50_000), seed=3, iostat_interval_us=500_000.0)
    assert list(table) == list(r.iostat)
    for k, v in r.iostat.items():
        assert np.allclose(table[k], v), k
    assert table["t_s"][:2] == [0.5, 1.0]


@pytest.mark.parametrize("args,fragment", [
    (("--iostat", "/nonexistent/dir/io.csv"), "does not exist"),
    (("--iostat", "io.txt"), "expected a .csv or .parquet"),
    (("--iostat", "io.csv", "--iostat-interval", "0.005"), "--iostat-interval"),
])
def test_bad_iostat_options_fail_before_the_run(cli, tmp_path, args, fragment):
    p = cli("run", "-d", "tiny", "-n", "1000", *args, cwd=tmp_path)
    assert_one_line_error(p, fragment)


def test_a_run_shorter_than_an_interval_says_so(cli, tmp_path):
    p = cli("run", "-d", "tiny", "-n", "10", "--iostat", str(tmp_path / "io.csv"))
    assert_one_line_error(p, "shorter than one")
