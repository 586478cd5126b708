"""Input the CLI must refuse with one line naming the file, option or field (issue 18): traces
that yield no request, and devices too large for the machine's memory."""
from __future__ import annotations

import json
import os
import shlex
import struct
import subprocess
import sys

import pytest

from test_cli import assert_one_line_error


def vscsi_v1(opcode: int, lbn: int = 8, ts_us: int = 5) -> bytes:
    """One VSCSI v1 record: serial, length, n_sg, opcode, version 0x0100, lbn, timestamp."""
    return struct.pack("<IIIHHQQ", 1, 4096, 1, opcode, 0x0100, lbn, ts_us)


def test_empty_vscsi_is_an_error_naming_the_file(cli, tmp_path):
    p = tmp_path / "empty.vscsi"
    p.write_bytes(b"")
    r = cli("run", "-d", "tiny", "-t", str(p), "--no-progress")
    assert_one_line_error(r, str(p), "found none", "the file is empty", "--allow-empty")


def test_unknown_opcode_only_is_an_error_with_count_and_offset(cli, tmp_path):
    p = tmp_path / "inquiry.vscsi"
    p.write_bytes(vscsi_v1(0x12))
    r = cli("run", "-d", "tiny", "-t", str(p), "--no-progress")
    assert_one_line_error(r, str(p), "its only record was skipped", "1 with an opcode that is neither a read nor a write",
                          "record 1 at byte offset 0: opcode 0x12")


def test_disk_filter_that_keeps_nothing_lists_the_disks(cli, tmp_path):
    p = tmp_path / "two-disks.trace"
    p.write_text("0 5 0 8 0\n1000 7 8 8 0\n2000 7 16 8 1\n")
    r = cli("run", "-d", "tiny", "-t", str(p), "--format", "disksim", "--disk", "99", "--no-progress")
    assert_one_line_error(r, str(p), "all 3 records were skipped", "3 of devices other than 99", "devices 5, 7")


def test_allow_empty_runs_an_empty_trace(cli, tmp_path):
    p = tmp_path / "inquiry.vscsi"
    p.write_bytes(vscsi_v1(0x12))
    out = tmp_path / "r.json"
    r = cli("run", "-d", "tiny", "-t", str(p), "--allow-empty", "--no-progress", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["requests"]["total"] == 0
    r = cli("run", "-d", "tiny", "-n", "10", "--allow-empty")
    assert_one_line_error(r, "--allow-empty", "applies to --trace only")


def test_dense_map_keeps_the_request_count(cli, traces, tmp_path):
    """CloudPhysics: 113,872 requests whatever the LBA map (dense reported 134,834 before)."""
    t = traces / "cloudphysics" / "cloudPhysicsIO.vscsi"
    counts = {}
    for lba_map in ("none", "dense"):
        out = tmp_path / f"{lba_map}.json"
        r = cli("run", "-d", "kang-512gb", "-t", str(t), "--lba-map", lba_map, "--no-precondition", "--no-progress",
                "--json", str(out))
        assert r.returncode == 0, r.stderr
        res = json.loads(out.read_text())
        counts[lba_map] = (res["requests"]["total"], res["latency_us"]["all"]["count"])
    assert counts["dense"] == counts["none"] == (113_872, 113_872)


#: The issue's device: 8 channels × 8 chips × 1 die × 2 planes × 16000 blocks × 2048 pages =
#: 4.19e9 pages, under the 2^32-page limit but ≈ 30.7 GiB of FTL tables.
HUGE = ["--set", "geometry.channels=8", "--set", "geometry.chips_per_channel=8", "--set", "geometry.dies_per_chip=1",
        "--set", "geometry.planes_per_die=2", "--set", "geometry.blocks_per_plane=16000",
        "--set", "geometry.pages_per_block=2048"]


def test_too_large_device_is_refused_with_the_estimate(cli, monkeypatch):
    # The budget is set, so the test never tries to allocate 30 GiB on a large machine.
    monkeypatch.setenv("SSDLAB_MEMORY_LIMIT", "8G")
    r = cli("run", "-d", "mqsim-small", *HUGE, "-n", "10", "--no-progress")
    assert_one_line_error(r, "geometry: this device needs ≈ 30.7 GiB of memory (4.19e9 pages × 7.8 B/page",
                          "8.00 GiB available (SSDLAB_MEMORY_LIMIT)", "SSDLAB_MEMORY_LIMIT=off")
    monkeypatch.setenv("SSDLAB_MEMORY_LIMIT", "lots")
    r = cli("run", "-d", "tiny", "-n", "10", "--no-progress")
    assert_one_line_error(r, "SSDLAB_MEMORY_LIMIT", "expected off or a size", '"lots"')
    # A device that fits runs whatever the budget says once the check is off.
    monkeypatch.setenv("SSDLAB_MEMORY_LIMIT", "off")
    r = cli("run", "-d", "tiny", "-n", "10", "--no-progress")
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ulimit -v and /proc are Linux's")
def test_address_space_limit_is_read_at_run_time(tmp_path):
    """Under ``ulimit -v 4G`` the device used to abort in the allocator ("memory allocation of
    13421772800 bytes failed"); now the limit is read and the run refused in one line."""
    env = {k: v for k, v in os.environ.items() if k != "SSDLAB_MEMORY_LIMIT"}
    cmd = "ulimit -v 4000000 && exec " + " ".join(
        shlex.quote(a) for a in [sys.executable, "-m", "ssdlab", "run", "-d", "mqsim-small", *HUGE, "-n", "10",
                                 "--no-progress"])
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env, timeout=120)
    assert_one_line_error(r, "geometry: this device needs ≈ 30.7 GiB", "available (ulimit -v)")


def test_devices_show_prints_the_memory_estimate(cli, monkeypatch):
    monkeypatch.setenv("SSDLAB_MEMORY_LIMIT", "512M")
    r = cli("devices", "--show", "ttflash")
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith("# memory: ≈ 503 MiB (6.71e7 pages × 7.7 B/page + 2.62e5 blocks × 33 B/block"), last
    assert "512 MiB available (SSDLAB_MEMORY_LIMIT)" in last and "too large" not in last
    monkeypatch.setenv("SSDLAB_MEMORY_LIMIT", "256M")
    last = cli("devices", "--show", "ttflash").stdout.strip().splitlines()[-1]
    assert "too large: runs are refused" in last
    r = cli("devices")
    assert r.returncode == 0 and "memory" in r.stdout and "503 MiB" in r.stdout


def test_python_api_reads_the_estimate():
    from ssdlab.device import Device

    small, large = Device("tiny").memory_estimate_bytes(), Device("ttflash").memory_estimate_bytes()
    assert 0 < small < large and large == Device("ttflash").describe()["memory"]["estimate_bytes"]
