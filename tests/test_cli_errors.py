"""Issue 18: every input gets a clear answer — one ``ssdlab: error: <option|field>: …`` line and
exit 2 for the command-line framework's own errors, out-of-range and non-finite numbers, options
the run would not use, unwritable outputs (before the run), and the Python API's bad names and
values; plus ``-h``, ``--version``, help on every option, and tables that fit 80 columns."""
from __future__ import annotations

import json
import math

import pytest
from rich.console import Console

import ssdlab
from ssdlab import _core, workload
from test_cli import assert_one_line_error

RUN = ("run", "-d", "tiny", "-n", "2000", "--no-precondition")


@pytest.mark.parametrize("args, fragments", [
    # The framework's own errors (were 5-line boxes).
    (("--seed", "abc"), ["--seed", "integer", "'abc'"]),
    (("--arrival", "sometimes"), ["--arrival", "'sometimes'", "on-off"]),
    (("--timing", "maybe"), ["--timing", "'maybe'", "timed"]),
    (("--seed",), ["--seed", "requires an argument"]),
    (("--bogus-option",), ["--bogus-option", "no such option"]),
    # Ranges (were serde's "expected u64 at line 1 column 11", or a silent run).
    (("-n", "-5"), ["--requests/-n", "≥ 1", "-5"]),
    (("--seed", "-1"), ["--seed", "≥ 0", "-1"]),
    (("--seed", "1e23"), ["--seed", "integer", "1e23"]),
    (("--seed", str(2**64)), ["--seed", "at most", str(2**64)]),
    (("-q", "-3"), ["--queue-depth/-q", "≥ 1", "-3"]),
    (("--time-scale", "nan"), ["--time-scale", "finite", "nan"]),
    (("--read-fraction", "nan"), ["--read-fraction", "[0, 1]", "nan"]),
    (("--read-fraction", "1.5"), ["--read-fraction", "[0, 1]", "1.5"]),
    (("-w", "hotcold", "--hot-space", "0"), ["--hot-space", "(0, 1)", "got 0"]),
    # Options the run would not use (were ignored).
    (("-w", "hotcold", "--zipf-theta", "0.5"), ["--zipf-theta", "zipf only"]),
    (("--iops", "5000"), ["--iops", "--arrival closed"]),
    (("--time-scale", "2"), ["--time-scale", "open-loop"]),
    (("--disk", "1"), ["--disk", "--trace only"]),
    (("--iostat-interval", "2"), ["--iostat-interval", "--iostat only"]),
    (("-w", "home1", "--read-fraction", "0.5"), ["--read-fraction", "home1"]),
    (("--arrival", "on-off", "--idle-shape", "2"), ["--idle-shape", "pareto or lognormal"]),
])
def test_bad_run_options_are_one_line(cli, args, fragments):
    assert_one_line_error(cli(*RUN, *args), *fragments)


def test_precondition_passes_need_preconditioning(cli):
    assert_one_line_error(cli("run", "-d", "tiny", "-n", "100", "--no-precondition", "--precondition-passes", "3"),
                          "--precondition-passes", "--no-precondition")


def test_requests_with_a_trace_are_refused(cli, tmp_path):
    t = tmp_path / "t.csv"
    t.write_text("0,W,0,4096\n10,W,4096,4096\n")
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(t), "-n", "100"), "--requests/-n", "--max-requests")


def test_a_sixth_csv_column_or_a_bad_fifth_is_an_error_naming_the_line(cli, tmp_path):
    # The fifth column is a write's placement identifier (FDP, issue 62); a sixth is too many.
    t = tmp_path / "t.csv"
    t.write_text("0,W,0,4096\n10,W,4096,4096,7,1\n")
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(t), "--format", "csv"), f"{t}:2", "too many fields", "expected 4")
    t.write_text("0,W,0,4096\n10,W,4096,4096,seven\n")
    assert_one_line_error(cli("run", "-d", "tiny", "-t", str(t), "--format", "csv"), f"{t}:2", "field 5 (placement)")


@pytest.mark.parametrize("args, fragments", [
    (("experiment", "ttflash"), ["exactly one of --trace or --workload"]),
    (("experiment", "ttflash", "--workload", "mixed70-small", "--stack", "foo"), ["stack", "'foo'"]),
    (("experiment", "offline", "--playouts", "0"), ["--playouts", "≥ 1"]),
    (("experiment", "slc", "-u", "0.5", "-u", "2"), ["--utilisation/-u", "(0, 1]", "got 2"]),
    (("detect", "eval"), ["--model/-m", "missing"]),
    (("trace", "info"), ["PATH", "missing"]),
    (("no-such-command",), ["No such command"]),
])
def test_other_commands_bad_input_is_one_line(cli, args, fragments):
    assert_one_line_error(cli(*args), *fragments)


@pytest.mark.parametrize("toml, fragments", [
    ('[geometry]\nchannels = "four"\n', ["geometry.channels", '"four"']),
    ("[geometry]\nblocks_per_plane = -5\n", ["geometry.blocks_per_plane", "-5"]),
])
def test_bad_toml_values_name_the_field(cli, tmp_path, toml, fragments):
    f = tmp_path / "d.toml"
    f.write_text(toml)
    assert_one_line_error(cli("run", "-d", str(f), "-n", "10"), str(f), *fragments)


def test_set_values_name_the_field(cli):
    assert_one_line_error(cli(*RUN, "--set", "gc.threshold_blocks=abc"), "gc.threshold_blocks", '"abc"')
    assert_one_line_error(cli(*RUN, "--set", "gc.threshold_blocks=100000"), "gc.threshold_blocks", "blocks_per_plane")


def test_outputs_are_checked_before_the_run(cli, tmp_path):
    # A billion requests: had the check come after the run, the test would not end.
    bad = tmp_path / "no" / "dir" / "out.json"
    p = cli("run", "-d", "tiny", "-n", "1000000000", "--json", str(bad))
    assert_one_line_error(p, "--json", f"cannot write {bad}", "does not exist")
    assert p.stdout == ""
    assert_one_line_error(cli("run", "-d", "tiny", "-n", "10", "--json", str(tmp_path)), "--json", "is a folder")
    assert_one_line_error(cli("experiment", "fill", "--json", str(bad)), "--json", "cannot write")


def test_help_short_option_and_version(cli):
    p = cli("-h")
    assert p.returncode == 0 and "Usage: ssdlab" in p.stdout
    p = cli("run", "-h")
    assert p.returncode == 0 and "--burst-interval-us" in p.stdout  # option names are not cut
    p = cli("--version")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["ssdlab", ssdlab.__version__, "(core", "commit", f"{_core.__git_commit__})"]
    assert _core.__git_commit__ != ""


def _options():
    import typer.main

    from ssdlab.cli import app

    out = []

    def walk(c, path):
        # By name, as the command line finds them: the top level builds some commands only then.
        if hasattr(c, "list_commands"):
            ctx = typer.Context(c)
            for name in c.list_commands(ctx):
                walk(c.get_command(ctx, name), (*path, name))
        out.extend((" ".join(path), p) for p in c.params if p.param_type_name == "option")

    walk(typer.main.get_command(app), ())
    return out


def test_every_option_has_help():
    missing = [(cmd, p.opts) for cmd, p in _options() if not p.help]
    assert missing == []


def test_an_option_whose_default_differs_between_commands_says_why():
    by: dict[str, list] = {}
    for cmd, p in _options():
        if p.default not in (None, [], False) and p.opts[0] not in ("--workload", "--device"):
            by.setdefault(p.opts[0], []).append((cmd, p))
    unexplained = []
    for opt, uses in by.items():
        if len({repr(p.default) for _, p in uses}) > 1:
            unexplained += [(opt, cmd, p.default) for cmd, p in uses if "default" not in p.help.lower()]
    assert unexplained == []


def test_trace_info_json_takes_a_path_like_every_other_json(cli, tmp_path):
    t = tmp_path / "t.csv"
    t.write_text("0,W,0,4096\n")
    out = tmp_path / "info.json"
    p = cli("trace", "info", str(t), "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert json.loads(out.read_text())["requests"] == 1


def test_the_run_header_is_not_rust_debug_text(cli):
    p = cli(*RUN, "--arrival", "on-off")
    assert p.returncode == 0, p.stderr
    assert "OnOff {" not in p.stdout and "Uniform" not in p.stdout
    assert "on-off, bursts of 64" in " ".join(p.stdout.split())


def test_result_tables_fit_80_columns():
    from ssdlab.report import result_tables

    r = ssdlab.simulate("tiny", workload.synthetic("uniform", 20_000, read_fraction=0.3), precondition=True)
    c = Console(width=80, record=True)
    for t in result_tables(r):
        c.print(t)
    text = c.export_text()
    assert "…" not in text
    for v in (r.latency_us.write.p99_9999, r.latency_us.all.max):
        assert f"{v:,.1f}" in text


@pytest.mark.parametrize("make, fragments", [
    (lambda: workload.synthetic("nope"), ["pattern", "'nope'", "uniform"]),
    (lambda: workload.fs("nope"), ["personality", "'nope'"]),
    (lambda: workload.preset("nope"), ["preset", "'nope'", "home1"]),
    (lambda: ssdlab.simulate("tiny", workload.synthetic("uniform", 10, read_fraction=math.nan)),
     ["read_fraction", "finite", "nan"]),
    (lambda: ssdlab.simulate("tiny", workload.synthetic("uniform", 10), seed=-1), ["seed", "-1"]),
    (lambda: ssdlab.simulate("tiny", workload.synthetic("uniform", 10), queue_depth=-3), ["replay", "-3"]),
])
def test_api_errors_name_the_field_and_come_early(make, fragments):
    with pytest.raises(ssdlab.SsdlabError) as e:
        make()
    msg = str(e.value)
    assert "line 1 column" not in msg and "\n" not in msg
    for f in fragments:
        assert f in msg, msg


def test_a_result_records_its_setup_and_runs_again_from_it(cli, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    t = tmp_path / "t.csv"
    t.write_text("".join(f"{10 * i},W,{4096 * (i % 97)},4096\n" for i in range(3000)))
    p = cli("run", "-d", "tiny", "-t", t.name, "--format", "csv", "--set", 'gc.victim="fifo"', "--replay", "closed",
            "-q", "4", "--seed", "7", "--json", str(a), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    setup = json.loads(a.read_text())["setup"]
    assert setup["ssdlab_version"] == ssdlab.__version__ and setup["git_commit"] == _core.__git_commit__
    assert setup["device"]["source"] == "tiny" and setup["device"]["overrides"] == ['gc.victim="fifo"']
    assert 'victim = "fifo"' in setup["device"]["toml"]
    assert setup["workload"]["path"] == str(t.resolve())  # runnable from anywhere
    assert setup["options"]["seed"] == 7 and setup["options"]["replay"]["queue_depth"] == 4
    p = cli("run", "--from", str(a), "--json", str(b))  # from another folder
    assert p.returncode == 0, p.stderr
    first, again = json.loads(a.read_text()), json.loads(b.read_text())
    first.pop("wall_time_s"), again.pop("wall_time_s")
    # The description names the trace as it was given: relative the first time, then absolute.
    assert again.pop("workload") == str(t.resolve()) + first.pop("workload").removeprefix(t.name)
    assert again == first
    assert_one_line_error(cli("run", "--from", str(a), "--seed", "2"), "--from", "--seed cannot be added")
    assert_one_line_error(cli("run", "--from", str(t)), f"--from {t}", "expected the JSON of ssdlab run")


def test_an_overloaded_open_loop_run_is_said_to_be(cli):
    # 20,000 IOPS of random writes on the small device with steady-state GC: it cannot keep up.
    p = cli("run", "-d", "tiny", "-n", "20000", "--arrival", "poisson", "--iops", "20000")
    assert p.returncode == 0, p.stderr
    assert "ssdlab: warning: offered load" in p.stderr and "did not keep up" in p.stderr, p.stderr
    # A tenth of it, with idle time for GC: no warning.
    p = cli("run", "-d", "tiny", "-n", "5000", "--arrival", "poisson", "--iops", "200")
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr, p.stderr


def test_a_static_slc_region_always_at_its_trigger_is_said_to_be(cli):
    # NOTES.md: 8 SLC blocks on tiny's 4 planes are 2 a plane, below the default trigger of 5,
    # so every write migrated and nothing said so. Now one warning line, and the run goes on.
    p = cli(*RUN, "--set", "ftl.kind=hybrid", "--set", "cache.slc=static", "--set", "cache.slc_blocks=8")
    assert p.returncode == 0, p.stderr
    lines = [line for line in p.stderr.splitlines() if "warning" in line]
    assert len(lines) == 1 and lines[0].startswith("ssdlab: warning: cache.slc_blocks: 8 SLC blocks over 4 planes"), p.stderr
    assert "cache.free_trigger (5)" in lines[0] and "more than 20 blocks" in lines[0], lines[0]
    # A lower trigger: nothing to say.
    p = cli(*RUN, "--set", "ftl.kind=hybrid", "--set", "cache.slc=static", "--set", "cache.slc_blocks=8", "--set", "cache.free_trigger=1")
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr, p.stderr
    # The API has them too.
    assert ssdlab.Device("tiny", ["ftl.kind=hybrid", "cache.slc=static", "cache.slc_blocks=8"]).advisories()[0].startswith("cache.slc_blocks: ")
    assert ssdlab.Device("tiny").advisories() == []


def test_latency_distributions_are_exported(cli, tmp_path):
    out = tmp_path / "r.json"
    assert cli("run", "-d", "tiny", "-n", "3000", "--read-fraction", "0.3", "--sample-interval", "0.01",
               "--json", str(out)).returncode == 0
    d = json.loads(out.read_text())
    for op in ("read", "write", "all"):
        h = d["latency_histogram"][op]
        assert sum(h["count"]) == d["latency_us"][op]["count"]
        assert h["latency_us"] == sorted(h["latency_us"])
        # The histogram's buckets bracket the exact maximum (three significant digits).
        assert abs(h["latency_us"][-1] / d["latency_us"][op]["max"] - 1) < 1e-3
    # --sample-interval 0.01 s: sample i is taken at the first event of the i-th 10 ms interval.
    t = d["series"]["time_s"]
    assert len(t) > 5 and all(int(x / 0.01 + 1e-9) == i for i, x in enumerate(t[:-1]))
    r = ssdlab.simulate("tiny", workload.synthetic("uniform", 3000, read_fraction=0.3))
    x, f = r.cdf("write")
    assert len(x) == len(f) > 0 and f[-1] == 1.0 and all(a <= b for a, b in zip(f, f[1:]))
    with pytest.raises(ValueError):
        r.cdf("erase")


def test_guard_reads_options_of_either_typer():
    """The range and output checks attach on typer 0.29 (the option's annotation, in
    ``type_descriptor``) and on earlier typer (click's parameter type, by ``ParamType.name``):
    CI installs one of them, so both shapes are checked here."""
    from pathlib import Path
    from types import SimpleNamespace as NS
    from typing import List, Optional

    from ssdlab.cli_params import _kind

    def new(annotation):
        return NS(type_descriptor=NS(annotation=annotation))

    def old(name):
        return NS(type=NS(name=name))

    assert _kind(new(int)) == (int, False) and _kind(new(Optional[float])) == (float, False)
    assert _kind(new(List[int])) == (int, False)
    assert _kind(new(Optional[Path])) == (None, True) and _kind(new(str)) == (None, False)
    assert _kind(old("int")) == (int, False) and _kind(old("integer range")) == (int, False)
    assert _kind(old("float")) == (float, False) and _kind(old("path")) == (None, True)
    assert _kind(old("text")) == (None, False) and _kind(old("boolean")) == (None, False)
