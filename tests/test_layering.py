"""Architecture rules that a refactor could silently break."""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo not installed")
def test_core_crate_has_no_python_dependency():
    out = subprocess.run(["cargo", "tree", "-p", "ssdlab-core", "-e", "normal", "--offline"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "pyo3" not in out.stdout and "numpy" not in out.stdout


def test_core_never_reads_the_wall_clock():
    src = ROOT / "crates" / "ssdlab-core" / "src"
    offenders = [p for p in src.rglob("*.rs") if any(s in p.read_text() for s in ("SystemTime", "Instant::now", "thread_rng", "OsRng"))]
    assert offenders == []
