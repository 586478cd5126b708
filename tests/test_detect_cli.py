"""``ssdlab detect`` end to end (issue 13; Park & Kim §III-IV): iostat of the real recording
against sysstat's own printed output under sysstat's JSON names, the watcher replaying it with a
tree fitted here (known detections, ``--on-detect`` once per episode), live runs on this
machine's ``/proc/diskstats``, record-then-iostat, and one error line for every bad input."""
from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ssdlab import detect
from conftest import terminal_sigint
from test_cli import assert_one_line_error

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "crates" / "ssdlab-core" / "tests" / "data" / "detect"
REC = DATA / "vda_dd.diskstats"
PROC = Path("/proc/diskstats")


def sysstat_reports(name: str) -> list[dict[str, str]]:
    """sysstat's printed reports for vda: one {column: printed value} per report."""
    header: list[str] = []
    out = []
    for line in (DATA / name).read_text().splitlines():
        f = line.split()
        if f and f[0] == "Device":
            header = f[1:]
        elif f and f[0] == "vda":
            out.append(dict(zip(header, f[1:])))
    return out


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    """A tree fitted on the recording with GC where w/s > 20: intervals 1, 2 and 4 of 6 (w/s
    1013.86, 95, 0, 33, 0, 0), two episodes; C4.5 tests w/s (the first attribute that separates
    them)."""
    names = detect.feature_names()
    rows = detect.recording_features(str(REC), "vda")
    labels = [int(r[names.index("w/s")] > 20) for r in rows]
    assert labels == [1, 1, 0, 1, 0, 0]
    tree = detect.Tree.fit(names, rows, labels)
    assert tree.features_used() == ["w/s"]
    path = tmp_path_factory.mktemp("model") / "tree.json"
    tree.save(str(path))
    return path


def live_device() -> str:
    """A real device of this machine: the first in /proc/diskstats with any I/O (else the first)."""
    if not PROC.exists():
        pytest.skip(f"{PROC} not present: live detect tests need Linux")
    lines = [l.split() for l in PROC.read_text().splitlines() if l.strip()]
    busy = [f[2] for f in lines if int(f[3]) + int(f[7]) > 0]
    return (busy or [lines[0][2]])[0]


def test_iostat_json_equals_sysstats_printed_output(cli, tmp_path):
    out = tmp_path / "iostat.json"
    p = cli("detect", "iostat", "--diskstats", str(REC), "--device", "vda", "--json", str(out))
    assert p.returncode == 0, p.stderr
    series = json.loads(out.read_text())
    assert len(series) == 6
    need = {"r/s", "w/s", "rkB/s", "wkB/s", "rrqm/s", "wrqm/s", "r_await", "w_await", "rareq-sz", "wareq-sz",
            "aqu-sz", "util", "svctm", "avgrq-sz", "avgqu-sz", "await", "tps", "disk_device"}
    assert need <= set(series[0])
    # sysstat's reports after the first (since boot) are our intervals; its JSON names are its
    # column names without `%`.
    n = 0
    for name in ("vda_dd.iostat_x.txt", "vda_dd.iostat_xs.txt"):
        printed = sysstat_reports(name)[1:]
        assert len(printed) == len(series)
        for ours, theirs in zip(series, printed):
            for col, text in theirs.items():
                assert f"{ours[col.lstrip('%')]:.2f}" == text, (name, col)
                n += 1
    assert n == 6 * 22 + 6 * 7
    # The table carries iostat's header and the same digits.
    header = p.stdout.splitlines()[0].split()
    assert header[:4] == ["uptime", "Device", "r/s", "rkB/s"] and header[-1] == "%util"
    assert p.stdout.splitlines()[1].split()[2:5] == ["0.99", "3.96", "0.00"]


def test_iostat_legacy_columns_are_the_detectors(cli):
    p = cli("detect", "iostat", "--diskstats", str(REC), "--device", "vda", "--legacy")
    assert p.returncode == 0, p.stderr
    header = p.stdout.splitlines()[0].split()
    assert header[2:] == ["rrqm/s", "wrqm/s", "r/s", "w/s", "rkB/s", "wkB/s", "avgrq-sz", "avgqu-sz", "await",
                          "r_await", "w_await", "svctm", "%util"]


def hook(log: Path) -> str:
    """An --on-detect command appending `episode uptime device` to ``log``."""
    code = ("import os; open(os.environ['LOG'], 'a').write("
            "os.environ['SSDLAB_EPISODE'] + ' ' + os.environ['SSDLAB_UPTIME'] + ' ' + os.environ['SSDLAB_DEVICE'] + '\\n')")
    return shlex.join([sys.executable, "-c", code])


def test_watch_replay_prints_detections_and_acts_once_per_episode(cli, model, tmp_path, monkeypatch):
    log = tmp_path / "hook.log"
    monkeypatch.setenv("LOG", str(log))
    p = cli("detect", "watch", "vda", "--model", str(model), "--diskstats", str(REC), "--on-detect", hook(log))
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "uptime 14757.85 s  vda  GC (episode 1)  w/s=1013.86",
        "uptime 14758.85 s  vda  GC (episode 1)  w/s=95",
        "uptime 14760.85 s  vda  GC (episode 2)  w/s=33",
    ]
    assert log.read_text().splitlines() == ["1 14757.85 vda", "2 14760.85 vda"]
    assert "6 intervals, 3 classified GC in 2 episodes" in p.stderr
    # --count stops after that many intervals: both in episode 1, one action.
    log.unlink()
    p = cli("detect", "watch", "vda", "-m", str(model), "--diskstats", str(REC), "--count", "2", "--on-detect", hook(log))
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 2 and log.read_text().splitlines() == ["1 14757.85 vda"]
    # Without --on-detect nothing is run.
    p = cli("detect", "watch", "vda", "-m", str(model), "--diskstats", str(REC))
    assert p.returncode == 0 and len(p.stdout.splitlines()) == 3


def test_watch_live_on_this_machine_for_three_seconds(cli, model):
    dev = live_device()
    t0 = time.monotonic()
    p = cli("detect", "watch", dev, "--model", str(model), "--count", "3", "--interval", "1")
    elapsed = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    assert f"{dev}: 3 intervals" in p.stderr
    assert 2.9 <= elapsed < 30
    for line in p.stdout.splitlines():
        assert f"  {dev}  GC (episode " in line


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("command", ["watch", "record"])
def test_ctrl_c_stops_cleanly(model, tmp_path, sig, command):
    dev = live_device()
    args = ["watch", dev, "--model", str(model)] if command == "watch" else ["record", dev, "-o", str(tmp_path / "r")]
    p = subprocess.Popen([sys.executable, "-m", "ssdlab", "detect", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, preexec_fn=terminal_sigint)
    time.sleep(2.0)
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_record_two_intervals_then_iostat(cli, tmp_path):
    dev = live_device()
    rec = tmp_path / "rec.diskstats"
    p = cli("detect", "record", dev, "-o", str(rec), "--count", "2")
    assert p.returncode == 0, p.stderr
    text = rec.read_text()
    assert text.count("# uptime ") == 3
    # Whole snapshots: every device of /proc/diskstats, not only the one asked for.
    assert text.count(f" {dev} ") == 3
    if len([l for l in PROC.read_text().splitlines() if l.strip()]) > 1:
        assert len(text.splitlines()) > 3 * 2
    out = tmp_path / "i.json"
    p = cli("detect", "iostat", "--diskstats", str(rec), "--device", dev, "--json", str(out))
    assert p.returncode == 0, p.stderr
    series = json.loads(out.read_text())
    assert len(series) == 2 and all(s["disk_device"] == dev for s in series)
    assert all(0.5 < s["interval_s"] < 5 and 0 <= s["util"] <= 100.0 for s in series)
    assert len(p.stdout.splitlines()) == 3


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory, model) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("bad")
    files = {
        "malformed": "# uptime 1.00\n 8 0 sda 1 x 3 4 5 6 7 8 9 10 11\n",
        "not_json": "nonsense\n",
        "wrong_json": '{"a": 1}\n',
    }
    out = {k: d / k for k in files}
    for k, text in files.items():
        out[k].write_text(text)
    detect.Tree.fit(["a", "b"], [[1, 2], [3, 4], [5, 6], [7, 8]], [0, 0, 1, 1]).save(str(d / "wrong_features"))
    n = len(detect.feature_names())
    detect.Tree.fit(detect.feature_names(), [[float(k)] * n for k in range(6)], [0, 0, 2, 2, 1, 1]).save(
        str(d / "wrong_classes"))
    out.update(wrong_features=d / "wrong_features", wrong_classes=d / "wrong_classes", missing=d / "missing",
               model=model, no_dir=d / "no" / "such" / "dir")
    return out


# (id, arguments, fragments of the one error line); {name} is a path of ``bad_inputs``, {rec} the
# real recording, {m} the fitted model.
CASES = [
    ("iostat-malformed-line", "iostat --diskstats {malformed} --device sda", ["{malformed}:2:", "field 5"]),
    ("watch-malformed-line", "watch sda -m {m} --diskstats {malformed}", ["{malformed}:2:", "field 5"]),
    ("iostat-missing-device", "iostat --diskstats {rec} --device nosuchdev", ["{rec}:1:", "`nosuchdev`", "vda, zram0"]),
    ("watch-missing-device", "watch nosuchdev -m {m} --diskstats {rec}", ["{rec}:1:", "`nosuchdev`", "vda"]),
    ("iostat-unreadable", "iostat --diskstats {missing} --device sda", ["{missing}"]),
    ("watch-unreadable-model", "watch vda -m {missing} --diskstats {rec}", ["--model {missing}"]),
    ("model-not-json", "watch vda -m {not_json} --diskstats {rec}", ["--model {not_json}:1:"]),
    ("model-wrong-json", "watch vda -m {wrong_json} --diskstats {rec}", ["--model {wrong_json}:1:", "unknown field"]),
    ("model-wrong-features", "watch vda -m {wrong_features} --diskstats {rec}",
     ["--model {wrong_features}:", "expected the attributes of a detector feature set", "std_%util", "found 2 names: a b"]),
    ("model-wrong-classes", "watch vda -m {wrong_classes} --diskstats {rec}", ["--model", "expected the classes 0"]),
    ("window-0", "watch vda -m {m} --diskstats {rec} --window 0", ["--window", "≥ 1", "got 0"]),
    ("interval-0", "watch vda -m {m} --diskstats {rec} --interval 0", ["--interval"]),
    ("count-0", "watch vda -m {m} --diskstats {rec} --count 0", ["--count"]),
    ("on-detect-no-program", "watch vda -m {m} --diskstats {rec} --on-detect 'no-such-program-xyz --now'",
     ["--on-detect", "no-such-program-xyz"]),
    ("on-detect-unbalanced", "watch vda -m {m} --diskstats {rec} --on-detect \"touch 'x\"", ["--on-detect", "quotation"]),
    ("json-unwritable", "iostat --diskstats {rec} --device vda --json {no_dir}", ["--json", "cannot write {no_dir}"]),
]


@pytest.mark.parametrize("args, fragments", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_2(cli, bad_inputs, args, fragments):
    paths = {k: str(v) for k, v in bad_inputs.items()}
    paths.update(rec=str(REC), m=str(bad_inputs["model"]))
    argv = [a.format(**paths) for a in shlex.split(args)]
    assert_one_line_error(cli("detect", *argv), *[f.format(**paths) for f in fragments])


def test_live_errors_are_one_line_and_exit_2(cli, bad_inputs, tmp_path):
    dev = live_device()
    out = tmp_path / "rec.diskstats"
    for args, fragments in [
        (["watch", "nosuchdev", "-m", str(bad_inputs["model"]), "--count", "1"], ["/proc/diskstats:", "`nosuchdev`", dev]),
        (["record", "nosuchdev", "-o", str(out)], ["/proc/diskstats:", "`nosuchdev`", dev]),
        # The output is checked before anything is read.
        (["record", dev, "-o", str(bad_inputs["no_dir"]), "--count", "1"], ["--output", f"cannot write {bad_inputs['no_dir']}"]),
        (["record", dev, "-o", str(out), "--interval", "-1"], ["--interval"]),
    ]:
        assert_one_line_error(cli("detect", *args), *fragments)
    assert not bad_inputs["no_dir"].exists()


def test_reads_do_not_burst_to_catch_up_after_a_long_pause():
    from ssdlab.cli_detect import ticks

    it = ticks(0.05, None)
    next(it)
    time.sleep(0.3)  # e.g. a long --on-detect command: six deadlines missed
    next(it)  # late: read at once, and restart the schedule from now
    t0 = time.monotonic()
    next(it), next(it)
    assert time.monotonic() - t0 >= 0.09  # one interval each, not two reads at once
