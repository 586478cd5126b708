"""The HTML report in a real headless browser (issue 14): a screenshot must show the report's
plots, not only its text. The harness (``tests/browser.py``) is tested here on a hand-made
self-contained page — a heading, a paragraph, a table and a matplotlib line plot inlined as a
base64 PNG — and on the same page without the plot.

Needs a Chromium-family browser: found on PATH (or ``$SSDLAB_BROWSER``), else installed with
apt-get when root on Debian/Ubuntu (about 20 s, once); otherwise the tests skip and say why
(``-rs`` is in the pytest options). ``SSDLAB_NO_BROWSER_INSTALL=1`` skips instead of installing.
"""
from __future__ import annotations

import base64
import html as html_lib
import io
import time
from pathlib import Path

import pytest

import browser
from browser import image_stats, require_browser, screenshot

# Saturated pixels in a 1280-px-wide screenshot, measured with Debian's Chromium 148: the page
# below without its plot, 0; with its plot (800x450 px, four 2.5-px lines), 8 361; with instead
# matplotlib's smallest ordinary plot (default 640x480 figure, one default line), 1 300.
MIN_PLOT_PX = 1000
MAX_PLOT_PX_WITHOUT_PLOTS = 100
# Non-white fraction of the text-only page: 0.042 (its 1280x291 screenshot).
MIN_NONWHITE = 0.005


def check_report_screenshot(html_path: Path, tmp_path: Path) -> Path:
    """Screenshots ``html_path`` (the whole page, 1280 px wide) and asserts that it is not blank
    and shows plots: at least ``MIN_NONWHITE`` of its pixels are not white and at least
    ``MIN_PLOT_PX`` pixels are saturated colours (matplotlib's colour cycle; text, tables and
    axes are black or grey). Skips when no browser can be found or installed. Returns the PNG.
    Saturated text counts too (blue links, coloured headings: roughly 100-300 px per line of
    text), so this holds only while the report draws its text in black or grey.

    The real-report test calls this on the output of ``ssdlab report RESULTS -o report.html``
    after a small sweep, e.g. ``check_report_screenshot(tmp_path / "report.html", tmp_path)``;
    its PNG can be kept as a test artifact or copied to docs/ (``scripts/screenshot-report``
    makes the same PNG from the command line)."""
    require_browser()
    png = screenshot(Path(html_path), Path(tmp_path) / (Path(html_path).stem + ".png"))
    stats = image_stats(png)
    assert stats["nonwhite"] >= MIN_NONWHITE, f"screenshot {png} is blank: {stats}"
    assert stats["plot_px"] >= MIN_PLOT_PX, f"screenshot {png} shows no plots (text only?): {stats}"
    return png


def _figure_png() -> bytes:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    x = [i / 10 for i in range(101)]
    for k, name in enumerate(["greedy", "cost-benefit", "d-choices", "rlgc"]):
        ax.plot(x, [(k + 1) * (1 + (xi - 5) ** 2 / 25) for xi in x], lw=2.5, label=name)
    ax.set_xlabel("utilisation")
    ax.set_ylabel("write amplification")
    ax.legend()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def _page(figure: bytes | None) -> str:
    rows = [("greedy", 1.92, 412), ("cost-benefit", 1.71, 388), ("d-choices", 1.80, 401), ("rlgc", 1.64, 371)]
    body = "".join(f"<tr><td>{html_lib.escape(n)}</td><td>{wa:.2f}</td><td>{p99}</td></tr>" for n, wa, p99 in rows)
    img = ""
    if figure is not None:
        img = f'<img alt="write amplification" src="data:image/png;base64,{base64.b64encode(figure).decode()}">'
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>ssdlab report</title>
<style>body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #999; padding: 4px 10px; }}</style>
</head><body>
<h1>ssdlab sweep report</h1>
<p>Write amplification and 99th-percentile latency of four victim policies on a hot/cold workload,
16 runs per policy. Lower is better in both columns.</p>
<table><tr><th>policy</th><th>WA</th><th>p99 (us)</th></tr>{body}</table>
{img}
</body></html>
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("pages")
    out = {}
    for name, fig in (("with_plot", _figure_png()), ("text_only", None)):
        out[name] = d / f"{name}.html"
        out[name].write_text(_page(fig), encoding="utf-8")
    return out


def test_screenshot_of_a_page_with_a_plot_shows_plot_colours(pages, tmp_path):
    png = check_report_screenshot(pages["with_plot"], tmp_path)
    stats = image_stats(png)
    # The whole page, cropped under its content: 1280 wide, taller than the 450-px figure.
    assert stats["width"] == 1280 and 450 < stats["height"] < 1500, stats


def test_screenshot_of_the_same_page_without_the_plot_has_text_but_no_plot_colours(pages, tmp_path):
    require_browser()
    png = screenshot(pages["text_only"], tmp_path / "text_only.png")
    stats = image_stats(png)
    assert stats["nonwhite"] >= MIN_NONWHITE, f"text did not render: {stats}"
    assert stats["plot_px"] <= MAX_PLOT_PX_WITHOUT_PLOTS, stats
    with pytest.raises(AssertionError, match="shows no plots"):
        check_report_screenshot(pages["text_only"], tmp_path)


def test_fixed_window_height_gives_exactly_that_size(pages, tmp_path):
    require_browser()
    stats = image_stats(screenshot(pages["text_only"], tmp_path / "fixed.png", width=800, height=300))
    assert (stats["width"], stats["height"]) == (800, 300)


def test_without_a_browser_the_reason_says_how_to_install_one(monkeypatch):
    monkeypatch.setenv("SSDLAB_BROWSER", "/nonexistent/chromium")
    path, reason = browser._ensure(lambda msg: None)
    assert path is None
    assert "SSDLAB_BROWSER" in reason and "apt-get install chromium" in reason


def test_a_hanging_browser_is_killed_with_its_children_after_the_timeout(tmp_path):
    fake = tmp_path / "hanging-browser"
    fake.write_text(f"#!/bin/sh\nsleep 60 &\necho $! > {tmp_path}/child\nsleep 60\n")
    fake.chmod(0o755)
    page = tmp_path / "p.html"
    page.write_text("<p>x</p>")
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="did not finish within"):
        screenshot(page, tmp_path / "p.png", browser=str(fake), timeout=1)
    assert time.monotonic() - t0 < 10
    child = int((tmp_path / "child").read_text())
    time.sleep(0.2)
    stat = Path(f"/proc/{child}/stat")
    assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] in "ZX", "child of the browser still runs"


def test_install_runs_apt_get_update_only_when_the_lists_lack_chromium(tmp_path, monkeypatch):
    # A fake apt-get: `install` fails as with empty package lists until `update` has run, then
    # puts a fake chromium on PATH. Only tmp_path/bin is on PATH, so no real browser is found.
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    pending = tmp_path / "chromium"
    pending.write_text("#!/bin/sh\nexit 0\n")
    pending.chmod(0o755)
    (bin_ / "apt-get").write_text(f"""#!/bin/sh
echo "$1" >> {tmp_path}/calls
case "$1" in
  update) : > {tmp_path}/updated ;;
  install) [ -e {tmp_path}/updated ] || {{ echo "E: Unable to locate package chromium" >&2; exit 100; }}
           /bin/mv {pending} {bin_}/chromium ;;
esac
""")
    (bin_ / "apt-get").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_))
    monkeypatch.delenv("SSDLAB_BROWSER", raising=False)
    monkeypatch.delenv("SSDLAB_NO_BROWSER_INSTALL", raising=False)
    monkeypatch.setattr(browser.os, "geteuid", lambda: 0)
    said = []
    path, reason = browser._ensure(said.append)
    assert path == str(bin_ / "chromium"), reason
    assert (tmp_path / "calls").read_text().split() == ["install", "update", "install"]
    assert any("updating them first" in m for m in said)


def test_reports_of_a_sweep_and_of_an_experiment_show_their_plots(tmp_path, cli):
    """The real thing: ``ssdlab sweep --report`` (a 2 × 2 × 2 grid on the tiny device) and
    ``ssdlab experiment ttflash --report``, each rendered by the browser, show their plots."""
    require_browser()
    spec = tmp_path / "grid.toml"
    spec.write_text('[sweep]\nname = "browser"\n[base]\ndevice = "tiny"\nworkload.requests = 2000\n'
                    'options.precondition = true\n[grid]\nset.gc.victim = ["greedy", "fifo"]\n'
                    'set.geometry.spare_factor = [0.1, 0.2]\nseed = [1, 2]\n')
    r = cli("sweep", str(spec), "-o", str(tmp_path / "grid.results"), "-j", "1", "--report", str(tmp_path / "sweep.html"))
    assert r.returncode == 0, r.stderr
    r = cli("experiment", "ttflash", "-w", "mixed70-small", "--max-requests", "5000",
            "--report", str(tmp_path / "ttflash.html"))
    assert r.returncode == 0, r.stderr
    for name in ("sweep", "ttflash"):
        html = (tmp_path / f"{name}.html").read_text()
        assert html.count("<img ") >= 3
        png = check_report_screenshot(tmp_path / f"{name}.html", tmp_path)
        # Taller than one screen: the figures are below the tables, and were rendered.
        assert image_stats(png)["height"] > 1500
