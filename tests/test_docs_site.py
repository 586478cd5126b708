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


def test_code_cites_speed_entries_by_their_titles():
    """Comments cite docs/speed.md by an entry's title, never by its number, and every title
    cited is an entry there."""
    import re
    titles = {re.sub(r"`", "", m) for m in re.findall(r"^\d+\. \*\*(.+?)\*\*", (ROOT / "docs" / "speed.md").read_text(), re.M)}
    sources = [p for d in ("crates", "python", "tests", "benches", "scripts") for p in (ROOT / d).rglob("*")
               if p.suffix in (".rs", ".py", ".sh", ".c", ".h") and "golden" not in p.parts and "target" not in p.parts]
    numbered, unknown = [], []
    for p in sources:
        text = p.read_text(errors="replace")
        joined = re.sub(r"\n\s*(?://[/!]?|#)\s*", " ", text)  # comment lines joined, so a title may wrap
        numbered += [f"{p.relative_to(ROOT)}: {m}" for m in re.findall(r"docs/speed\.md`?,? items? \d+|speed item \d+", joined)]
        unknown += [f"{p.relative_to(ROOT)}: {t}" for t in re.findall(r'docs/speed\.md`?, "([^"]+)"', joined)
                    if " ".join(re.sub(r"`", "", t).split()) not in titles]
    assert numbered == [], numbered
    assert unknown == [], unknown
