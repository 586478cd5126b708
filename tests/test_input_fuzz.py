"""Issue 58: the files ssdlab reads besides traces and device TOMLs, fuzzed — sweep specs, result
JSONs (what ``run --from``, ``plot`` and ``report`` read); ``test_input_fuzz_files`` has
Q-tables, saved trees and diskstats recordings. Each case is a valid file with one or two seeded mutations (``input_mutations``);
whatever it holds, reading it either works or raises one of ssdlab's errors whose message is
one line naming the file. Never a traceback, never a hang.

Each kind runs :data:`CASES` cases through the reader its commands call (the same function, in
process: 10^4 CLI processes would take most of CI's budget), and a few hundred of them through
the command itself (``test_commands_answer_mutated_files_in_one_line``), which checks the
printed line: ``ssdlab: error: …``, at most ``inputs.MAX_LINE`` characters, exit 2.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from input_mutations import CASES, cases, cli_code, fuzz
from ssdlab.sweeps.spec import toml_literal

pytestmark = pytest.mark.filterwarnings("ignore")

ROOT = Path(__file__).resolve().parent.parent

SPEC = {"sweep": {"name": "fuzz"},
        "base": {"device": "tiny", "workload": {"pattern": "uniform", "requests": 200}, "options": {"precondition": False}},
        "grid": {"set": {"gc": {"victim": ["greedy"]}}, "seed": [1, 2]},
        "runs": [{"seed": 3, "options": {"queue_depth": 4}}]}  # one device configuration: ~2 ms a case


def toml_dump(d: dict) -> str:
    """A TOML document of ``d``: one line per top-level key, tables inline."""
    lines = []
    for k, v in d.items():
        if k == "runs" and isinstance(v, list) and all(isinstance(r, dict) for r in v):
            lines += [f"[[runs]]\n" + "\n".join(f"{json.dumps(a)} = {toml_literal(b)}" for a, b in r.items()) for r in v]
        else:
            lines.insert(0, f"{json.dumps(k)} = {toml_literal(v)}")
    return "\n".join(lines) + "\n"


# -- the kinds ------------------------------------------------------------------------------------
def test_sweep_specs(tmp_path):
    from ssdlab.sweeps.spec import expand

    fuzz(tmp_path, "spec.toml", SPEC, toml_dump, expand, seed=1)


@pytest.fixture(scope="module")
def run_json(tmp_path_factory):
    import ssdlab

    r = ssdlab.simulate("tiny", ssdlab.workload.synthetic("uniform", 400), timing=True, seed=3, sample_interval_us=2000)
    return r.to_dict()


def read_result(path: Path):
    from ssdlab.cli_report import experiment_tables
    from ssdlab.plots import available, load

    src = load(path)
    available(src)
    experiment_tables(src)


RESULTS = ["experiment-offline-hotcold.json", "experiment-rlgc.json", "experiment-offline-toy.json",
           "experiment-ttflash-financial1.json"]


def trimmed(v, n: int = 6):
    """``v`` with every array cut to its first ``n`` elements: still a valid result (arrays
    that must agree in length are cut alike), and ~10× faster to mutate, write and read."""
    if isinstance(v, dict):
        return {k: trimmed(x, n) for k, x in v.items()}
    if isinstance(v, list):
        return [trimmed(x, n) for x in v[:n]]
    return v


def test_result_jsons(tmp_path, run_json):
    bases = [("run.json", run_json)] + [(n, json.loads((ROOT / "tests" / "golden" / n).read_text())) for n in RESULTS]
    share = {"run.json": 0.5, RESULTS[0]: 0.2, RESULTS[1]: 0.1, RESULTS[2]: 0.1, RESULTS[3]: 0.1}
    for i, (name, base) in enumerate(bases):
        base = trimmed(base)
        (tmp_path / name).write_text(json.dumps(base))
        read_result(tmp_path / name)  # the base itself is read
        fuzz(tmp_path, name, base, json.dumps, read_result, seed=10 + i, n=max(200, int(CASES * share[name])))


def test_run_from_setups(tmp_path, run_json):
    """``run --from``'s check of the setup (the simulation itself is the core's, whose input
    checks the API's tests cover): a mutated ``setup`` is refused naming the file, or runs."""
    from ssdlab.cli import main

    setup = json.loads(json.dumps(run_json["setup"]))
    setup["workload"]["requests"] = 20  # a case that passes the checks runs: ~5 ms, not ~16
    base = {"setup": setup}
    n = CASES
    path = tmp_path / "setup.json"
    seen = {0: 0, 2: 0}
    for data in cases(20, n, base, json.dumps):
        path.write_bytes(data)
        code = cli_code(main, ["run", "--from", str(path), "--no-progress"], path)
        seen[code] += 1
    assert seen[2] > n // 10, seen


# -- through the commands -------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["plot", "report"])
def test_commands_answer_mutated_files_in_one_line(tmp_path, run_json, kind):
    pytest.importorskip("matplotlib")
    from ssdlab.cli import main

    path = tmp_path / "r.json"
    n = max(12, CASES // 500)  # a report draws every figure: ~1 s a case
    codes = []
    for data in cases(60 if kind == "plot" else 61, n, run_json, json.dumps):
        path.write_bytes(data)
        args = ["plot", "ccdf", str(path), "-o", str(tmp_path / "f.png")] if kind == "plot" else \
            ["report", str(path), "-o", str(tmp_path / "r.html")]
        codes.append(cli_code(main, args, path))
    assert codes.count(2) > n // 10
