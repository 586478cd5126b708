"""Shared fixtures: the real trace excerpts in ../shared/traces (tests skip when absent) and a
runner for the CLI as a subprocess (so exit codes and stderr are the real ones)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRACES = Path(os.environ.get("SSDLAB_TRACES", ROOT.parent / "shared" / "traces"))


@pytest.fixture
def traces() -> Path:
    if not TRACES.is_dir():
        pytest.skip(f"trace excerpts not found at {TRACES}")
    return TRACES


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "ssdlab", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)


@pytest.fixture
def cli():
    return run_cli


def pytest_configure(config):
    # tests/browser.py prints what installing a browser does on the terminal, past the capture.
    import browser
    browser.pytest_config = config


def terminal_sigint() -> None:
    """``preexec_fn`` for a CLI a test interrupts with SIGINT: the child starts with SIGINT's
    default action, as from a terminal. A test run started in the background (``cmd &``, CI
    runners) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler, so
    the child would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
