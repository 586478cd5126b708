"""Issue 58: one test per kind of input that got a traceback, a hang, a silent exit 0 or a line
naming nothing before — streams, byte-order marks, names too long for a file, values thousands
of characters long, grids of a million runs, spellings of one sweep key twice, recordings of
one snapshot, options that do not apply, damaged store files — and the walk of every CLI
command checking that no exception but ssdlab's escapes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from test_cli import assert_one_line_error
from ssdlab.inputs import MAX_LINE

LINE = "ssdlab: error: "


def one_line(r, *parts: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-1500:])
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(LINE), r.stderr[-1500:]
    assert len(lines[0]) <= MAX_LINE + len(LINE), len(lines[0])
    for p in parts:
        assert p in lines[0], (p, lines[0])
    return lines[0]


def msr_lines(n: int = 40) -> str:
    rows = ["Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"]
    rows += [f"{128166372003061629 + 10_000 * i},hm,0,{'Write' if i % 3 else 'Read'},{4096 * (i % 50)},4096,2000"
             for i in range(n)]
    return "\n".join(rows) + "\n"


# -- streams --------------------------------------------------------------------------------------
def test_a_trace_through_a_pipe_runs(tmp_path):
    """Format detection reads ahead; a pipe is read once: it runs, and counts every request."""
    text = msr_lines()
    r = subprocess.run([sys.executable, "-m", "ssdlab", "trace", "info", "/dev/stdin", "--json", "-"], input=text,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["requests"] == 40
    r = subprocess.run([sys.executable, "-m", "ssdlab", "run", "-d", "tiny", "-t", "/dev/stdin", "--no-progress",
                        "--json", str(tmp_path / "r.json")], input=text, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "r.json").read_text())["requests"]["total"] == 40


def test_a_trace_from_a_fifo_runs(cli, tmp_path):
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(msr_lines(25)), daemon=True)
    writer.start()
    r = cli("trace", "info", str(fifo), "--json", "-")
    writer.join(timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["requests"] == 25


# -- encodings ------------------------------------------------------------------------------------
def test_a_byte_order_mark_is_accepted_in_a_csv_trace_and_a_spec(cli, tmp_path):
    p = tmp_path / "bom.csv"
    p.write_bytes(b"\xef\xbb\xbf" + msr_lines(30).encode())
    r = cli("trace", "info", str(p), "--json", "-")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["requests"] == 30
    spec = tmp_path / "s.toml"
    spec.write_bytes(b"\xef\xbb\xbf" + b'[base]\ndevice = "tiny"\nworkload.requests = 200\n[grid]\nseed = [1, 2]\n')
    r = cli("sweep", str(spec), "--dry-run", "-o", str(tmp_path / "res"))
    assert r.returncode == 0, r.stderr


def test_bytes_that_are_not_utf8_name_the_file_and_line(cli, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_bytes(b'[base]\ndevice = "tiny\xff"\n')
    one_line(cli("sweep", str(spec), "--dry-run"), f"{spec}:2:", "UTF-8")


# -- sizes ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [["run", "-d", "d" * 300, "-n", "10"], ["run", "-d", "tiny", "-n", "10", "--json", "j" * 300],
                                  ["plot", "ccdf", "r" * 300], ["trace", "info", "t" * 5000]])
def test_a_name_too_long_for_a_file_names_the_option(cli, args):
    line = one_line(cli(*args))
    assert "longer than a" in line or "not a preset" in line, line
    assert "File name too long" not in line


def test_a_value_megabytes_long_is_shortened(cli, tmp_path):
    one_line(cli("run", "-d", "tiny", "-n", "10", "--set", f"gc.victim={'x' * 100_000}"), "characters")
    big = "x" * 5_000_000  # a command-line argument is at most 128 KiB: the 5 MB value is a file's
    spec = tmp_path / "s.toml"
    spec.write_text(f'[base]\ndevice = "tiny"\nset.gc.victim = "{big}"\n')
    one_line(cli("sweep", str(spec), "--dry-run"), str(spec))


def test_a_grid_of_a_million_runs_is_refused_at_once(cli, tmp_path):
    spec = tmp_path / "big.toml"
    spec.write_text('[base]\ndevice = "tiny"\n[grid]\nseed = [' + ", ".join(map(str, range(1000))) + "]\n"
                    "workload.requests = [" + ", ".join(map(str, range(100, 1100))) + "]\n")
    one_line(cli("sweep", str(spec), "--dry-run"), "1,000,000 runs", "--max-runs")
    small = tmp_path / "small.toml"
    small.write_text('[base]\ndevice = "tiny"\n[grid]\nseed = [1, 2, 3]\n')
    one_line(cli("sweep", str(small), "--dry-run", "--max-runs", "2"), "3 runs")
    assert cli("sweep", str(small), "--dry-run", "--max-runs", "3").returncode == 0


# -- sweep specs ----------------------------------------------------------------------------------
@pytest.mark.parametrize("grid", ['"set.gc.victim" = ["greedy"]\nset.gc.victim = ["fifo"]',
                                  '"set.gc.victim" = ["greedy"]\n[grid.set.gc]\nvictim = ["fifo"]'])
def test_two_spellings_of_one_axis_are_an_error(cli, tmp_path, grid):
    spec = tmp_path / "s.toml"
    spec.write_text(f'[base]\ndevice = "tiny"\n[grid]\n{grid}\n')
    one_line(cli("sweep", str(spec), "--dry-run"), str(spec), "set.gc.victim")


def test_two_spellings_of_one_base_key_are_an_error(cli, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('[base]\ndevice = "tiny"\n"set.gc.victim" = "greedy"\nset.gc.victim = "fifo"\n')
    one_line(cli("sweep", str(spec), "--dry-run"), "set twice")


# -- recordings -----------------------------------------------------------------------------------
def test_a_recording_of_one_snapshot_is_an_error(cli, tmp_path):
    rec = tmp_path / "one.txt"
    rec.write_text("# uptime 100.00\n   8       0 sda 1 0 8 1 1 0 8 1 0 1 2 0 0 0 0 0 0\n")
    one_line(cli("detect", "iostat", "--diskstats", str(rec), "--device", "sda"), f"{rec}:1:", "two")


# -- options that do not apply -------------------------------------------------------------------
@pytest.mark.parametrize("args,option", [
    (["offline", "-m", "greedy", "-w", "uniform", "--psi", "4"], "--psi"),
    (["offline", "-m", "greedy", "-w", "uniform", "--playouts", "4"], "--playouts"),
    (["offline", "-m", "pruned", "-w", "uniform", "--playouts", "4"], "--playouts"),
    (["offline", "-m", "greedy", "-w", "uniform", "--format", "msr"], "--format"),
    (["offline", "-m", "greedy", "-t", "x.csv", "-n", "10"], "--requests/-n"),
    (["trace", "info", "x.csv", "--page-size", "1000"], "--page-size"),
    (["trace", "info", "x.csv", "--page-size", "256"], "--page-size"),
    (["detect", "watch", "sda", "-m", "t.json", "--diskstats", "r.txt", "--interval", "2"], "--interval"),
    (["sweep", "s.toml", "--dry-run", "-j", "2"], "--jobs/-j"),
    (["sweep", "--example", "-j", "2"], "--jobs/-j"),
])
def test_options_that_do_not_apply_are_refused(cli, args, option):
    one_line(cli(*args), option)


# -- files read back ------------------------------------------------------------------------------
def test_a_damaged_store_marker_names_the_file(cli, tmp_path):
    store = tmp_path / "res"
    spec = tmp_path / "s.toml"
    spec.write_text('[base]\ndevice = "tiny"\nworkload.requests = 100\noptions.precondition = false\n')
    assert cli("sweep", str(spec), "-o", str(store), "-j", "0", "--no-progress").returncode == 0
    marker = store / "ssdlab-sweep.json"
    for text in ("{", "[]", '{"format": "1"}', '{"format": null}'):
        marker.write_text(text)
        one_line(cli("report", str(store), "-o", str(tmp_path / "r.html")), str(marker))
        one_line(cli("sweep", str(spec), "-o", str(store)), str(marker))


def test_a_damaged_row_file_names_the_file(cli, tmp_path):
    pytest.importorskip("pyarrow")
    store = tmp_path / "res"
    spec = tmp_path / "s.toml"
    spec.write_text('[base]\ndevice = "tiny"\nworkload.requests = 100\noptions.precondition = false\n')
    assert cli("sweep", str(spec), "-o", str(store), "-j", "0", "--no-progress", "--no-compact").returncode == 0
    row = next((store / "rows").glob("*.parquet"))
    row.write_bytes(row.read_bytes()[:40])
    one_line(cli("report", str(store), "-o", str(tmp_path / "r.html")), row.name)


def test_run_from_a_setup_of_the_wrong_shape_names_the_field(cli, tmp_path):
    p = tmp_path / "r.json"
    for setup, field in (({"device": {"toml": 3}, "workload": {}, "options": {}}, "setup.device.toml"),
                         ({"device": {"toml": ""}, "workload": [], "options": {}}, "setup.workload"),
                         ("x", "setup")):
        p.write_text(json.dumps({"setup": setup}))
        one_line(cli("run", "--from", str(p)), str(p), field)


# -- every command: no exception but ssdlab's escapes ------------------------------------------
def commands():
    import typer

    from ssdlab.cli import LAZY, app

    root = typer.main.get_command(app)
    for module in dict.fromkeys(LAZY.values()):  # the commands built on first use: all of them
        root._load(module)
    out = []

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, path + [name])
        else:
            out.append((path, cmd))

    walk(root, [])
    return out


def test_every_command_answers_bad_files_with_ssdlab_errors(tmp_path, capsys):
    """Each command's path and file arguments given a file of garbage, a folder, a file too
    long to name and a missing file: exit 0 or 2 with one error line, never another exception
    (``cli.main`` lets through only the framework's and ssdlab's errors, turned into lines)."""
    from ssdlab.cli import main

    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"\x00\xff{[\n" * 10)
    values = [str(garbage), str(tmp_path), "n" * 300]
    #: What a command writes (a garbage file there is overwritten after a full run), not reads.
    outputs = {"json_path", "out", "output", "report_path", "rules", "results", "q_table", "series_path", "model_out",
               "iostat_path"}
    tried = 0
    for path, cmd in commands():
        files = [p for p in cmd.params if (getattr(p.type, "name", "") == "path" or p.name == "device")
                 and p.name not in outputs and not (path == ["detect", "train"] and p.name == "model")]
        for p in files:
            for v in values:
                args = list(path)
                required = [q for q in cmd.params if q.required and q is not p]
                for q in required:  # fill the other required parameters with plausible values
                    args += ([q.opts[0]] if q.opts and q.opts[0].startswith("-") else []) + [
                        "sda" if q.name == "device" else ("greedy" if q.name == "method" else
                                                          ("ccdf" if q.name == "kind" else str(garbage)))]
                args += ([p.opts[0]] if p.opts and p.opts[0].startswith("-") else []) + [v]
                if path[:2] in (["detect", "record"], ["detect", "watch"]) and "--count" not in args:
                    args += ["--count", "1"]
                if path == ["detect", "watch"] and "--diskstats" not in args:
                    args += ["--diskstats", str(garbage)]
                capsys.readouterr()
                with pytest.raises(SystemExit) as e:
                    main(args)
                err = capsys.readouterr().err
                tried += 1
                assert e.value.code in (0, 2), (args, e.value.code, err[-1500:])
                assert "Traceback" not in err, (args, err[-1500:])
                if e.value.code == 2:
                    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("ssdlab: warning:")]
                    assert len(lines) == 1 and lines[0].startswith(LINE), (args, err[-1500:])
    assert tried > 40
