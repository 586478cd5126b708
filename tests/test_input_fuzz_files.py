"""Issue 58: the fuzzing of Q-tables (the plot's reader and the core's loader), saved trees and
diskstats recordings (``test_input_fuzz`` has specs and result JSONs; a file of their own so
that the two halves run on two workers)."""
from __future__ import annotations

import json

import pytest

from input_mutations import CASES, cases, cli_code, fuzz

pytestmark = pytest.mark.filterwarnings("ignore")


def test_q_tables(tmp_path):
    from ssdlab.cli import main

    q = tmp_path / "q0.json"

    assert cli_code(main, ["run", "-d", "tiny", "-n", "2000", "--gc", "rlgc", "--q-table", str(q), "--no-progress"]) == 0
    base = json.loads(q.read_text())
    from ssdlab.plots import load

    small = {**base, "states": 6, "values": base["values"][:6]}  # what the plot reads, ~10× faster
    fuzz(tmp_path, "q.json", small, json.dumps, load, seed=30)
    n = max(100, CASES // 50)  # through the core's loader: each case a short simulation
    path = tmp_path / "qc.json"
    codes = [cli_code(main, ["run", "-d", "tiny", "-n", "50", "--gc", "rlgc", "--q-table", str(path), "--no-progress"],
                  path) for data in cases(31, n, base, json.dumps) if path.write_bytes(data) or True]
    assert codes.count(2) > n // 10


@pytest.fixture(scope="module")
def tree_text(tmp_path_factory):
    from ssdlab.cli import main

    p = tmp_path_factory.mktemp("tree") / "tree.json"
    assert cli_code(main, ["detect", "train", "-o", str(p), "--seconds", "5", "-d", "tiny"]) == 0
    return p.read_text()


def test_saved_trees(tmp_path, tree_text):
    from ssdlab.cli_detect import load_model

    def load(path):
        load_model(path, "sda", 5)

    fuzz(tmp_path, "tree.json", json.loads(tree_text), json.dumps, load, seed=40)


def recording() -> str:
    snaps = []
    for i in range(6):
        t = 100.0 + i
        snaps.append(f"# uptime {t:.2f}\n   8       0 sda {10 * i} 0 {80 * i} {3 * i} {20 * i} 0 {160 * i} {9 * i} 0 "
                     f"{7 * i} {12 * i} 0 0 0 0 0 0\n   8       1 sda1 1 0 8 1 1 0 8 1 0 1 2 0 0 0 0 0 0\n")
    return "".join(snaps)


def test_diskstats_recordings(tmp_path):
    """A recording is text, not JSON: its mutations are of lines and fields."""
    from ssdlab import detect

    lines = recording().splitlines()

    def dump(v):
        return "\n".join(str(x) if not isinstance(x, str) else x for x in v) + "\n"

    def read(path):
        detect.iostat_columns(str(path), "sda", False)
        detect.recording_features(str(path), "sda", 2)

    fuzz(tmp_path, "rec.txt", lines, dump, read, seed=50)
