"""A drive's lifetime (issue 63): a stated workload written until the drive reaches its end of
life (``[endurance]``), the TBW it took against the drive's rating. The rows, the scaling and
the ratings are the core's (``ssdlab_core::experiments::lifetime``): ``jesd219`` (JESD219A's
transfer sizes and LBA skew, random: the harsh end) and ``sequential`` (128 KiB sequential
writes: the friendly end); blocks of ``pages_per_block / scale`` pages, the TBW scaled back.
JSON keys: ``rows``, ``configs.<row>`` (``tbw``, ``tbw_over_rated``, ``drive_writes``, ``waf``,
``erase_per_block``, ``endurance``, ``hybrid``), ``scale``, ``retire_pe``, ``rated_tbw``."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from rich.table import Table

from ssdlab import _core, registry
from ssdlab.cli_common import console, fail, jobs_option
from ssdlab.errors import SsdlabError, core_json
from ssdlab.experiments import experiment_app, output
from ssdlab.experiments.output import finish, report_option
from ssdlab.inputs import device_text

_DEFAULTS = registry.defaults()["lifetime"]
#: The workloads, in the table's order (from the core).
ROWS: List[str] = list(_DEFAULTS["rows"])
U32 = 2**32 - 1
#: The block-size divisor by default (from the core).
SCALE: int = int(_DEFAULTS["scale"])


def run(device: str = "client-qlc-1tb", *, rows: Optional[List[str]] = None, scale: int = SCALE,
        retire_pe: Optional[int] = None, slc_retire_pe: Optional[int] = None, rated_tbw: Optional[float] = None,
        overrides: Optional[List[str]] = None, seed: int = 1, jobs: Optional[int] = None,
        progress: Optional[Callable[[int, int], None]] = None) -> dict[str, Any]:
    """Run the rows (default: all) to the end of life; the parsed JSON."""
    setup = {"device": device_text(device), "origin": device, "overrides": list(overrides or []),
             "rows": list(rows or []), "scale": scale, "retire_pe": retire_pe, "slc_retire_pe": slc_retire_pe,
             "rated_tbw": rated_tbw, "seed": seed, "jobs": jobs or 0}
    return json.loads(_core.lifetime_experiment_json(core_json(setup, "experiment lifetime"), progress=progress))


def report_tables(res: dict[str, Any]) -> list[Table]:
    """One row per workload: the TBW at the end of life against the rating, drive writes, WAF,
    the blocks worn out and the erase counts' spread."""
    rated = res.get("rated_tbw")
    title = (f"lifetime of {res.get('device')} (blocks of {res.get('pages_per_block')} pages, scale "
             f"{res.get('scale')}; retire at {res.get('retire_pe')} P/E"
             + (f", SLC mode {res['slc_retire_pe']}" if res.get("slc_retire_pe") else "") + ")")
    t = Table(title=title)
    for c in ["workload", "TBW", "rated TBW", "TBW / rated", "drive writes", "WAF", "worn out", "erases max/mean",
              "erase CoV"]:
        t.add_column(c, justify="right")
    for r in res["rows"]:
        c = res["configs"][r]
        tbw = f"{c['tbw']:,.0f}" + ("" if c["end_of_life"] else " (not reached)")
        e = c["erase_per_block"]
        t.add_row(r, tbw, "-" if rated is None else f"{rated:,.0f}",
                  "-" if c["tbw_over_rated"] is None else f"{c['tbw_over_rated']:.2f}", f"{c['drive_writes']:,.0f}",
                  f"{c['waf']:.2f}", f"{c['endurance'].get('worn_out_blocks', 0):,}", f"{e['max_over_mean']:.2f}",
                  f"{e['cov']:.3f}")
    return [t]


@experiment_app.command("lifetime")
def lifetime_cmd(
    device: str = typer.Option("client-qlc-1tb", "--device", "-d", help="Preset or TOML file."),
    rows: List[str] = typer.Option([], "--row", help=f"Run only these workloads (repeatable): {', '.join(ROWS)}."),
    scale: int = typer.Option(SCALE, "--scale", min=1, max=U32, help="Divide geometry.pages_per_block by this (the TBW is scaled back)."),
    retire_pe: Optional[int] = typer.Option(None, "--retire-pe", min=1, max=U32, help="P/E cycles at which a block retires (default: the cell mode's rated cycles)."),
    slc_retire_pe: Optional[int] = typer.Option(None, "--slc-retire-pe", min=1, max=U32, help="Hybrid FTL: P/E cycles of a block in SLC mode (default: SLC's rated cycles)."),
    rated_tbw: Optional[float] = typer.Option(None, "--rated-tbw", min=0.0, help="The rating to compare with, TB (default: the preset's, if known)."),
    set_: List[str] = typer.Option([], "--set", help="Override a config field (repeatable)."),
    seed: int = typer.Option(1, "--seed", help="Seed of every random choice (same seed, same result)."),
    jobs: int = jobs_option("Workloads"),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Write the result as JSON."),
    report_path: Optional[Path] = report_option(),
) -> None:
    """A drive's lifetime: stated workloads written to the end of life, TBW against the rating."""
    for r in rows:
        if r not in ROWS:
            fail(f"--row {r}: expected one of {', '.join(ROWS)}")
    try:
        res = run(device, rows=rows or None, scale=scale, retire_pe=retire_pe, slc_retire_pe=slc_retire_pe,
                  rated_tbw=rated_tbw, overrides=set_, seed=seed, jobs=jobs, progress=output.progress())
    except SsdlabError as e:  # bad input: one line, no traceback
        fail(str(e))
    for t in report_tables(res):
        console.print(t)
    if res.get("rated_source"):
        console.print(f"rated: {res['rated_source']}", highlight=False, markup=False)
    finish("lifetime", res, json_path, report_path, report_tables(res))
