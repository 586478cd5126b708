"""``ssdlab detect``: host-side GC detection (issue 13; Park & Kim §III-IV) on a real machine —
record ``/proc/diskstats``, print a recording's ``iostat -x`` fields, and watch a device with a
C4.5 tree, optionally running a command once per detection episode (the paper issues TRIM).

Every computation is the core's (``ssdlab.detect``); this module reads ``/proc``, sleeps, prints
and runs the ``--on-detect`` command. Bad input is one ``error:`` line and exit 2.
"""
from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, NoReturn, Optional, Tuple

import typer

from ssdlab import detect
from ssdlab.cli_common import err_console, fail
from ssdlab.errors import SsdlabError

detect_app = typer.Typer(no_args_is_help=True, help=(
    "Host-side GC detection (Park & Kim): record /proc/diskstats, print iostat -x fields, "
    "watch a device with a C4.5 tree."))

PROC_UPTIME = Path("/proc/uptime")
PROC_DISKSTATS = Path("/proc/diskstats")

INTERVAL_HELP = "Seconds between reads of /proc/uptime and /proc/diskstats (the paper samples once a second)."


def die(message: str) -> NoReturn:
    """``fail``, typed as not returning."""
    fail(message)
    raise AssertionError


def check_timing(interval: float, count: Optional[int]) -> None:
    if not (interval > 0 and math.isfinite(interval)):
        die(f"--interval: expected a positive number of seconds, found {interval}")
    if count is not None and count < 1:
        die(f"--count: expected at least 1 interval, found {count}")


def read_proc() -> Tuple[str, str]:
    """``/proc/uptime`` then ``/proc/diskstats``, read together as sysstat reads them."""
    try:
        return PROC_UPTIME.read_text(), PROC_DISKSTATS.read_text()
    except OSError as e:
        die(f"{e.filename}: cannot read: {e.strerror}")


def ticks(interval: float, count: Optional[int]) -> Iterator[int]:
    """Sleep to each deadline ``start + k * interval`` (no drift), ``count`` times or forever. When
    more than an interval late (a long ``--on-detect`` command), the schedule restarts from now
    instead of reading in a burst to catch up (each interval is measured by uptime anyway)."""
    deadline = time.monotonic()
    k = 0
    while count is None or k < count:
        k += 1
        deadline += interval
        delay = deadline - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        elif -delay > interval:
            deadline = time.monotonic()
        yield k


@contextmanager
def stopped_by_signals() -> Iterator[None]:
    """Ctrl-C (SIGINT) and SIGTERM end the block cleanly: the caller then prints its summary and
    exits 0 (they are the normal way to stop an endless ``record`` or ``watch``)."""
    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def note(message: str) -> None:
    err_console.print(message, markup=False, highlight=False, soft_wrap=True)


@detect_app.command("record")
def record(
    device: str = typer.Argument(..., help="Device name as /proc/diskstats spells it (e.g. nvme0n1, sda); checked before recording."),
    out: Path = typer.Option(..., "--output", "-o", help="Recording to write (overwritten): each snapshot is `# uptime SECONDS` and the whole of /proc/diskstats."),
    interval: float = typer.Option(1.0, "--interval", help=INTERVAL_HELP),
    count: Optional[int] = typer.Option(None, "--count", help="Intervals to record (COUNT + 1 snapshots); default: until Ctrl-C or SIGTERM, which stop cleanly (exit 0)."),
) -> None:
    """Record /proc/diskstats snapshots (the format of scripts/record_diskstats.sh) for `detect iostat` and `detect watch --diskstats`."""
    check_timing(interval, count)
    up, ds = read_proc()
    try:
        first = detect.proc_snapshot_text(up, ds, device)
    except SsdlabError as e:
        die(str(e))
    try:
        f = out.open("w")
    except OSError as e:
        die(f"--output {out}: cannot write: {e.strerror}")
    snapshots = 0
    with f, stopped_by_signals():
        try:
            f.write(first)
            f.flush()
            snapshots = 1
            for _ in ticks(interval, count):
                up, ds = read_proc()
                try:
                    f.write(detect.proc_snapshot_text(up, ds))
                except SsdlabError as e:
                    die(str(e))
                f.flush()
                snapshots += 1
        except OSError as e:
            die(f"--output {out}: cannot write: {e.strerror}")
    note(f"{out}: {plural(snapshots, 'snapshot')} ({plural(max(snapshots - 1, 0), 'interval')}) of /proc/diskstats")


def plain_table(header: List[str], rows: List[List[str]], left: Tuple[int, ...] = ()) -> str:
    """Columns like iostat's, as wide as their widest cell (never wrapped), right-aligned but for
    the indices in ``left``."""
    widths = [max([len(h)] + [len(r[k]) for r in rows]) for k, h in enumerate(header)]
    def cell(k: int, c: str) -> str:
        return c.ljust(widths[k]) if k in left else c.rjust(widths[k])
    return "\n".join("  ".join(cell(k, c) for k, c in enumerate(line)) for line in [header] + rows)


@detect_app.command("iostat")
def iostat(
    diskstats: Path = typer.Option(..., "--diskstats", help="Recording (ssdlab detect record, scripts/record_diskstats.sh)."),
    device: str = typer.Option(..., "--device", help="Device name as in the recording."),
    legacy: bool = typer.Option(False, "--legacy", help="sysstat 11's columns (rrqm/s ... avgrq-sz avgqu-sz await ... svctm %util), the ones the detector's attributes come from."),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Also write the intervals as a JSON list of objects keyed by sysstat's JSON names (r/s, wkB/s, aqu-sz, util, ...)."),
) -> None:
    """Print the iostat -x fields of DEVICE per interval of a recording, computed as sysstat 12.6 does."""
    try:
        header, rows = detect.iostat_columns(str(diskstats), device, legacy)
        series = detect.iostat_series(str(diskstats), device) if json_path is not None else None
    except SsdlabError as e:
        die(str(e))
    header.insert(1, "Device")
    cells = [[f"{r[0]:.2f}", device] + [f"{v:.2f}" for v in r[1:]] for r in rows]
    typer.echo(plain_table(header, cells, left=(1,)))
    if json_path is not None:
        try:
            json_path.write_text(json.dumps(series, indent=1) + "\n")
        except OSError as e:
            die(f"--json {json_path}: cannot write: {e.strerror}")
        note(f"{len(series or [])} intervals written to {json_path}")


def on_detect_argv(command: Optional[str]) -> Optional[List[str]]:
    if command is None:
        return None
    try:
        argv = shlex.split(command)
    except ValueError as e:
        die(f"--on-detect: expected a command line split as a POSIX shell would, {e}")
    if not argv:
        die("--on-detect: expected a command, found an empty string")
    if shutil.which(argv[0]) is None:
        die(f"--on-detect: expected an executable program, `{argv[0]}` is not one (nor found on PATH)")
    return argv


def run_hook(argv: List[str], device: str, step: dict) -> None:
    """Run the ``--on-detect`` command to completion; a failure is a warning, not the end."""
    env = dict(os.environ, SSDLAB_DEVICE=device, SSDLAB_UPTIME=f"{step['end_s']:.2f}",
               SSDLAB_EPISODE=str(step["episode"]))
    try:
        code = subprocess.run(argv, env=env).returncode
    except OSError as e:
        note(f"warning: --on-detect: cannot run `{argv[0]}`: {e.strerror}")
        return
    if code != 0:
        note(f"warning: --on-detect: `{shlex.join(argv)}` exited with status {code}")


def detection_line(step: dict, device: str, shown: List[str], live: bool) -> str:
    values = "  ".join(f"{k}={step['features'][k]:.6g}" for k in shown)
    clock = time.strftime("%H:%M:%S  ") if live else ""
    return f"{clock}uptime {step['end_s']:.2f} s  {device}  GC (episode {step['episode']})  {values}".rstrip()


def load_model(model: Path, device: str, window: int) -> Tuple["detect.Tree", "detect.Detector"]:
    """The tree saved at ``model`` and a detector of ``device`` with it; an error names the file."""
    from ssdlab.inputs import check_name

    check_name(str(model), str(model))
    tree = detect.Tree.load(str(model))
    try:
        return tree, detect.Detector(device, tree, window)
    except SsdlabError as e:
        raise type(e)(f"{model}: {e}") from None


@detect_app.command("watch")
def watch(
    ctx: typer.Context,
    device: str = typer.Argument(..., help="Device name as /proc/diskstats (or the recording) spells it."),
    model: Path = typer.Option(..., "--model", "-m", help="C4.5 tree as JSON (ssdlab.detect.Tree.save) over ssdlab.detect.feature_names(), classes 0 = no GC, 1 = GC."),
    interval: float = typer.Option(1.0, "--interval", help=INTERVAL_HELP),
    count: Optional[int] = typer.Option(None, "--count", help="Stop after COUNT intervals (COUNT + 1 reads); default: until Ctrl-C or SIGTERM (exit 0), or the recording's end."),
    diskstats: Optional[Path] = typer.Option(None, "--diskstats", help="Replay this recording instead of reading /proc (no sleeping)."),
    on_detect: Optional[str] = typer.Option(None, "--on-detect", help=(
        "Command to run once per detection episode (a run of consecutive intervals classified GC), at its first "
        "interval; split with shlex and run without a shell (no pipes, redirections or $VARIABLES unless you write "
        "sh -c '...' yourself), to completion, with SSDLAB_DEVICE, SSDLAB_UPTIME and SSDLAB_EPISODE in its "
        "environment. Off by default: nothing (no TRIM) is issued unless asked, e.g. --on-detect 'fstrim /mnt'.")),
    window: int = typer.Option(detect.DEFAULT_WINDOW, "--window", help="Samples per standard deviation (the paper's is 50, one a second)."),
) -> None:
    """Classify each interval of DEVICE with a C4.5 tree (Park & Kim §4) and print one line per interval classified GC."""
    from ssdlab.cli_applies import refuse

    refuse(ctx, ("interval",) if diskstats is not None else (),
           "applies to live reads of /proc; a --diskstats recording keeps its own intervals")
    check_timing(interval, count)
    if window < 1:
        die(f"--window: expected at least 1 sample per standard deviation (the paper's is {detect.DEFAULT_WINDOW}), found {window}")
    argv = on_detect_argv(on_detect)
    try:
        tree, det = load_model(model, device, window)
    except SsdlabError as e:
        die(f"--model {e}")
    shown = tree.features_used() or ["std_svctm"]
    seen = {"intervals": 0, "gc": 0, "episodes": 0}

    def handle(step: dict) -> None:
        seen["intervals"] += 1
        if not step["gc"]:
            return
        seen["gc"] += 1
        typer.echo(detection_line(step, device, shown, live=diskstats is None))
        if step["episode_start"]:
            seen["episodes"] += 1
            if argv is not None:
                run_hook(argv, device, step)

    with stopped_by_signals():
        if diskstats is not None:
            try:
                steps = det.replay(str(diskstats))
            except SsdlabError as e:
                die(str(e))
            for step in steps[:count]:
                handle(step)
        else:
            try:
                det.push(*read_proc())
                for _ in ticks(interval, count):
                    step = det.push(*read_proc())
                    if step is not None:
                        handle(step)
            except SsdlabError as e:
                die(str(e))
    note(f"{device}: {plural(seen['intervals'], 'interval')}, {seen['gc']} classified GC in "
         f"{plural(seen['episodes'], 'episode')}")
