"""Every CLI command end to end on a small device, and bad input of every kind: one clear
line on stderr naming the file, line or field, a non-zero exit, never a traceback."""
from __future__ import annotations

import gzip
import json
import struct
import subprocess
import sys

import pytest

LAT_KEYS = {"mean", "p50", "p99", "p99_9", "p99_99", "p99_9999", "max"}


def assert_one_line_error(p, *fragments):
    """Bad input: exit code 2 and one ``ssdlab: error: …`` line on stderr containing every fragment (which
    name the offending option or field), never a traceback or a panic."""
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr, p.stderr
    lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("ssdlab: error: "), lines[0]
    for f in fragments:
        assert f in lines[0], lines[0]


def test_a_run_without_array_outputs_does_not_import_numpy(tmp_path):
    """Issue 19 (start-up): numpy is ~0.06 s of importing; `ssdlab run` without --json or
    --iostat uses none of the time series, histograms or iostat view, so it must not import it
    (nor should --help). With --json it does, and the series are there (test below)."""
    probe = ("import sys, runpy\n"
             "sys.argv = ['ssdlab'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('ssdlab', run_name='__main__')\n"
             "except SystemExit as e:\n    assert not e.code, e.code\n"
             "print('numpy' in sys.modules)\n")
    for args in (["run", "-d", "tiny", "-n", "2000"], ["run", "-d", "tiny", "-n", "2000", "--timing", "none"], ["--help"]):
        p = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip().splitlines()[-1] == "False", (args, p.stdout[-500:])
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-c", probe, "run", "-d", "tiny", "-n", "2000", "--json", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.strip().splitlines()[-1] == "True", p.stderr
    assert json.loads(out.read_text())["latency_histogram"]["all"]["count"]


def test_a_run_imports_none_of_the_commands_built_on_demand(cli):
    """Issue 19 (start-up): the modules of ``cli.LAZY`` (experiments, sweeps, plots, detection,
    offline search: ≈ 0.05 s) are imported only for their own commands or a command list; a
    typo still gets "did you mean" among them."""
    from ssdlab.cli import LAZY

    probe = ("import sys, runpy\n"
             "sys.argv = ['ssdlab'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('ssdlab', run_name='__main__')\n"
             "except SystemExit as e:\n    assert not e.code, e.code\n"
             "print(sorted(m for m in sys.modules if m.startswith('ssdlab.')))\n")
    lazy = set(LAZY.values())
    p = subprocess.run([sys.executable, "-c", probe, "run", "-d", "tiny", "-n", "100"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    loaded = set(eval(p.stdout.strip().splitlines()[-1]))
    assert "ssdlab.simulate" in loaded and not loaded & lazy, loaded & lazy
    p = subprocess.run([sys.executable, "-c", probe, "--help"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and lazy <= set(eval(p.stdout.strip().splitlines()[-1])), p.stderr
    assert all(f"\n  {name} " in p.stdout for name in LAZY), p.stdout
    assert_one_line_error(cli("detct"), "No such command 'detct'", "Did you mean 'detect'?")
    assert_one_line_error(cli("experiment", "ttflsh"), "Did you mean 'ttflash'?")


def test_run_synthetic_writes_json(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "-n", "20000", "--read-fraction", "0.3", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "WAF" in p.stdout and "latency" in p.stdout
    r = json.loads(out.read_text())
    for k in ("waf", "host_pages_written", "gc_pages_copied", "erases", "gc_invocations", "requests", "blocked_requests"):
        assert k in r
    assert r["requests"]["total"] == 20000
    for op in ("read", "write", "all"):
        assert LAT_KEYS <= set(r["latency_us"][op])
    assert r["gc_pages_copied"] > 0
    assert len(r["series"]["waf"]) == len(r["series"]["time_s"]) > 0
    assert "hybrid" not in r  # only the hybrid SLC/QLC device reports one


def test_run_hybrid_device_reports_modes_and_breakdown(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "-d", "yoo-qlc", "-n", "3000", "--set", "geometry.blocks_per_plane=256", "--set",
            "geometry.spare_factor=0.1", "--set", "cache.slc_blocks=8", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "host pages to SLC / QLC" in p.stdout
    h = json.loads(out.read_text())["hybrid"]
    # One-page (16 KiB) requests are below θ (64 KiB): every host write goes to SLC, four 4 KiB
    # mapping units each (yoo-qlc maps the paper's 4 KiB units), and the 8-block region
    # (trigger 5) forces migration.
    assert h["slc_host_pages"] == 4 * 3000 and h["qlc_host_pages"] == 0
    assert h["migrated_pages"] > 0 and h["migration_wait_ns"] > 0 and h["slc_target"] == 8


def test_run_cached_map_reports_the_cmt(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "-n", "4000", "--set", "ftl.mapping=\"cached\"", "--set", "ftl.cmt_entries=64",
            "--set", "ftl.cmt_policy=\"clock\"", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "CMT (64 entries, clock)" in p.stdout
    r = json.loads(out.read_text())
    m = r["mapping"]
    # A 64-entry CMT on 6,553 pages of uniform writes: mostly misses; GC's batch updates of the
    # 7 translation pages clean the dirty entries before they are evicted.
    assert m["cmt_entries"] == 64 and m["write_hit_ratio"] < 0.1 and m["translation_writes"] > 0
    assert m["write_backs"] + m["gc_updates"] == m["translation_writes"]
    w = m["waf"]
    assert w["host"] + w["data_gc"] + w["translation"] + w["translation_gc"] == pytest.approx(r["waf"])
    assert m["data_gc_copies"] + m["translation_gc_copies"] == r["gc_pages_copied"]


def test_run_with_flash_errors_reports_retries(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "-n", "3000", "--read-fraction", "0.9", "--set", "reliability.errors=true",
            "--set", "reliability.age_days=365", "--set", "reliability.initial_pe=1600", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "flash errors: page reads retried" in p.stdout
    e = json.loads(out.read_text())["flash"]["errors"]
    # A year-old block at 1,600 cycles of a 3,000-cycle TLC part: every read needs retries.
    assert e["page_reads"] > 2000 and e["retry_rate"] > 0.5 and e["retry_steps"] >= e["retried_reads"]
    assert e["retry_time_s"] > 0 and e["max_rber"] > 1e-3


def test_a_worn_out_drive_ends_the_run_with_one_line(cli, tmp_path):
    out = tmp_path / "eol.json"
    p = cli("run", "-d", "tiny", "-n", "2000000", "--timing", "none", "--no-progress", "--set", "endurance.retire_pe=40",
            "--set", "endurance.factory_bad_fraction=0.01", "--json", str(out))
    assert p.returncode == 0, p.stderr
    lines = [l for l in p.stdout.splitlines() if "end of life" in l]
    assert len(lines) == 1 and lines[0].startswith("ssdlab: the device reached end of life at "), p.stdout
    r = json.loads(out.read_text())
    e = r["endurance"]
    assert f"{e['end_of_life_host_bytes']:,} host bytes written" in lines[0]
    assert r["requests"]["total"] < 2_000_000 and e["worn_out_blocks"] > 0
    assert "bad blocks: factory / worn out / failed erase" in p.stdout
    assert_one_line_error(cli("run", "-d", "tiny", "-n", "10", "--set", "endurance.factory_bad_fraction=0.5"),
                          "endurance.factory_bad_fraction", "geometry.spare_factor")


def test_reliability_settings_are_one_line_errors(cli):
    assert_one_line_error(cli("run", "-d", "tiny", "-n", "10", "--set", "reliability.retry_factor=1.5"),
                          "reliability.retry_factor", "(0, 1]")
    assert_one_line_error(cli("run", "-d", "tiny", "-n", "10", "--set", "reliability.retry_floor=1.0"),
                          "reliability.retry_floor", "[0, 1)")
    assert_one_line_error(cli("run", "-d", "tiny", "-n", "10", "--set", "wear_leveling.static_set_blocks=3"),
                          "wear_leveling.static_set_blocks", "power of two")
    assert_one_line_error(cli("run", "-d", "tiny", "-n", "10", "--set", "reliability.errors=true",
                              "--set", "ftl.kind=\"zoned\""), "reliability.errors", "plain FTL")


def test_cmt_settings_without_a_cached_map_are_one_line(cli):
    assert_one_line_error(cli("run", "-d", "tiny", "-n", "10", "--set", "ftl.cmt_entries=64"),
                          "ftl.cmt_entries", "ftl.mapping")
    assert_one_line_error(cli("run", "-d", "yoo-qlc", "-n", "10", "--set", "ftl.mapping=\"cached\"",
                              "--set", "ftl.cmt_entries=64"), "ftl.mapping", "hybrid")


def test_run_options_reach_the_core(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "-n", "3000", "--victim", "fifo", "--set", "gc.threshold_blocks=3", "--timing", "none",
            "--no-precondition", "--workload", "zipf", "--json", str(out))
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())
    assert r["timing"] is False and r["precondition_pages"] == 0


def test_run_open_loop_bursty(cli, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "-n", "5000", "--arrival", "on-off", "--idle-mean-us", "5000", "--json", str(out))
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())
    assert r["sim_time_s"] > 5000 * 0.0 and r["requests"]["total"] == 5000


def test_run_trace(cli, traces, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "-d", "tiny", "-t", str(traces / "spc_financial1" / "example.ascii"), "--lba-map", "modulo", "--json", str(out))
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())
    assert r["requests"]["total"] == 10000
    assert r["requests"]["write"] == 5922


def test_devices_and_show(cli):
    p = cli("devices")
    assert p.returncode == 0, p.stderr
    for name in ("kang-128gb", "kang-512gb", "ttflash", "mqsim-small", "tiny"):
        assert name in p.stdout
    p = cli("devices", "--show", "kang-512gb")
    assert p.returncode == 0 and "blocks_per_plane = 2874" in p.stdout and "pages_per_block = 768" in p.stdout


def test_policies(cli):
    from ssdlab import registry

    p = cli("policies")
    assert p.returncode == 0
    for name in ("greedy", "cost-benefit", "fifo", "random", "d-choices", "blocking"):
        assert name in p.stdout
    # Every family of the core's registries, with its key and every member (markup-safe).
    assert len(registry.families()) == 30
    for f in registry.families():
        assert f"{f['family']} ({f['key']})" in p.stdout
        for m in f["members"]:
            assert m["name"] in p.stdout, (f["family"], m["name"])


def test_trace_info_reproduces_readme_counts(cli, traces):
    p = cli("trace", "info", str(traces / "cloudphysics" / "cloudPhysicsIO.vscsi"), "--json", "-")
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["requests"] == 113_872
    assert round(100 * info["write_fraction"], 1) == 58.7
    assert info["write_footprint_pages"] == 208_696
    assert info["page_writes"] == 656_169


def test_trace_info_gzip(cli, tmp_path):
    path = tmp_path / "t.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("time_us,op,offset_bytes,size_bytes\n0,W,0,8192\n10,R,4096,4096\n")
    p = cli("trace", "info", str(path), "--json", "-")
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["requests"] == 2 and info["writes"] == 1 and info["page_writes"] == 2


# ---------------------------------------------------------------- bad input


def test_unknown_config_key(cli):
    assert_one_line_error(cli("run", "-d", "tiny", "--set", "gc.bogus=1"), "unknown field `bogus`")


def test_impossible_geometry(cli):
    assert_one_line_error(cli("run", "-d", "tiny", "--set", "geometry.spare_factor=0.01"), "geometry.spare_factor")


def test_bad_override_syntax(cli):
    assert_one_line_error(cli("run", "-d", "tiny", "--set", "nonsense"), "section.key=value")


def test_unknown_preset(cli):
    assert_one_line_error(cli("run", "-d", "no-such-device"), "no-such-device", "preset")


def test_device_toml_with_bad_type(cli, tmp_path):
    f = tmp_path / "d.toml"
    f.write_text('[geometry]\nchannels = "four"\n')
    assert_one_line_error(cli("run", "-d", str(f)), str(f))


def test_malformed_trace_line(cli, tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("0,W,0,4096\n5,W,abc,4096\n")
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(f), "--format", "csv"), f"{f}:2", "offset")


def test_negative_size(cli, tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("0,W,0,4096\n5,W,0,-8\n")
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(f), "--format", "csv"), f"{f}:2", "size")


def test_truncated_vscsi_record(cli, tmp_path):
    f = tmp_path / "t.vscsi"
    rec = struct.pack("<IIIHHQQ", 1, 4096, 1, 0x2A, 0x0100, 8, 1000)
    f.write_bytes(rec + rec[:20])
    assert_one_line_error(cli("trace", "info", str(f), "--format", "vscsi"), str(f))


def test_address_beyond_capacity_suggests_lba_map(cli, tmp_path):
    f = tmp_path / "t.csv"
    f.write_text(f"0,W,{1 << 40},4096\n")
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(f), "--format", "csv"), f"{f}:1", "--lba-map")


def test_missing_trace_file(cli, tmp_path):
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(tmp_path / "nope.csv")), "nope.csv")


def test_unwritable_json_path(cli, tmp_path):
    path = tmp_path / "no" / "dir" / "r.json"
    assert_one_line_error(cli("run", "-d", "tiny", "-n", "100", "--json", str(path)), "--json", f"cannot write {path}")


def test_run_with_multi_frontier_placement(cli, tmp_path):
    """Placement policies (issue 4) are usable in `ssdlab run`: on skewed writes, separating hot
    and cold data lowers write amplification against a single frontier."""
    wafs = {}
    for placement in ("single", "hot-cold", "oracle"):
        out = tmp_path / f"{placement}.json"
        p = cli("run", "-d", "tiny", "-w", "hotcold", "--hot-writes", "0.9", "--hot-space", "0.1", "-n", "40000",
                "--timing", "none", "--set", f'ftl.placement="{placement}"', "--json", str(out))
        assert p.returncode == 0, p.stderr
        wafs[placement] = json.loads(out.read_text())["waf"]
    assert wafs["hot-cold"] < wafs["single"], wafs
    assert wafs["oracle"] < wafs["single"], wafs


def test_experiment_fill_curve_json_and_bad_options(cli, tmp_path):
    out = tmp_path / "f.json"
    small = ["--set", "geometry.blocks_per_plane=256", "--set", "geometry.spare_factor=0.2", "--set", "cache.slc_blocks=32"]
    p = cli("experiment", "fill", *small, "--request-kib", "64", "--points", "200", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "SLC cache at the start" in p.stdout
    r = json.loads(out.read_text())
    assert abs(r["cache_gb"] - 32 * 256 * 16384 / 1e9) < 1e-9
    pts = r["points"]
    assert len(pts) == 200 and set(pts[0]) == {"written_gb", "mb_s"}
    # The SLC plateau, then the cliff inside the configured cache (26 of 32 blocks full at the
    # trigger) and a plateau far below it.
    cliff = next(q for q in pts if q["mb_s"] < pts[0]["mb_s"] / 2)
    assert r["cache_gb"] * 26 / 32 <= cliff["written_gb"] <= r["cache_gb"] + r["capacity_gb"] / 200
    assert pts[len(pts) // 2]["mb_s"] < pts[0]["mb_s"] / 5
    assert_one_line_error(cli("experiment", "fill", "--slc", "bogus"), "cache.slc", "dwa")
    assert_one_line_error(cli("experiment", "fill", "--request-kib", "0"), "--request-kib")


def test_experiment_slc_json_keys_and_bad_options(cli, tmp_path):
    out = tmp_path / "s.json"
    small = ["--set", "geometry.blocks_per_plane=256", "--set", "geometry.pages_per_block=64",
             "--set", "geometry.spare_factor=0.2", "--set", "cache.slc_blocks=8"]
    p = cli("experiment", "slc", *small, "-w", "ycsb-a", "--data-gb", "0.05", "-u", "0.3", "-u", "0.8",
            "--sensitivity", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "utilisation 30%" in p.stdout and "rl sensitivity" in p.stdout
    r = json.loads(out.read_text())
    assert set(r["utilisations"]) == {"0.3", "0.8"}
    for runs in r["utilisations"].values():
        assert set(runs["policies"]) == {"none", "static", "dwa", "ust", "rl"}
        for x in runs["policies"].values():
            assert set(x["latency_us"]["write"]) == {"p50", "p99", "p99_99"}
            assert set(x["breakdown_us"]) == {"slc", "qlc", "migration", "gc"}
            assert x["write_mb_s"] > 0 and x["waf"] >= 1
    assert len(r["sensitivity"]) == 5
    assert_one_line_error(cli("experiment", "slc", "-w", "bogus"), "--workload", "ycsb-a")
    assert_one_line_error(cli("experiment", "slc", "-u", "1.5"), "--utilisation")
    assert_one_line_error(cli("experiment", "slc", "-p", "bogus"), "bogus")
    assert_one_line_error(cli("experiment", "slc", "--set", "cache.rl.gamma=1"), "cache.rl.gamma")


def test_error_messages_with_brackets_print_literally(cli, tmp_path):
    # rich would read `[/x]` as a closing markup tag (a MarkupError traceback) and drop `[x]`.
    assert_one_line_error(cli("run", "-d", "[/x]"), "--device [/x]")
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(tmp_path / "[x]" / "t.csv")), "[x]")
