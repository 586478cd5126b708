"""``ssdlab report``: one self-contained HTML file of a result — what was run and how to run it
again, the versions, every figure that applies (each with the command that draws it), a table
of every compared group and the experiment's own tables.

Self-contained: figures are PNGs inlined as ``data:`` URIs and the style sheet is inline, so
the file opens anywhere without a network. Text is black and grey on white: colour is the
plots' (the browser test tells plots from text by it).
"""
from __future__ import annotations

import base64
import html
import io
import os
import shlex
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from ssdlab import _core
from ssdlab.plots import KINDS, available, figure
from ssdlab.plots.source import Source
from ssdlab.plots.style import DPI, style

#: Columns of the groups table: (scalar key — ``{op}`` is the source's operation —, heading, format).
COLUMNS = (("waf", "WAF", "{:.3f}"), ("erases", "erases", "{:,.0f}"), ("internal_writes", "internal writes", "{:,.0f}"),
           ("write_mb_s", "write MB/s", "{:,.1f}"), ("blocked_fraction", "blocked", "{:.2%}"),
           ("latency_us.{op}.mean", "{op} mean µs", "{:,.1f}"), ("latency_us.{op}.p50", "p50 µs", "{:,.1f}"),
           ("latency_us.{op}.p99", "p99 µs", "{:,.1f}"), ("latency_us.{op}.p99_9", "p99.9 µs", "{:,.1f}"),
           ("latency_us.{op}.p99_99", "p99.99 µs", "{:,.1f}"),
           ("write_cache.write_hit_ratio", "cache write hits", "{:.2%}"),
           ("write_cache.read_hit_ratio", "cache read hits", "{:.2%}"),
           ("write_cache.flash_writes_per_host_write", "flash writes / host write", "{:.3f}"),
           ("mapping.read_hit_ratio", "CMT read hits", "{:.2%}"),
           ("mapping.write_hit_ratio", "CMT write hits", "{:.2%}"),
           ("mapping.translation_reads", "translation reads", "{:,.0f}"),
           ("mapping.translation_writes", "translation writes", "{:,.0f}"),
           ("mapping.translation_gc_copies", "translation GC copies", "{:,.0f}"),
           ("mapping.waf.translation", "WAF: translation", "{:.3f}"),
           ("flash.errors.retry_rate", "reads retried", "{:.2%}"),
           ("flash.errors.uncorrectable_reads", "uncorrectable reads", "{:,.0f}"),
           ("wear_leveling.static_pages_copied", "wear-levelling copies", "{:,.0f}"))
#: Figures are drawn at 200 dpi and shown at most this wide (CSS px): sharp on any screen.
MAX_WIDTH_PX = 1000

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #111;
       background: #fff; max-width: 1060px; margin: 24px auto; padding: 0 20px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ccc; }
.meta { color: #444; } code, pre { font: 13px/1.35 "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { background: #f6f6f6; padding: 8px 10px; overflow-x: auto; }
pre.cmd { white-space: pre-wrap; overflow-wrap: anywhere; }
table.groups { border-collapse: collapse; font-size: 13px; }
table.groups th, table.groups td { padding: 3px 9px; border-bottom: 1px solid #ddd; text-align: right; }
table.groups th:first-child, table.groups td:first-child { text-align: left; }
.figs { display: flex; flex-wrap: wrap; gap: 10px 22px; align-items: flex-start; }
figure { margin: 8px 0 14px; max-width: 100%; } figure img { max-width: 100%; height: auto; display: block; }
figcaption { color: #333; font-size: 14px; margin-top: 4px; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; } dt { color: #444; } dd { margin: 0; }
"""


def _esc(x: Any) -> str:
    return html.escape(str(x))


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def groups_table(src: Source) -> str:
    """Every group with the scalars any of them has (seeds averaged)."""
    if not src.groups:
        return ""
    cols = []
    for key, head, fmt in COLUMNS:
        key, head = key.format(op=src.op), head.format(op=src.op)
        if any(key in g.scalars for g in src.groups):
            cols.append((key, head, fmt))
    if not cols:
        return ""
    facet = any(g.facet for g in src.groups)
    rows = ["<tr>" + (f"<th>{'facet'}</th>" if facet else "") + "<th>group</th>" + "".join(f"<th>{_esc(h)}</th>" for _, h, _ in cols) + "</tr>"]
    for g in src.groups:
        cells = [fmt.format(g.scalars[k]) if k in g.scalars else "–" for k, _, fmt in cols]
        rows.append("<tr>" + (f"<td>{_esc(g.facet or '')}</td>" if facet else "") + f"<td>{_esc(g.label)}</td>"
                    + "".join(f"<td>{_esc(c)}</td>" for c in cells) + "</tr>")
    return '<table class="groups">' + "".join(rows) + "</table>"


def rich_tables(tables: Iterable[Any]) -> str:
    """The experiment's own tables, as its terminal prints them (monospace, inline styles)."""
    from rich.console import Console

    con = Console(record=True, width=160, file=io.StringIO(), color_system="truecolor")
    for t in tables:
        con.print(t)
    text = con.export_html(inline_styles=True, code_format="{code}")
    return f"<pre>{text}</pre>" if text.strip() else ""


def _command_of(src: Source) -> str:
    return src.command or f"(this file: {src.path.name})"


def render(src: Source, tables: Sequence[Any] = (), kinds: Optional[Sequence[str]] = None) -> str:
    """The report's HTML. ``kinds``: figures to draw (default every one that applies)."""
    kinds = list(kinds) if kinds is not None else available(src)
    results = shlex.quote(str(src.path))
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{_esc(src.title)}</title>",
             f"<meta name='viewport' content='width=device-width, initial-scale=1'><style>{CSS}</style></head><body>",
             f"<h1>{_esc(src.title)}</h1>",
             f"<p class='meta'>ssdlab {_esc(_core.__version__)} ({_esc(_core.__git_commit__ or 'no git commit')}) · "
             f"report made {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC from <code>{_esc(src.path)}</code></p>",
             "<h2>How to reproduce</h2>", f"<pre class='cmd'>{_esc(_command_of(src))}\nssdlab report {results} -o report.html</pre>"]
    about = {k: v for k, v in src.about.items() if not k.startswith("spec ")}
    if about:
        parts.append("<dl>" + "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in about.items()) + "</dl>")
    # Figures first: a report is read at a glance; the numbers behind them follow.
    if kinds:
        parts.append("<h2>Figures</h2><div class='figs'>")
    with style():
        for kind in kinds:
            fig = figure(kind, src)
            w = min(MAX_WIDTH_PX, int(fig.get_figwidth() * 140))
            parts.append(f"<figure style='width: {w}px'><img alt='{_esc(kind)}' width='{w}' "
                         f"src='data:image/png;base64,{_png(fig)}'><figcaption><b>{_esc(kind)}</b>: "
                         f"{_esc(KINDS[kind].HELP)}. <code>ssdlab plot {kind} {_esc(results)} -o {kind}.png</code>"
                         "</figcaption></figure>")
    if kinds:
        parts.append("</div>")
    table = groups_table(src)
    if table:
        parts += ["<h2>Results</h2>", table]
    if tables:
        parts += ["<h2>Tables</h2>", rich_tables(tables)]
    for k, v in src.about.items():
        if k.startswith("spec "):
            parts += [f"<h2>Specification {_esc(k[5:])}</h2>", f"<pre>{_esc(v)}</pre>"]
    parts.append("</body></html>\n")
    return "".join(parts)


def write(path: Path, src: Source, tables: Sequence[Any] = (), kinds: Optional[Sequence[str]] = None) -> Path:
    """Write the report to ``path`` (whole, then renamed: never a half-written file)."""
    text = render(src, tables, kinds)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path
