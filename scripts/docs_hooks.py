"""MkDocs hooks for the documentation site (mkdocs.yml ``hooks:``).

- The home page is README.md, its links rewritten from ``docs/X`` to ``X`` (README is written
  for GitHub, where it sits above docs/).
- The command-line reference (``reference/cli.md``) is generated from the typer app at build
  time by typer's own ``utils docs``, so it cannot drift from ``ssdlab --help``.
- The Rust API: when ``cargo doc`` has been run, its output is copied under ``rust/`` in the
  site, where ``reference/rust.md`` links to it.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]


def _readme() -> str:
    text = (ROOT / "README.md").read_text()
    text = re.sub(r"\]\(docs/", "](", text)
    # NOTES.md is not part of the site: named, not linked.
    return text.replace("[NOTES.md](NOTES.md)", "`NOTES.md` (at the repository's root)")


def _cli_reference() -> str:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "cli.md"
        p = subprocess.run([sys.executable, "-m", "typer", "ssdlab.cli", "utils", "docs", "--name", "ssdlab",
                            "--output", str(out)], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"typer utils docs failed: {p.stderr.strip()[-2000:]}")
        body = out.read_text()
    head = ("<!-- Generated at build time from the typer app (scripts/docs_hooks.py); "
            "do not edit. -->\n\n# Command line\n\nEvery command and option, as `ssdlab COMMAND --help` "
            "prints them.\n\n")
    # typer's page starts at "# `ssdlab`": one level down under this page's title.
    return head + re.sub(r"^(#+) ", lambda m: "#" + m.group(1) + " ", body, flags=re.M)


def on_files(files, config):
    for uri, content in (("index.md", _readme()), ("reference/cli.md", _cli_reference())):
        old = files.get_file_from_path(uri)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, uri, content=content))
    return files


def on_post_build(config):
    doc = ROOT / "target" / "doc"
    if (doc / "ssdlab_core" / "index.html").is_file():
        shutil.copytree(doc, Path(config["site_dir"]) / "rust", dirs_exist_ok=True)
