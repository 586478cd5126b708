"""The compiled core's type stubs (python/ssdlab/_core.pyi) match what it binds (issue 57):
mypy's stubtest fails on a symbol bound but not stubbed, stubbed but not bound, or a
signature that differs. PEP 800's disjoint-base marks are not required of the stubs."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUB = ROOT / "python" / "ssdlab" / "_core.pyi"


def _stubtest(mypypath: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if mypypath is not None:
        env["MYPYPATH"] = str(mypypath)
    return subprocess.run([sys.executable, "-m", "mypy.stubtest", "ssdlab._core", "--ignore-disjoint-bases"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=mypypath or ROOT)


def test_the_stubs_match_the_bindings():
    p = _stubtest()
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]


def test_a_missing_stub_is_caught(tmp_path):
    # The same stubs with one bound function left out, found first on MYPYPATH.
    pkg = tmp_path / "ssdlab"
    pkg.mkdir()
    (pkg / "__init__.pyi").write_text("")
    text = STUB.read_text()
    line = "def registries_json() -> str: ...\n"
    assert line in text
    (pkg / "_core.pyi").write_text(text.replace(line, ""))
    p = _stubtest(tmp_path)
    assert p.returncode != 0
    assert "ssdlab._core.registries_json is not present in stub" in p.stdout
