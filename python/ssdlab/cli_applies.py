"""Options given on the command line that the run would not use: refused, naming the option.

`ssdlab run` takes the options of every kind of workload; most apply only to some (a pattern's
own parameters, an arrival process's, a trace's, a replay mode's). An option the user typed that
the run ignores is a mistake about what is being simulated (`-n 100` with a trace ran the whole
trace), so it is an error — options left at their defaults are not checked.
"""
from __future__ import annotations

from typing import Any, Iterable

from ssdlab.cli_common import fail

SYNTHETIC_ONLY = ("requests", "read_fraction", "request_pages", "footprint", "hot_write_fraction",
                  "hot_space_fraction", "zipf_theta")
ARRIVAL = {"iops": "poisson", "interval_us": "fixed", "burst_requests": "on-off", "burst_interval_us": "on-off",
           "idle_mean_us": "on-off", "idle_dist": "on-off", "idle_shape": "on-off"}
ARRIVAL_OPTIONS = ("arrival", *ARRIVAL)
TRACE_ONLY = ("trace_format", "disk", "lba_map", "allow_empty", "repeat", "repeat_shift")


def given(ctx: Any) -> set[str]:
    """The parameters the user set (command line or environment), not left at their default."""
    out = set()
    for p in ctx.command.params:
        source = ctx.get_parameter_source(p.name)
        if source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT"):
            out.add(p.name)
    return out


def option_name(ctx: Any, name: str) -> str:
    p = next(p for p in ctx.command.params if p.name == name)
    return "/".join(o for o in p.opts if o.startswith("-")) or name


def refuse(ctx: Any, names: Iterable[str], reason: str) -> None:
    """Fail on the first of ``names`` the user gave: it ``reason`` (e.g. "applies to … only")."""
    g = given(ctx)
    for n in names:
        if n in g:
            fail(f"{option_name(ctx, n)}: {reason}")


def check_run(ctx: Any, *, trace: bool, workload: str, kind: str, arrival: str, idle_dist: str,
              replay_mode: str, precondition: bool, iostat: bool) -> None:
    """Refuse the options of `ssdlab run` that this run would not use. ``kind``: synthetic,
    preset or fs; ``replay_mode``: closed-loop or open-loop."""
    if trace:
        refuse(ctx, ("workload", *SYNTHETIC_ONLY, *ARRIVAL_OPTIONS),
               "applies to synthetic workloads, not to --trace (--max-requests limits a trace)")
    else:
        refuse(ctx, TRACE_ONLY, "applies to --trace only")
        if kind != "synthetic":
            kept = ("requests",) if kind == "preset" else ("requests", *ARRIVAL_OPTIONS)
            refuse(ctx, [n for n in (*SYNTHETIC_ONLY, *ARRIVAL_OPTIONS) if n not in kept],
                   f"does not apply to --workload {workload} (a {'Kang et al. stand-in' if kind == 'preset' else 'file-system benchmark'})")
        refuse(ctx, ("hot_write_fraction", "hot_space_fraction") if workload != "hotcold" else (),
               "applies to --workload hotcold only")
        refuse(ctx, ("zipf_theta",) if workload != "zipf" else (), "applies to --workload zipf only")
        refuse(ctx, [n for n, a in ARRIVAL.items() if a != arrival], f"does not apply to --arrival {arrival}")
        if arrival == "on-off" and idle_dist not in ("pareto", "lognormal"):
            refuse(ctx, ("idle_shape",), f"applies to --idle-dist pareto or lognormal, not {idle_dist}")
    refuse(ctx, ("time_scale",) if replay_mode != "open-loop" else (),
           "applies to open-loop replay only (trace timestamps; this run is closed-loop)")
    refuse(ctx, ("queue_depth",) if replay_mode != "closed-loop" else (),
           "applies to closed-loop replay only (this run replays arrival times: --replay closed to use it)")
    refuse(ctx, ("precondition_passes",) if not precondition else (), "does not apply with --no-precondition")
    refuse(ctx, ("iostat_interval",) if not iostat else (), "applies with --iostat only")


def check_flows(ctx: Any) -> None:
    """Refuse the workload options with ``--flows``: each flow names its own workload."""
    refuse(ctx, ("workload", *SYNTHETIC_ONLY, *ARRIVAL_OPTIONS, *TRACE_ONLY),
           "does not apply with --flows (each flow names its own workload in the file)")
