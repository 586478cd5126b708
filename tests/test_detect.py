"""The detection API of ``ssdlab.detect`` (issue 13): names and defaults come from the core, a
tree round-trips through JSON, and the streaming detector gives the same verdicts pushed live
as replayed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ssdlab import SsdlabError, detect

REC = Path(__file__).resolve().parents[1] / "crates" / "ssdlab-core" / "tests" / "data" / "detect" / "vda_dd.diskstats"


@pytest.fixture(scope="module")
def tree() -> detect.Tree:
    names = detect.feature_names()
    rows = detect.recording_features(str(REC), "vda")
    return detect.Tree.fit(names, rows, [int(r[names.index("w/s")] > 20) for r in rows])


def test_names_and_defaults_are_the_cores(tree):
    names = detect.feature_names()
    assert len(names) == 23 and names[0] == "rrqm/s" and "std_svctm" in names and "std_wkB/s" in names
    assert detect.DEFAULT_WINDOW == 50
    params = json.loads(tree.to_json())["params"]
    assert params == {"min_objs": 2, "cf": 0.25, "prune": True}


def test_tree_round_trips_and_predicts(tree, tmp_path):
    rows = detect.recording_features(str(REC), "vda")
    assert tree.predict(rows) == [1, 1, 0, 1, 0, 0]
    assert tree.rules_text().startswith("if w/s <= 0:")
    assert tree.classes == [0, 1] and tree.leaves == 2 and tree.feature_names == detect.feature_names()
    again = detect.Tree.from_json(tree.to_json())
    assert again.to_json() == tree.to_json()
    tree.save(str(tmp_path / "t.json"))
    assert detect.Tree.load(str(tmp_path / "t.json")).predict(rows) == tree.predict(rows)
    with pytest.raises(SsdlabError, match="rows\\[0\\]"):
        tree.predict([[1.0]])
    with pytest.raises(SsdlabError, match="c45.cf"):
        detect.Tree.fit(["a"], [[1.0], [2.0]], [0, 1], cf=0.0)


def test_pushed_snapshots_give_the_replay(tree):
    replayed = detect.Detector("vda", tree).replay(str(REC))
    live = detect.Detector("vda", tree, window=detect.DEFAULT_WINDOW)
    pushed = []
    for block in REC.read_text().split("# uptime ")[1:]:
        uptime, _, diskstats = block.partition("\n")
        step = live.push(uptime + " 0.00\n", diskstats)
        if step is not None:
            pushed.append(step)
    assert pushed == replayed
    assert [s["episode"] for s in pushed] == [1, 1, None, 2, None, None]
    assert [s["episode_start"] for s in pushed] == [True, False, False, True, False, False]
    assert list(pushed[0]["features"]) == detect.feature_names()
    assert pushed[0]["iostat"]["disk_device"] == "vda" and pushed[0]["iostat"]["w/s"] == pytest.approx(1013.8613861386)
    with pytest.raises(SsdlabError, match="expected device `sdz`"):
        detect.Detector("sdz", tree).push("1.00 0.00", " 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n")
