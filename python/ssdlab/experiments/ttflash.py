"""Tiny-Tail Flash (Yan et al., FAST 2017): ``nogc`` (without RAIN), ``nogc+gtf`` (with the RAM buffer:
the like-for-like reference of the buffered stacks' extra P/E), ``nogc+rain+gtf`` (the NoGC of
the authors' simulator: parity and the RAM buffer on, GC never runs), ``base+rain``, ``pb+rain``,
``pb+gtr``, ``pb+gtr+gtf`` and ``ttflash`` (all with RAIN, as the paper's Base), and ``ttflash+rf`` (ssdlab's
rotating flush: reads behind RAIN's programs rebuilt too) on one workload, printed in the form of the paper's Table 1
(latency percentiles normalised to ``nogc``), with the fraction of I/Os blocked by GC, average
latency against ``nogc`` and ``base``, and the extra P/E cycles parity costs."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from rich.console import Console
from rich.table import Table

from ssdlab.inputs import device_text
from ssdlab import _core, registry
from ssdlab.cli_common import fail, jobs_option
from ssdlab.errors import SsdlabError, WorkloadError, core_json
from ssdlab.experiments import experiment_app
from ssdlab.experiments import output
from ssdlab.experiments.output import finish, report_option
from ssdlab.simulate import build_options
from ssdlab.workload import synthetic, trace

#: The paper's six stacks, in its order, then ssdlab's rotating flush (from the core).
STACKS = list(registry.defaults()["ttflash_stacks"])
#: The mechanism names a stack joins with ``+`` (from the core).
MECHANISMS = list(registry.defaults()["ttflash_mechanisms"])
PCTS = [("p99", "99th"), ("p99_9", "99.9th"), ("p99_99", "99.99th")]
#: The NoGC of the authors' simulator (its ``configs/nogc.config``: ``raid = 1``, device not
#: aged): GC-free, with RAIN's parity and the capacitor-backed buffer (from the core;
#: docs/ttflash.md).
ARTIFACT_NOGC = registry.defaults()["ttflash_artifact_nogc"]

#: The core's defaults of a trace workload's fields.
TRACE_SPEC = registry.defaults()["trace"]
#: Named synthetic workloads: (pattern, read fraction, Poisson IOPS, requests).
WORKLOADS = {
    # Mixed read/write, 70 % reads, Poisson arrivals: GC-heavy but below nogc's saturation.
    "mixed70": ("uniform", 0.7, 2000.0, 100_000),
    "mixed70-small": ("uniform", 0.7, 2000.0, 20_000),
}


def named_workload(name: str, max_requests: Optional[int] = None) -> dict[str, Any]:
    """The synthetic workload ``name`` of :data:`WORKLOADS` (its first ``max_requests``)."""
    pat, rf, iops, n = WORKLOADS[name]
    return synthetic(pat, max_requests or n, read_fraction=rf, arrival={"kind": "poisson", "iops": iops})


def run(
    device: str,
    workload: dict[str, Any],
    *,
    overrides: Optional[List[str]] = None,
    time_scale: float = 1.0,
    seed: int = 1,
    precondition_passes: float = 1.0,
    precondition_fill: float = 1.0,
    stacks: Optional[List[str]] = None,
    jobs: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> dict[str, Any]:
    """Run the stacks, up to ``jobs`` at once on threads (default: the core's, one per CPU; no
    result depends on it); returns the parsed JSON (``configs.<stack>`` …). Preconditioning
    fills the first ``precondition_fill`` of the logical space in order, then overwrites it
    ``precondition_passes`` times at random (negative passes: no preconditioning)."""
    text = device_text(device)
    pre = ({"sequential": True, "random_passes": precondition_passes, "fill_fraction": precondition_fill}
           if precondition_passes >= 0 else False)
    opts = build_options(workload, seed=seed, replay="open", time_scale=time_scale, precondition=pre)
    out = _core.ttflash_experiment_json(text, device, list(overrides or []), core_json(workload, "workload", WorkloadError), core_json(opts, "options"), list(stacks or STACKS), jobs,
                                       progress=progress)
    res = json.loads(out)
    res["workload"] = workload
    res["time_scale"] = time_scale
    res["overrides"] = list(overrides or [])
    res["precondition"] = pre
    return res


def _ratio(a: float, b: float) -> str:
    """``a / b`` as "1.4x"; under 0.1 with two significant digits ("0.0031x": writes that land
    in GTF's capacitor-backed buffer are thousands of times faster than nogc's programs, and
    "0.0x" said nothing)."""
    if b <= 0:
        return "-"
    r = a / b
    return f"{r:.2g}x" if 0 < r < 0.1 else f"{r:.1f}x"


def print_tables(res: dict[str, Any], console: Console) -> None:
    for t in report_tables(res):
        console.print(t)


def report_tables(res: dict[str, Any]) -> list[Table]:
    """The paper's Table 1 form per operation, then blocked I/Os, mean latency and P/E cycles."""
    out = []
    cfg = {s: res["configs"][s] for s in res["stacks"]}  # in the paper's order
    ref = cfg.get("nogc")
    for kind in ("read", "write", "all"):
        t = Table(title=f"{kind} latency, normalised to nogc (the paper's Table 1 form)")
        t.add_column("percentile")
        for s in cfg:
            t.add_column(s, justify="right")
        for key, label in PCTS:
            row = [label]
            for s in cfg:
                v = cfg[s]["latency_us"][kind][key]
                row.append(_ratio(v, ref["latency_us"][kind][key]) if ref else f"{v:.0f}")
            t.add_row(*row)
        t.add_row("nogc µs", *[f"{cfg[s]['latency_us'][kind]['p99_9']:.0f}" if s == "nogc" else "" for s in cfg])
        out.append(t)
    art = cfg.get(ARTIFACT_NOGC)
    if art:
        t = Table(title=f"read latency, normalised to {ARTIFACT_NOGC} (the authors' simulator's NoGC: parity and buffer on, no GC)")
        t.add_column("percentile")
        for s in cfg:
            t.add_column(s, justify="right")
        for key, label in PCTS:
            t.add_row(label, *[_ratio(cfg[s]["latency_us"]["read"][key], art["latency_us"]["read"][key]) for s in cfg])
        out.append(t)
    t = Table(title="blocked I/Os, average latency, P/E cycles")
    for c in ["stack", "blocked by GC", "mean µs", "mean / nogc", "base+rain / mean", "erases", "extra P/E vs nogc", "extra P/E due to RAIN", "parity pages", "GC drains (reserve)"]:
        t.add_column(c, justify="right")
    base = cfg.get("base+rain") or cfg.get("base")
    for s, r in cfg.items():
        m = r["latency_us"]["all"]["mean"]
        t.add_row(
            s,
            f"{100 * r['blocked_fraction']:.4f} %",
            f"{m:.0f}",
            _ratio(m, ref["latency_us"]["all"]["mean"]) if ref else "-",
            _ratio(base["latency_us"]["all"]["mean"], m) if base else "-",
            str(r["erases"]),
            f"{100 * (r['erases'] / ref['erases'] - 1):+.1f} %" if ref and ref["erases"] else "-",
            _due_to_rain(r),
            str(r.get("parity_pages_written", 0)),
            _drains(r),
        )
    out.append(t)
    out.extend(breakdown_tables(cfg))
    return out


def _due_to_rain(r: dict[str, Any]) -> str:
    """The core's like-for-like extra P/E (erases over the same device without RAIN, with the
    buffer if the stack has it), e.g. "+21.9 % (nogc+gtf)"; "-" without RAIN or reference."""
    pe = r.get("extra_pe_due_to_rain")
    return f"{100 * pe['extra']:+.1f} % ({pe['reference']})" if pe else "-"


def _drains(r: dict[str, Any]) -> str:
    """Times GC drained its pipeline for want of a free super-block, and the deepest host
    reserve a group reached (each drain deepens its group's by one); "-" without super-block
    RAIN."""
    tt = r.get("ttflash") or {}
    reserve = tt.get("superblock_reserve_max", 0)
    return f"{tt['rain']['gc_drains']} ({reserve})" if reserve else "-"


#: The read-latency parts the core reports (``read_breakdown.<tail>.mean_us``), in its order.
PARTS = ["controller", "wait_host", "wait_gc", "wait_channel", "array", "transfer", "rebuild"]


def breakdown_tables(cfg: dict[str, Any]) -> list[Table]:
    """Where the reads' time goes, per stack: mean µs per part of the reads at or above p99 and
    p99.9 (and how many of them were rebuilt from their stripe)."""
    out = []
    for tail, label in (("p99", "99th"), ("p99_9", "99.9th")):
        if not all(r.get("read_breakdown") for r in cfg.values()):
            return out
        t = Table(title=f"read latency at or above the {label} percentile, by cause (mean µs per read)")
        for c in ["stack", "reads", "rebuilt", *PARTS, "total"]:
            t.add_column(c, justify="right")
        for s, r in cfg.items():
            b = r["read_breakdown"][tail]
            m = b["mean_us"]
            t.add_row(s, str(b["reads"]), str(b["rebuilt"]), *[f"{m[p]:.0f}" for p in PARTS], f"{sum(m.values()):.0f}")
        out.append(t)
    return out


@experiment_app.command("ttflash")
def ttflash_cmd(
    trace_path: Optional[Path] = typer.Option(None, "--trace", "-t", help="Trace file to replay."),
    workload: Optional[str] = typer.Option(None, "--workload", "-w", help=f"Named synthetic workload: {', '.join(WORKLOADS)}."),
    device: str = typer.Option("ttflash-small", "--device", "-d", help="Preset or TOML file (ttflash-small: the measured configuration; ttflash: the paper's device at its 10 % spare, minutes per run, --set geometry.blocks_per_plane=256 keeps its shape at 1/16)."),
    set_: List[str] = typer.Option([], "--set", help="Override a config field (repeatable), e.g. geometry.blocks_per_plane=256."),
    trace_format: str = typer.Option("auto", "--format", help=f"Trace format: {', '.join(registry.names('trace format'))}."),
    lba_map: str = typer.Option("modulo", "--lba-map", help="none, dense or modulo (default modulo: a trace's addresses folded onto the smaller simulated device)."),
    max_requests: Optional[int] = typer.Option(None, "--max-requests", help="Use only the trace's first N requests."),
    repeat: int = typer.Option(TRACE_SPEC["repeat"], "--repeat", help="Replay the trace this many times back to back (default 1: once; for excerpts that write less than the device's buffer and spare)."),
    repeat_shift: bool = typer.Option(TRACE_SPEC["repeat_shift"], "--repeat-shift", help="With --repeat: each pass at fresh addresses (folded by --lba-map modulo), so that the write buffer cannot absorb the later passes and GC runs."),
    time_scale: float = typer.Option(1.0, "--time-scale", help="Multiply inter-arrival times (0.5 = twice as fast)."),
    precondition_passes: float = typer.Option(1.0, "--precondition-passes", help="Random overwrite passes after a sequential fill (default 1: GC active from the start, as in the paper's aged device)."),
    precondition_fill: float = typer.Option(1.0, "--precondition-fill", help="Fraction of the logical space preconditioning fills, in (0, 1] (default 1: all of it, 90 % of the `ttflash` preset's flash; 0.51 leaves 46 % of it valid, as the authors' simulator ages its device: 66 % of each plane written, 7 pages in 10 of them valid)."),
    stacks: List[str] = typer.Option([], "--stack", help=f"Run only these stacks (repeatable; any + list of {', '.join(MECHANISMS)} also works, e.g. ttflash+pfg); default {', '.join(STACKS)}."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    jobs: int = jobs_option("Stacks"),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the comparison as JSON."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """Tiny-Tail Flash: the paper's six stacks and ssdlab's rotating flush on one workload, in the paper's Table 1 form."""
    console = Console(width=160)
    if (trace_path is None) == (workload is None):
        fail("give exactly one of --trace or --workload")
    if trace_path is not None:
        wl = trace(trace_path, format=trace_format, lba_map=lba_map, max_requests=max_requests, repeat=repeat,
                   repeat_shift=repeat_shift)
    else:
        if (repeat, repeat_shift) != (TRACE_SPEC["repeat"], TRACE_SPEC["repeat_shift"]):
            fail("--repeat/--repeat-shift: apply to --trace only")
        if workload not in WORKLOADS:
            fail(f"--workload {workload}: expected one of {', '.join(WORKLOADS)}")
        wl = named_workload(workload, max_requests)
    try:
        res = run(device, wl, overrides=set_, time_scale=time_scale, seed=seed, precondition_passes=precondition_passes,
                  precondition_fill=precondition_fill, stacks=stacks or None, jobs=jobs,
                  progress=output.progress())
    except SsdlabError as e:  # bad input: one line, no traceback (anything else is a bug and should show)
        fail(str(e))
    print_tables(res, console)
    finish("ttflash", res, json_path, report_path, report_tables(res))
