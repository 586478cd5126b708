"""The ``ssdlab`` command line: run, devices, policies, trace info, offline, experiment, detect.

Every error caused by input (a bad trace line, an unknown config key, an impossible geometry)
is printed as one line on stderr with a non-zero exit; never a traceback.
"""
from __future__ import annotations

import importlib
import json
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer
import typer.core
import typer.main
from rich.markup import escape
from rich.table import Table

from ssdlab import _core, registry
from ssdlab.cli_common import UsageError, console, err_console, error_line, fail, usage_error_message, warn, write_json
from ssdlab.device import Device
from ssdlab.cli_applies import check_flows, check_run, given, option_name
from ssdlab.cli_params import guard
from ssdlab.errors import SsdlabError
from ssdlab.inputs import spooled
from ssdlab.report import human_bytes, print_result
from ssdlab.simulate import CHUNK, Simulation, build_options, rerun
from ssdlab.table import check_writable, write_table
from ssdlab.workload import (ArgumentTypeError, flows_file, fs, preset, preset_names, synthetic, total_requests,
                             trace)

#: Commands whose modules are imported only when the command runs or a list of commands is
#: printed: name → the module whose ``register(app)`` adds it. Their modules, and the
#: experiments they pull in, cost ≈ 0.05 s of every start-up (``python -X importtime``), a
#: quarter of a one-request ``ssdlab run``. A new command of this kind is one line here.
LAZY = {
    "offline": "ssdlab.cli_offline",
    "sweep": "ssdlab.cli_sweep",
    "plot": "ssdlab.cli_plot",
    "report": "ssdlab.cli_report",
    "experiment": "ssdlab.experiments",
    "detect": "ssdlab.cli_detect_train",
}


class LazyGroup(typer.core.TyperGroup):
    """The top-level group: the commands of ``LAZY`` are built the first time they are asked
    for by name (to run, or for the help's list of commands)."""

    #: Applied to each command as it is loaded (``main`` sets the option range checks).
    on_load = staticmethod(lambda command, path: command)

    def list_commands(self, ctx: typer.Context) -> List[str]:
        return [*super().list_commands(ctx), *(n for n in LAZY if n not in self.commands)]

    def get_command(self, ctx: typer.Context, cmd_name: str):  # noqa: ANN201 (a click command)
        if cmd_name not in self.commands and cmd_name in LAZY:
            self._load(LAZY[cmd_name])
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: typer.Context, args: List[str]):  # noqa: ANN201
        if args and args[0] not in self.commands and args[0] not in LAZY:
            for module in dict.fromkeys(LAZY.values()):  # an unknown name: all, for "did you mean"
                self._load(module)
        return super().resolve_command(ctx, args)

    def _load(self, module: str) -> None:
        # A group with this one's help formatting, holding what ``register`` adds.
        holder = typer.Typer(rich_markup_mode=self.rich_markup_mode)
        importlib.import_module(module).register(holder)
        for name, command in typer.main.get_group(holder).commands.items():
            if name not in self.commands:
                self.commands[name] = self.on_load(command, (name,))


app = typer.Typer(cls=LazyGroup, add_completion=False, no_args_is_help=True,
                  help="ssdlab: SSD garbage-collection simulator.", rich_markup_mode=None,
                  context_settings={"help_option_names": ["-h", "--help"]})
trace_app = typer.Typer(no_args_is_help=True, help="Inspect trace files.")
app.add_typer(trace_app, name="trace")


def _print_version(value: bool) -> None:
    if value:
        console.print(f"ssdlab {_core.__version__} (core commit {_core.__git_commit__})", highlight=False)
        raise typer.Exit(0)


@app.callback()
def _main_options(
    version: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=_print_version,
                                 help="Print the version and the core's git commit, and exit."),
) -> None:
    """ssdlab: SSD garbage-collection simulator."""


PATTERNS = registry.names("synthetic pattern")
#: Arrival processes of synthetic workloads (members closed, fixed, poisson, on_off).
Arrival = Enum("Arrival", {n.replace("-", "_"): n for n in registry.names("arrival process")}, type=str)
#: The core's defaults of a synthetic workload's fields.
SYNTHETIC = registry.defaults()["synthetic"]
#: File-system benchmarks (``fs`` workloads) and the core's defaults of their fields.
FS_PERSONALITIES = registry.names("fs personality")
FS_SPEC = registry.defaults()["fs"]["spec"]
TRIM_MODES = registry.names("TRIM mode")
#: The core's defaults of a trace workload's fields.
TRACE_SPEC = registry.defaults()["trace"]


class TimingMode(str, Enum):
    timed = "timed"
    none = "none"


def arrival_spec(kind: Arrival, iops: float, interval_us: float, burst_requests: float, burst_interval_us: float,
                 idle_mean_us: float, idle_dist: str, idle_shape: float) -> dict:
    if kind is Arrival.closed:
        return {"kind": "closed"}
    if kind is Arrival.fixed:
        return {"kind": "fixed", "interval_us": interval_us}
    if kind is Arrival.poisson:
        return {"kind": "poisson", "iops": iops}
    idle: dict = {"dist": idle_dist}
    if idle_dist == "pareto":
        idle["shape"] = idle_shape
    elif idle_dist == "lognormal":
        idle["sigma"] = idle_shape
    return {"kind": "on-off", "burst_requests": burst_requests, "burst_interval_us": burst_interval_us,
            "idle_mean_us": idle_mean_us, "idle": idle}


def fs_options(items: List[str]) -> dict:
    """``--fs-opt KEY=VALUE`` items as spec fields (values read as JSON, else as strings)."""
    out: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail(f"--fs-opt {item}: expected KEY=VALUE, one of the fs fields: {', '.join(FS_SPEC)}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def run_with_progress(sim: Simulation, total: Optional[int], show: bool, arrays: bool = True):
    if not show:
        while not sim.advance(CHUNK):
            pass
        return sim.result(arrays)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = [SpinnerColumn(), TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task("run", total=total)
        while not sim.advance(CHUNK):
            bar.update(task, completed=sim.requests_done)
    return sim.result(arrays)


@app.command()
def run(
    ctx: typer.Context,
    device: str = typer.Option("mqsim-small", "--device", "-d", help="Preset name (ssdlab devices) or TOML file."),
    set_: List[str] = typer.Option([], "--set", help="Override a config field: section.key=value (repeatable)."),
    gc: Optional[str] = typer.Option(None, "--gc", help=f"GC scheduler (sets gc.scheduler): {', '.join(registry.names('GC scheduler'))}."),
    victim: Optional[str] = typer.Option(None, "--victim", help=f"Victim policy (sets gc.victim): {', '.join(registry.names('victim policy'))}."),
    write_cache: Optional[str] = typer.Option(None, "--write-cache", help=f"DRAM write cache mode (sets write_cache.mode): {', '.join(registry.names('write-cache mode'))}; its size and policies: --set write_cache.size_mib=64 …"),
    power_cut: Optional[float] = typer.Option(None, "--power-cut", help="Cut the power this many simulated seconds after the first request: later requests are not served, and the result says which pages a volatile write cache lost."),
    trace_path: Optional[Path] = typer.Option(None, "--trace", "-t", help="Replay this trace file instead of a synthetic workload."),
    flows_path: Optional[Path] = typer.Option(None, "--flows", help="Run several flows from this TOML file, each through its own submission queue ([[flow]] tables: workload, name, replay, priority, range; see docs/multi-queue.md); the controller's arbitration: --set host.arbitration=weighted-round-robin …"),
    trace_format: str = typer.Option(registry.default("trace format"), "--format", help=f"Trace format: {', '.join(registry.names('trace format'))}."),
    disk: Optional[int] = typer.Option(None, "--disk", help="Keep only this device/disk number of the trace."),
    lba_map: str = typer.Option(registry.default("LBA mapping"), "--lba-map", help=f"Fit trace addresses to the device: {', '.join(registry.names('LBA mapping'))} (default none: addresses as recorded; experiments that fold traces onto small devices default to modulo)."),
    allow_empty: bool = typer.Option(TRACE_SPEC["allow_empty"], "--allow-empty", help="Replay a trace that yields no request (an empty file, every record of another --disk, action or opcode) as an empty run instead of an error."),
    repeat: int = typer.Option(TRACE_SPEC["repeat"], "--repeat", help="Replay the trace this many times back to back (default 1: once; same addresses; each pass a mean inter-arrival gap after the last): for excerpts too short to make GC run. --max-requests counts over all passes."),
    repeat_shift: bool = typer.Option(TRACE_SPEC["repeat_shift"], "--repeat-shift", help="With --repeat: each pass at addresses past the previous pass's, so every pass writes fresh pages (a write buffer cannot absorb the later passes); use with --lba-map modulo."),
    workload: str = typer.Option("uniform", "--workload", "-w", help=f"Synthetic pattern (uniform, hotcold, zipf, sequential), a named stand-in of Kang et al. Table 1 (home1..oltp) or a file-system benchmark ({', '.join(FS_PERSONALITIES)})."),
    requests: int = typer.Option(1_000_000, "--requests", "-n", help="Synthetic requests (default 1,000,000: enough for steady-state GC on the default device)."),
    read_fraction: float = typer.Option(SYNTHETIC["read_fraction"], "--read-fraction", help="Synthetic: fraction of requests that are reads."),
    request_pages: int = typer.Option(SYNTHETIC["request_pages"], "--request-pages", help="Synthetic request size in device pages."),
    footprint: float = typer.Option(SYNTHETIC["footprint_fraction"], "--footprint", help="Fraction of the logical space the synthetic workload uses."),
    hot_write_fraction: float = typer.Option(SYNTHETIC["hot_write_fraction"], "--hot-writes", help="hotcold: fraction r of writes..."),
    hot_space_fraction: float = typer.Option(SYNTHETIC["hot_space_fraction"], "--hot-space", help="hotcold: ...to fraction f of addresses."),
    zipf_theta: float = typer.Option(SYNTHETIC["zipf_theta"], "--zipf-theta", help="zipf: skew θ of the address popularity (0 = uniform)."),
    arrival: Arrival = typer.Option(Arrival.closed, "--arrival", help="Synthetic arrivals (closed = closed loop at --queue-depth)."),
    iops: float = typer.Option(10_000.0, "--iops", help="poisson arrivals: mean rate."),
    interval_us: float = typer.Option(100.0, "--interval-us", help="fixed arrivals: interval."),
    burst_requests: float = typer.Option(64.0, "--burst-requests", help="on-off: mean requests per burst."),
    burst_interval_us: float = typer.Option(50.0, "--burst-interval-us", help="on-off: mean gap inside a burst."),
    idle_mean_us: float = typer.Option(20_000.0, "--idle-mean-us", help="on-off: mean idle period."),
    idle_dist: str = typer.Option(registry.default("idle distribution"), "--idle-dist", help=f"on-off idle distribution: {', '.join(registry.names('idle distribution'))}."),
    idle_shape: float = typer.Option(1.5, "--idle-shape", help="pareto shape or lognormal sigma."),
    trim: str = typer.Option(registry.default("TRIM mode"), "--trim", help=f"fs benchmarks: TRIM on delete: {', '.join(TRIM_MODES)} (discard = ext4's mount option)."),
    stale_fraction: float = typer.Option(FS_SPEC["stale_fraction"], "--stale-fraction", help="fs benchmarks: write this first fraction of the logical space once and delete it, untrimmed, before the run (Park & Kim §V)."),
    fs_opt: List[str] = typer.Option([], "--fs-opt", help=f"fs benchmarks: another field, KEY=VALUE (repeatable): {', '.join(k for k in FS_SPEC if k not in ('trim', 'stale_fraction', 'arrival'))}."),
    timing: TimingMode = typer.Option(TimingMode.timed, "--timing", help="timed, or none (FTL only: WAF studies)."),
    replay: str = typer.Option("auto", "--replay", help="auto, open (trace timestamps) or closed (fixed queue depth)."),
    queue_depth: int = typer.Option(registry.defaults()["queue_depth"], "--queue-depth", "-q", help=f"Closed loop: requests kept outstanding (default {registry.defaults()['queue_depth']}, NVMe-like; experiments keep their papers' own)."),
    time_scale: float = typer.Option(1.0, "--time-scale", help="Open loop: multiply inter-arrival times (0.5 = twice as fast)."),
    precondition: bool = typer.Option(True, "--precondition/--no-precondition", help="Fill the device (sequential, then random) before measuring, so GC is in steady state (ssdlab.simulate leaves it off unless asked: the API runs the device as given)."),
    precondition_passes: float = typer.Option(2.0, "--precondition-passes", help="Random overwrite passes of preconditioning after the sequential fill (default 2: steady-state GC)."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    max_requests: Optional[int] = typer.Option(None, "--max-requests", help="Stop after this many requests (a trace: its first N)."),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write all results (and time series) as JSON."),
    iostat_path: Optional[Path] = typer.Option(None, "--iostat", help="Write the host's iostat -x view, one row per interval with the GC label, as .csv or .parquet."),
    sample_interval: Optional[float] = typer.Option(None, "--sample-interval", help=f"Time series: sampling interval in simulated seconds (default {registry.defaults()['options']['sample_interval_us'] / 1e6:g})."),
    iostat_interval: float = typer.Option(1.0, "--iostat-interval", help="--iostat: interval in simulated seconds (whole hundredths)."),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="Progress bar (default: when stderr is a terminal)."),
    from_: Optional[Path] = typer.Option(None, "--from", help="Run a result's setup again (a --json file of ssdlab run): the same device, workload and options; only --json and --progress may be added."),
    q_table: Optional[Path] = typer.Option(None, "--q-table", help="RL schedulers: start from this Q-table if it exists, and save the learned table there after the run."),
) -> None:
    """Simulate a workload on a device and print the summary."""
    if from_ is not None:
        rerun_from(ctx, from_, json_path, progress)
        return
    overrides = list(set_)
    if gc:
        overrides.append(f"gc.scheduler={json.dumps(gc)}")
    if victim:
        overrides.append(f"gc.victim={json.dumps(victim)}")
    if write_cache:
        overrides.append(f"write_cache.mode={json.dumps(write_cache)}")
    if flows_path is not None:
        if trace_path is not None:
            fail("--flows: each flow names its own workload; --trace/-t and --workload/-w do not apply")
        check_flows(ctx)
        wl = flows_file(spooled(flows_path, "--flows"))
    elif trace_path is not None:
        trace_path = spooled(trace_path, "--trace/-t")
        wl = trace(trace_path, format=trace_format, device=disk, lba_map=lba_map, max_requests=max_requests,
                   allow_empty=allow_empty, repeat=repeat, repeat_shift=repeat_shift)
    elif workload not in PATTERNS and workload not in preset_names() and workload not in FS_PERSONALITIES:
        fail(f"--workload {workload}: expected a pattern ({', '.join(PATTERNS)}), a preset ({', '.join(preset_names())}) "
             f"or a file-system benchmark ({', '.join(FS_PERSONALITIES)})")
    is_fs = trace_path is None and flows_path is None and workload in FS_PERSONALITIES
    if not is_fs and (trim != registry.default("TRIM mode") or stale_fraction != FS_SPEC["stale_fraction"] or fs_opt):
        fail(f"--trim, --stale-fraction and --fs-opt apply to file-system benchmarks only ({', '.join(FS_PERSONALITIES)})")
    if trim not in TRIM_MODES:
        fail(f"--trim {trim}: expected one of: {', '.join(TRIM_MODES)}")
    if is_fs:
        arr = arrival_spec(arrival, iops, interval_us, burst_requests, burst_interval_us, idle_mean_us, idle_dist,
                           idle_shape)
        try:
            wl = fs(workload, requests, trim=trim, stale_fraction=stale_fraction, arrival=arr, **fs_options(fs_opt))
        except ValueError as e:
            fail(f"--fs-opt: {e}")
    elif flows_path is not None:
        pass
    elif trace_path is None and workload in preset_names():
        wl = preset(workload, requests)
    elif trace_path is None:
        wl = synthetic(workload, requests, read_fraction=read_fraction, request_pages=request_pages,
                       footprint_fraction=footprint, hot_write_fraction=hot_write_fraction,
                       hot_space_fraction=hot_space_fraction, zipf_theta=zipf_theta,
                       arrival=arrival_spec(arrival, iops, interval_us, burst_requests, burst_interval_us,
                                            idle_mean_us, idle_dist, idle_shape))
    pre = {"sequential": True, "random_passes": precondition_passes} if precondition else False
    if iostat_path is not None:
        try:
            check_writable(iostat_path)
        except ValueError as e:
            fail(f"--iostat {e}")
        if not (iostat_interval > 0 and round(iostat_interval * 100, 6).is_integer()):
            fail(f"--iostat-interval: expected a positive whole number of hundredths of a second, got {iostat_interval}")
    try:
        opts = build_options(wl, seed=seed, timing=timing is TimingMode.timed, replay=replay, queue_depth=queue_depth,
                             time_scale=time_scale, precondition=pre, max_requests=max_requests,
                             sample_interval_us=None if sample_interval is None else sample_interval * 1e6,
                             iostat_interval_us=round(iostat_interval * 100) * 10_000.0 if iostat_path is not None else None,
                             power_cut_us=None if power_cut is None else power_cut * 1e6)
    except ValueError as e:
        fail(str(e))
    check_run(ctx, trace=trace_path is not None or flows_path is not None, workload=workload,
              kind="fs" if is_fs else "preset" if workload in preset_names() else "synthetic",
              arrival=arrival.value, idle_dist=idle_dist, replay_mode=opts["replay"]["mode"],
              precondition=precondition, iostat=iostat_path is not None)
    if q_table is not None and q_table.is_file():
        overrides.append(f"gc.rl.q_table={json.dumps(str(q_table))}")
    dev = Device(device, tuple(overrides))
    sim = Simulation(dev, wl, opts)
    for advisory in dev.advisories():
        warn(advisory)
    show = sys.stderr.isatty() if progress is None else progress
    # The time series, iostat view and histograms only go to --json and --iostat: without them
    # numpy is not even imported.
    arrays = json_path is not None or iostat_path is not None
    result = run_with_progress(sim, max_requests or total_requests(wl), show, arrays)
    if q_table is not None:
        sim.save_q_table(str(q_table))
        console.print(f"Q-table saved to {q_table}")
    print_result(console, result)
    say_end_of_life(result)
    warn_if_overloaded(result, opts)
    if iostat_path is not None:
        if not result.iostat:
            fail(f"--iostat {iostat_path}: the run lasted {result.sim_time_s:.3f} simulated s, shorter than one {iostat_interval} s interval; nothing to write")
        write_table(result.iostat, iostat_path)
        n = len(result.iostat["t_s"])
        console.print(f"iostat view ({n} intervals, {int(result.iostat['gc'].sum())} labelled GC) written to {iostat_path}")
    if json_path is not None:
        write_json(json_path, result.to_dict())


def say_end_of_life(result) -> None:
    """The one line of a drive that reached its end of life (``[endurance]``): the run stopped
    there, after the request being served."""
    b = result.endurance
    if b and b.get("end_of_life_host_bytes") is not None:
        console.print(f"ssdlab: the device reached end of life at {b['end_of_life_host_bytes']:,} host bytes written "
                      f"({human_bytes(b['end_of_life_host_bytes'])}), after {result.requests['total']:,} requests "
                      "of the run", highlight=False, soft_wrap=True)


#: An open-loop run whose last completion trails its last arrival by more than this fraction of
#: the arrivals' span did not keep up (a run that keeps up trails by one request's latency).
BACKLOG_WARNING = 0.1


def warn_if_overloaded(result, opts: dict) -> None:
    """Item 10 of issue 18: say so when the offered load exceeded what the device could serve."""
    n = result.requests.get("total", 0)
    if opts["replay"]["mode"] != "open-loop" or n < 1000 or result.backlog_fraction <= BACKLOG_WARNING:
        return
    offered, served = n / result.arrival_span_s, n / result.sim_time_s
    warn(f"offered load {offered:,.0f} requests/s, served {served:,.0f}/s: the device did not keep up "
         f"(the last request completed {result.sim_time_s - result.arrival_span_s:,.1f} s after the last arrival); "
         "latencies measure the growing queue — lower the load or --time-scale up")


def rerun_from(ctx: typer.Context, path: Path, json_path: Optional[Path], progress: Optional[bool]) -> None:
    """`run --from`: the setup recorded in a result, run again."""
    extra = given(ctx) - {"from_", "json_path", "progress"}
    if extra:
        fail(f"--from: the setup comes from {path}; {option_name(ctx, sorted(extra)[0])} cannot be added (only --json, --progress)")
    from ssdlab.inputs import Fields, InputError, load_json

    expected = "the JSON of ssdlab run --json (with its 'setup')"
    try:
        d = load_json(path, "--from", expected)
        if not isinstance(d, dict) or "setup" not in d:
            raise InputError(f"{path}: expected {expected}")
        f = Fields(d, path).sub("setup")
        dev = f.sub("device")
        dev.get("toml", str)
        dev.get("source", str, None)
        f.get("workload", dict)
        f.get("options", dict)
        setup = f.value
    except InputError as e:
        fail(f"--from {e}")
    console.print(f"re-running {path} (recorded by ssdlab {setup.get('ssdlab_version', '?')}, commit {setup.get('git_commit', '?')})",
                  highlight=False)
    show = sys.stderr.isatty() if progress is None else progress
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = [SpinnerColumn(), TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    with Progress(*columns, console=err_console, transient=True, disable=not show) as bar:
        try:
            total = total_requests(setup["workload"])
        except (KeyError, TypeError, ValueError):
            total = None  # the run says what is wrong with the workload
        task = bar.add_task("run", total=total)
        try:
            result = rerun(setup, lambda n: bar.update(task, completed=n))
        except SsdlabError as e:
            fail(f"--from {path}: setup: {e}")
    print_result(console, result)
    if json_path is not None:
        write_json(json_path, result.to_dict())


def memory_line(mem: dict) -> str:
    """The core's memory estimate of a device beside what the machine has, as one line."""
    line = f"memory: ≈ {mem['estimate']} ({mem['breakdown']})"
    if mem["available"] is None:
        return line + "; available memory unknown or not checked"
    line += f"; {mem['available']} available ({mem['available_source']})"
    if not mem["fits"]:
        line += "; too large: runs are refused (SSDLAB_MEMORY_LIMIT=off overrides)"
    return line


@app.command()
def devices(show: Optional[str] = typer.Option(None, "--show", help="Print this preset's full configuration as TOML, and the memory a run needs.")) -> None:
    """List the shipped device presets with their capacity and the memory a run needs."""
    if show is not None:
        text = _core.preset_toml(show)
        if text is None:
            fail(f"unknown preset '{show}'; expected one of: {', '.join(_core.preset_names())}")
        d = Device(show).describe()
        console.print(d["toml"], highlight=False, markup=False)
        # A TOML comment: the output stays a valid device file.
        console.print(f"# {memory_line(d['memory'])}", highlight=False, markup=False, soft_wrap=True)
        return
    t = Table(title="device presets")
    for c in ("name", "geometry (ch×chip×die×plane×blocks×pages)", "page", "spare", "logical", "physical", "memory"):
        t.add_column(c, justify="right" if c not in ("name",) else "left")
    for name in _core.preset_names():
        d = Device(name).describe()
        g = d["config"]["geometry"]
        geo = f"{g['channels']}×{g['chips_per_channel']}×{g['dies_per_chip']}×{g['planes_per_die']}×{g['blocks_per_plane']}×{g['pages_per_block']}"
        t.add_row(name, geo, human_bytes(g["page_size"]), f"{g['spare_factor']:.0%}", human_bytes(d["logical_bytes"]),
                  human_bytes(d["physical_bytes"]), d["memory"]["estimate"])
    console.print(t)


@app.command()
def policies() -> None:
    """List every registry family: victim policies, GC schedulers, placements, device models,
    trace formats, workloads, offline methods, experiments."""
    for f in registry.families():
        title = f"{f['family']} ({f['key']})" + (f", default {f['default']}" if f["default"] else "")
        t = Table(title=escape(title), title_justify="left")
        t.add_column("name", style="bold", no_wrap=True)
        t.add_column("description")
        for m in f["members"]:
            t.add_row(escape(m["name"]), escape(m["summary"]))
        console.print(t)


@trace_app.command("info")
def trace_info(
    path: Path = typer.Argument(..., help="Trace file (gzip allowed)."),
    trace_format: str = typer.Option("auto", "--format", help=f"Trace format: {', '.join(registry.names('trace format'))}."),
    disk: Optional[int] = typer.Option(None, "--disk", help="Keep only this device/disk number of the trace."),
    page_size: int = typer.Option(4096, "--page-size", help="Page size for footprint and page counts."),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the statistics as JSON to this file ('-': print them instead of the table)."),
) -> None:
    """Request count, read/write mix, span and footprint of a trace."""
    if page_size < 512 or page_size & (page_size - 1):
        fail(f"--page-size: expected a power of two of at least 512 bytes, got {page_size}")
    path = spooled(path, "TRACE")
    spec = trace(path, format=trace_format, device=disk)
    spec.pop("kind")
    info = json.loads(_core.trace_info_json(json.dumps(spec), page_size))
    if json_path is not None and str(json_path) == "-":
        console.print_json(json.dumps(info))
        return
    write_json(json_path, info)
    t = Table(title=f"{path} ({info['format']})", show_header=False, title_justify="left")
    t.add_column("k", style="bold")
    t.add_column("v", justify="right")
    rows = [
        ("requests", f"{info['requests']:,}"),
        ("reads / writes / trims", f"{info['reads']:,} / {info['writes']:,} / {info['trims']:,}"),
        ("write fraction", f"{info['write_fraction']:.1%}"),
        ("span", f"{info['span_ns'] / 1e9:,.3f} s"),
        ("bytes read / written", f"{human_bytes(info['bytes_read'])} / {human_bytes(info['bytes_written'])}"),
        (f"footprint ({page_size} B pages)", f"{info['footprint_pages']:,} ({human_bytes(info['footprint_pages'] * page_size)})"),
        ("write footprint", f"{info['write_footprint_pages']:,}"),
        ("page writes", f"{info['page_writes']:,}"),
        ("skipped records", f"{info['skipped']:,}"),
    ]
    for k, v in rows:
        t.add_row(k, v)
    console.print(t)


def os_error_message(e: OSError, argv: List[str]) -> str:
    """An operating-system error as ``<option or file>: <what was expected>``: a name too long
    for a file names the option that gave it (``-d/--device: a name of 300 bytes, longer than
    a file name may be (255)``)."""
    from ssdlab.inputs import name_problem, os_message

    named = str(e.filename) if e.filename is not None else None
    for i, a in enumerate(argv):
        value = a.split("=", 1)[1] if a.startswith("--") and "=" in a else a
        problem = name_problem(value)
        if problem and (named is None or value in named):
            opt = a.split("=", 1)[0] if value is not a else (argv[i - 1] if i and argv[i - 1].startswith("-") else "argument")
            return f"{opt}: {problem}"
    name = e.filename if e.filename is not None else "input"
    return f"{name}: {os_message(e)}"


def main(argv: Optional[List[str]] = None) -> None:
    """Entry point: one ``ssdlab: error:`` line and exit 2 for bad input, never a traceback
    (the command-line framework's own errors included)."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        root = guard(typer.main.get_command(app))
        root.on_load = guard
        code = root.main(args=args, prog_name="ssdlab", standalone_mode=False)
    except UsageError as e:
        if type(e).__name__ != "NoArgsIsHelpError":  # the help is printed already
            error_line(usage_error_message(e, args))
        sys.exit(2)
    except SsdlabError as e:
        error_line(str(e))
        sys.exit(2)
    except ArgumentTypeError as e:  # the API's argument checks, met by a value the CLI passed on
        error_line(str(e))
        sys.exit(2)
    except OSError as e:
        # A file ssdlab was given that a reader did not name itself (e.g. a path too long).
        error_line(os_error_message(e, args))
        sys.exit(2)
    except RecursionError:
        error_line("an input nested too deep to read (a JSON or TOML file, or a value given on the command line)")
        sys.exit(2)
    except (KeyboardInterrupt, typer.Abort):
        err_console.print("interrupted")
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
