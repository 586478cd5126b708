"""A headless browser for the tests (issue 14): find or install Chromium, screenshot a local HTML
file, and measure what the screenshot shows.

Used by ``tests/test_report_browser.py`` (``from browser import ...``: pytest puts ``tests/`` on
``sys.path``, as for ``from conftest import ...``) and by ``scripts/screenshot-report``. It needs
no pytest; ``require_browser`` is the one pytest-aware function (it skips, visibly, with ``-rs``).

- ``find_browser()``: ``$SSDLAB_BROWSER``, else the first of chromium, chromium-browser,
  google-chrome(-stable), chrome, headless_shell, chrome-headless-shell on ``PATH``.
- ``ensure_browser()``: ``find_browser()``, else, when root on a system with ``apt-get``, installs
  Debian's ``chromium`` (once per process, saying what it does). ``SSDLAB_NO_BROWSER_INSTALL=1``
  turns the install off.
- ``screenshot(html, png)``: ``chromium --headless=new --screenshot`` of ``file://html``, killed
  (with its whole process group) after a timeout. Page height: see ``screenshot``.
- ``image_stats(png)``: fractions of non-background and of saturated ("plot-coloured") pixels.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome",
              "headless_shell", "chrome-headless-shell")

# Debian's chromium, plus a font so that text renders on a machine that has none (chromium
# itself depends on fontconfig only; a bare container draws every glyph as nothing).
APT_PACKAGES = ("chromium", "fonts-dejavu-core")
INSTALL_HINT = ("install a Chromium-based browser (Debian/Ubuntu: `apt-get install chromium`; or "
                "`npx @puppeteer/browsers install chrome-headless-shell`) or point $SSDLAB_BROWSER at one")

# Flags that keep a headless run short, quiet and offline: no sandbox (root in a container has
# no user namespaces for it), no GPU, no first-run/default-browser dialogs, no background
# network (component updates, sync, safe-browsing lists, metrics), /tmp instead of a small
# /dev/shm, scale factor 1 so a screenshot's pixels are CSS pixels.
COMMON_FLAGS = (
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
    "--no-first-run", "--no-default-browser-check", "--disable-extensions",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-breakpad", "--metrics-recording-only", "--no-pings",
    "--mute-audio", "--force-device-scale-factor=1", "--force-color-profile=srgb",
)

DEFAULT_HEIGHT = 4000   # first window height of an automatic (full-page) capture
MAX_HEIGHT = 16000      # automatic capture stops growing here (the PNG is then truncated)
BOTTOM_MARGIN = 24      # px of background kept under the content when cropping


def _log(msg: str) -> None:
    print(f"[ssdlab browser] {msg}", file=sys.stderr, flush=True)


def find_browser() -> Optional[str]:
    """The browser to use: ``$SSDLAB_BROWSER`` (a path or a name on PATH), else the first known
    Chromium-family name on ``PATH``, else None."""
    env = os.environ.get("SSDLAB_BROWSER")
    if env:
        return shutil.which(env) or (env if os.access(env, os.X_OK) else None)
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserUnavailable(RuntimeError):
    """No browser, and none could be installed; the message says why and how to install one."""


_ensured: Optional[tuple[Optional[str], str]] = None   # (path, reason) once tried in this process


def ensure_browser(log: Callable[[str], None] = _log) -> str:
    """A browser's path, installing Debian's ``chromium`` with apt-get if none is found and we are
    root on a system that has apt-get (``apt-get update`` only if the install fails for lack of
    package lists). Tried once per process: a failure is remembered and raised again.

    Raises ``BrowserUnavailable`` with the reason and how to install one."""
    global _ensured
    if _ensured is None:
        _ensured = _ensure(log)
    path, reason = _ensured
    if path is None:
        raise BrowserUnavailable(reason)
    return path


def _ensure(log: Callable[[str], None]) -> tuple[Optional[str], str]:
    path = find_browser()
    if path:
        return path, ""
    if os.environ.get("SSDLAB_BROWSER"):
        return None, f"$SSDLAB_BROWSER={os.environ['SSDLAB_BROWSER']} is not an executable; {INSTALL_HINT}"
    if os.environ.get("SSDLAB_NO_BROWSER_INSTALL"):
        return None, f"no browser on PATH and SSDLAB_NO_BROWSER_INSTALL is set; {INSTALL_HINT}"
    apt = shutil.which("apt-get")
    if apt is None:
        return None, f"no browser on PATH and no apt-get to install one; {INSTALL_HINT}"
    if os.geteuid() != 0:
        return None, f"no browser on PATH, and not root, so the tests do not install one; {INSTALL_HINT}"

    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = [apt, "install", "-y", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=120", *APT_PACKAGES]

    def run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
        log("running: " + " ".join(cmd))
        t0 = time.monotonic()
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            log(f"timed out after {timeout:.0f} s")
            return subprocess.CompletedProcess(cmd, 124, "", f"timed out after {timeout:.0f} s")
        log(f"exit {r.returncode} after {time.monotonic() - t0:.1f} s")
        return r

    log("no Chromium-family browser on PATH; installing Debian's chromium for the browser tests "
        "(set SSDLAB_NO_BROWSER_INSTALL=1 to skip them instead)")
    r = run(install, 900)
    if r.returncode != 0 and _lacks_lists(r.stdout + r.stderr):
        log("the package lists lack chromium (or are stale); updating them first")
        u = run([apt, "update", "-o", "DPkg::Lock::Timeout=120"], 600)
        if u.returncode == 0:
            r = run(install, 900)
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        return None, (f"no browser on PATH and `apt-get install chromium` failed (exit {r.returncode}: "
                      f"{' | '.join(tail)}); {INSTALL_HINT}")
    path = find_browser()
    if path is None:
        return None, f"apt-get installed chromium but no browser is on PATH; {INSTALL_HINT}"
    log(f"installed: {path}")
    return path, ""


def _lacks_lists(output: str) -> bool:
    return any(s in output for s in ("Unable to locate package", "has no installation candidate",
                                     "404", "apt-get update", "--fix-missing"))


pytest_config = None   # set by tests/conftest.py: lets require_browser print past pytest's capture


def _pytest_log(msg: str) -> None:
    capman = pytest_config.pluginmanager.getplugin("capturemanager")
    reporter = pytest_config.pluginmanager.getplugin("terminalreporter")
    if capman is None or reporter is None:
        return _log(msg)
    with capman.global_and_fixture_disabled():
        reporter.write_line(f"[ssdlab browser] {msg}")


def require_browser() -> str:
    """``ensure_browser()`` for a test: skips the test (reason shown by ``-rs``) when it fails.
    What an install does is printed on the terminal, not captured."""
    import pytest
    try:
        return ensure_browser(log=_pytest_log if pytest_config is not None else _log)
    except BrowserUnavailable as e:
        pytest.skip(f"browser test skipped: {e}")


def _run_browser(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
    """Runs the browser in its own process group and kills the whole group (zygote, GPU and
    renderer processes too) when it is done or after ``timeout`` seconds."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise TimeoutError(f"browser did not finish within {timeout:.0f} s: {' '.join(cmd)}") from None
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)   # leftovers of a finished run, if any
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def _capture(browser: str, url: str, png: Path, width: int, height: int, timeout: float) -> None:
    """One ``--screenshot`` of a ``width`` x ``height`` window into ``png``."""
    errors = []
    for headless in ("--headless=new", "--headless"):
        if png.exists():
            png.unlink()
        with tempfile.TemporaryDirectory(prefix="ssdlab-chromium-") as profile:
            cmd = [browser, headless, *COMMON_FLAGS, f"--user-data-dir={profile}",
                   f"--window-size={width},{height}", f"--screenshot={png}", url]
            r = _run_browser(cmd, timeout)
        if r.returncode == 0 and png.exists() and png.stat().st_size > 0:
            return
        errors.append(f"{headless}: exit {r.returncode}: {r.stderr.strip()[-800:]}")
    raise RuntimeError("browser screenshot failed:\n" + "\n".join(errors))


def screenshot(html: Path, png: Path, width: int = 1280, height: Optional[int] = None,
               timeout: float = 60, browser: Optional[str] = None) -> Path:
    """Renders the local file ``html`` in a ``width``-wide headless window and writes ``png``.

    ``height`` given: the window is that tall and the PNG is exactly ``width`` x ``height``.

    ``height=None`` (default): the whole page. ``--screenshot`` captures the window only, and the
    command line cannot ask the page its height, so the window is made tall — ``DEFAULT_HEIGHT``
    first — and the PNG is cropped to ``BOTTOM_MARGIN`` px under the last row that differs from the
    background (the colour of the bottom row). If the content reaches the bottom of the window,
    the capture is taken again twice as tall, up to ``MAX_HEIGHT`` (then the PNG is truncated
    there, with a note on stderr). A report up to ``DEFAULT_HEIGHT`` px takes one browser run.
    Layout does not depend on window height, except for ``vh`` units (a ``min-height: 100vh``
    page stretches to the window and is cropped only to its own background).

    ``timeout`` is per browser run (there may be two per height: ``--headless=new``, then
    ``--headless`` if that failed). Returns ``png``."""
    browser = browser or ensure_browser()
    html, png = Path(html).resolve(), Path(png).resolve()
    if not html.is_file():
        raise FileNotFoundError(html)
    png.parent.mkdir(parents=True, exist_ok=True)
    url = html.as_uri()
    if height is not None:
        _capture(browser, url, png, width, height, timeout)
        return png

    h = DEFAULT_HEIGHT
    while True:
        _capture(browser, url, png, width, h, timeout)
        end = _content_end(png)
        if end is not None:
            _crop(png, min(h, end + BOTTOM_MARGIN))
            return png
        if h >= MAX_HEIGHT:
            _log(f"page is taller than {MAX_HEIGHT} px: {png} is truncated there")
            return png
        h = min(2 * h, MAX_HEIGHT)


def _rgb(png: Path):
    import numpy as np
    from PIL import Image
    with Image.open(png) as im:
        return np.asarray(im.convert("RGB"), dtype=np.int16)


def _content_end(png: Path, tail: int = 16) -> Optional[int]:
    """Row index one past the last row that differs from the bottom row's colour, if the last
    ``tail`` rows are that uniform colour (the content ends above the window's bottom); else None."""
    import numpy as np
    a = _rgb(png)
    bg = a[-1, 0]
    differs = (np.abs(a - bg).max(axis=2) > 8).any(axis=1)   # per row
    if differs[-tail:].any():
        return None
    rows = np.flatnonzero(differs)
    return int(rows[-1]) + 1 if rows.size else 0


def _crop(png: Path, height: int) -> None:
    from PIL import Image
    with Image.open(png) as im:
        if height >= im.height:
            return
        out = im.crop((0, 0, im.width, max(height, 1)))
    out.save(png)


def image_stats(png: Path, saturation: float = 0.5, min_value: float = 0.25) -> dict:
    """What a screenshot shows, as fractions of its pixels:

    - ``nonwhite``: pixels with some channel below 240 (text, lines, images, shading);
    - ``plot_colored``: saturated pixels — HSV saturation ``(max-min)/max`` of at least
      ``saturation`` and value ``max`` of at least ``min_value`` — as matplotlib's colour cycle
      (tab:blue #1f77b4 has saturation 0.83, tab:orange 0.95, tab:green 0.75, tab:red 0.81).
      Black and grey text, table rules and axes have saturation ~0 (headless Chromium
      antialiases text in greyscale), so a page of text and tables scores ~0.

    Also ``width``, ``height`` and the pixel counts ``nonwhite_px``, ``plot_px`` (a count does not
    shrink as a page grows longer; the fractions do)."""
    import numpy as np
    a = _rgb(png)
    hi = a.max(axis=2)
    lo = a.min(axis=2)
    nonwhite = lo < 240
    sat = np.where(hi > 0, (hi - lo) / np.maximum(hi, 1), 0.0)
    plot = (sat >= saturation) & (hi >= min_value * 255)
    n = a.shape[0] * a.shape[1]
    return {
        "width": int(a.shape[1]), "height": int(a.shape[0]),
        "nonwhite": float(nonwhite.sum() / n), "plot_colored": float(plot.sum() / n),
        "nonwhite_px": int(nonwhite.sum()), "plot_px": int(plot.sum()),
    }
