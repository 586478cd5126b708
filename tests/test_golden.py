"""Golden outputs of the experiments, through the CLI as a user runs them: each command's JSON
must equal the one recorded in ``tests/golden/`` exactly. A refactor that is not meant to change
results is proven here (the simulation runs themselves are pinned by the Rust golden test,
``crates/ssdlab-core/tests/golden.rs``).

Re-record, only for a change meant to change results (say so in the commit):
``SSDLAB_BLESS=1 python -m pytest tests/test_golden.py``.
"""
from __future__ import annotations

import json
import os

import pytest

from conftest import ROOT, TRACES, run_cli

GOLDEN = ROOT / "tests" / "golden"
#: Keys every experiment's JSON has that say how and by what it was made (see experiments/output.py).
PROVENANCE = ("command", "ssdlab_version", "git_commit")

# name -> (CLI arguments before --json, needs the shared traces)
CASES = {
    "experiment-rlgc": (["experiment", "rlgc", "-d", "kang-128gb", "-w", "home1", "-n", "15000", "--repeat", "2",
                         "--precondition-passes", "1.0", "--set", "geometry.blocks_per_plane=600", "--sensitivity"], False),
    "experiment-offline-toy": (["experiment", "offline", "--toy"], False),
    "experiment-offline-hotcold": (["experiment", "offline", "-w", "hotcold", "-n", "20000", "--logical-pages", "4096",
                                    "--pages-per-block", "32", "--playouts", "64"], False),
    "experiment-ttflash-synthetic": (["experiment", "ttflash", "-w", "mixed70-small", "--max-requests", "20000"], False),
    "experiment-ttflash-financial1": (["experiment", "ttflash", "-t", str(TRACES / "spc_financial1" / "example.ascii")], True),
    "offline-mcts-cloudphysics": (["offline", "-t", str(TRACES / "cloudphysics" / "cloudPhysicsIO.vscsi"),
                                   "--max-requests", "4000", "--method", "mcts", "--playouts", "32", "--param", "workers=2"], True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_experiment_output_matches_golden(name, tmp_path, monkeypatch):
    args, needs_traces = CASES[name]
    if needs_traces and not TRACES.is_dir():
        pytest.skip(f"trace excerpts not found at {TRACES}")
    # MCTS batches playouts by worker count: fix it so the result does not depend on the machine.
    monkeypatch.setenv("RAYON_NUM_THREADS", "2")
    out = tmp_path / "out.json"
    p = run_cli(*args, "--json", str(out))
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    # Provenance, not results: the command names this test's temporary file, the commit changes
    # with every commit.
    for key in PROVENANCE:
        d.pop(key, None)
    text = json.dumps(d, indent=1, sort_keys=True) + "\n"
    # Trace paths depend on where the checkout is, not on the results.
    text = text.replace(str(TRACES), "<traces>")
    file = GOLDEN / f"{name}.json"
    if os.environ.get("SSDLAB_BLESS"):
        GOLDEN.mkdir(exist_ok=True)
        file.write_text(text)
        return
    assert file.is_file(), f"no golden output {file}; record with SSDLAB_BLESS=1"
    want = file.read_text()
    if want != text:
        at = next((i for i, (a, b) in enumerate(zip(want, text)) if a != b), min(len(want), len(text)))
        pytest.fail(f"{name} changed at char {at}:\n recorded: …{want[max(0, at - 150):at + 80]}…\n now:      …{text[max(0, at - 150):at + 80]}…")


def test_every_golden_file_has_a_case():
    for f in GOLDEN.glob("*.json"):
        assert f.stem in CASES, f"tests/golden/{f.name} belongs to no case"
