"""Input the CLI must refuse with one line naming the file, option or field (issue 18): traces
that yield no request, and devices too large for the machine's memory."""
from __future__ import annotations

import json
import struct

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
                          "record 1, byte offset 0: opcode 0x12")


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
    assert_one_line_error(r, "--allow-empty", "--trace runs only")


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
