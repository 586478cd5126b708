"""File-system benchmarks (``ssdlab.workload.fs``, the core's ``trace::fs``, issue 13): names
and defaults come from the core, runs replay closed-loop, TRIM modes reach the device, and bad
options are one-line errors naming the field."""
from __future__ import annotations

import json

import pytest

import ssdlab
from ssdlab import registry
from ssdlab import workload as wl
from test_cli import assert_one_line_error


def test_names_and_defaults_come_from_the_core():
    assert wl.fs_personalities() == ("fio-randwrite", "fileserver", "varmail", "iozone")
    assert registry.names("TRIM mode") == ("none", "discard") and registry.default("TRIM mode") == "none"
    d = registry.defaults()["fs"]
    assert d["spec"]["stale_fraction"] == 0.0 and d["spec"]["trim"] == "none"
    assert d["personalities"]["fileserver"]["nthreads"] == 50
    assert d["personalities"]["varmail"]["mean_file_kib"] == 16.0
    spec = wl.fs("iozone", 500, trim="discard", file_mib=None, stale_fraction=0.5)
    assert spec == {"kind": "fs", "personality": "iozone", "requests": 500, "trim": "discard", "stale_fraction": 0.5}
    assert wl.is_closed(spec) and wl.total_requests(spec) is None
    with pytest.raises(ValueError, match="unknown option 'nfiles'"):
        wl.fs("fileserver", 10, nfiles=3)


def test_fs_runs_closed_loop_and_discard_trims():
    r = ssdlab.simulate("tiny", wl.fs("varmail", 3000, trim="discard", stale_fraction=0.3), queue_depth=8)
    assert r.workload.startswith("fs varmail")
    assert r.requests["trim"] > 0 and r.trimmed_pages > 0 and r.requests["read"] > 0
    none = ssdlab.simulate("tiny", wl.fs("varmail", 3000, stale_fraction=0.3), queue_depth=8)
    assert none.requests["trim"] == 0
    # Same seed, same run.
    again = ssdlab.simulate("tiny", wl.fs("varmail", 3000, stale_fraction=0.3), queue_depth=8)
    a, b = none.to_dict(), again.to_dict()
    a.pop("wall_time_s"), b.pop("wall_time_s")
    assert a == b


def test_bad_fs_options_raise_workload_errors_naming_the_field():
    with pytest.raises(ssdlab.WorkloadError, match="nthreads: expected no value for iozone"):
        ssdlab.simulate("tiny", wl.fs("iozone", 10, nthreads=4))
    with pytest.raises(ssdlab.WorkloadError, match="stale_fraction: expected a fraction"):
        ssdlab.simulate("tiny", wl.fs("fileserver", 10, stale_fraction=1.5))


def test_cli_runs_a_file_system_benchmark(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "--workload", "iozone", "-n", "2000", "-q", "16", "--trim", "discard",
            "--stale-fraction", "0.5", "--fs-opt", "file_mib=2", "--json", str(out))
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())
    assert r["requests"]["trim"] > 0 and "iozone (write+rewrite+delete of a 2.0 MiB file" in r["workload"]
    # The default device, closed loop at queue depth 16.
    p = cli("run", "--workload", "fileserver", "-n", "20000", "-q", "16", "--json", str(out))
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())
    assert r["requests"]["read"] > 0 and r["requests"]["write"] > 20000 - r["requests"]["read"]


def test_cli_bad_fs_input(cli):
    assert_one_line_error(cli("run", "-d", "tiny", "--workload", "varmail", "--trim", "fstrim"), "--trim fstrim", "discard")
    assert_one_line_error(cli("run", "-d", "tiny", "--workload", "iozone", "--fs-opt", "nthreads=4"), "nthreads")
    assert_one_line_error(cli("run", "-d", "tiny", "--workload", "iozone", "--fs-opt", "bogus=1"), "bogus")
    assert_one_line_error(cli("run", "-d", "tiny", "--workload", "iozone", "--fs-opt", "x"), "--fs-opt x", "KEY=VALUE")
    assert_one_line_error(cli("run", "-d", "tiny", "--stale-fraction", "0.5"), "--stale-fraction", "file-system")
    assert_one_line_error(cli("run", "-d", "tiny", "--workload", "webserver"), "--workload webserver", "fileserver")
