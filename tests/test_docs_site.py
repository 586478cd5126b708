"""The documentation site (mkdocs.yml, issue 57) builds with no warning (``--strict``), and its
generated pages hold what they are generated from: every CLI command, the Python API's entry
points, README as the home page."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_site_builds_strictly_with_the_generated_references(tmp_path):
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                        "-d", str(site)], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    cli = (site / "reference" / "cli" / "index.html").read_text()
    for command in ("ssdlab run", "ssdlab sweep", "ssdlab experiment rlgc", "ssdlab detect train", "--write-cache"):
        assert command in cli, command
    api = (site / "reference" / "python" / "index.html").read_text()
    for name in ("simulate", "Simulation", "Device", "Result", "sweep"):
        assert f"{name}</code>" in api, name
    home = (site / "index.html").read_text()
    assert "A five-minute tour" in home and 'src="img/slc-fill.png"' in home
