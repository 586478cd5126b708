"""Offline cleaning end to end (Shafaei & Desnoyers): the CLI on the Table I toy problems and on
the CloudPhysics excerpt, the typed Python API, and bad input as one-line errors."""
from __future__ import annotations

import json
import math

import pytest

from ssdlab import offline
from test_cli import assert_one_line_error

CLOUDPHYSICS = "cloudphysics/cloudPhysicsIO.vscsi"


def test_toy_tables_one_and_two(cli, tmp_path):
    """Table I at the paper's difficulty (issue 17): footprints span 15-29, every draw's pruned
    search within one internal write of the optimum, traverses counted on the unbounded trees
    (pruned in the paper's tens to thousands, exhaustive 10^8 and more), and Table II's MCTS
    reaching the pruned DFS's result."""
    out = tmp_path / "t1.json"
    p = cli("experiment", "offline", "--toy", "--draws", "2", "--json", str(out), "--report", str(tmp_path / "t1.html"))
    assert p.returncode == 0, p.stderr
    assert "Table I" in (tmp_path / "t1.html").read_text()
    assert "Table I" in p.stdout and "Table II" in p.stdout
    d = json.loads(out.read_text())
    traces = d["traces"]
    assert set(traces) == set(offline.TOY_DISTRIBUTIONS) and d["draws"] == 2
    footprints = set()
    greedy_worse = 0
    for dist, summary in traces.items():
        draws = summary["draws"]
        assert set(draws) == {"1", "2"}
        # The keys a single run has, here over the draws (means; issue 17 keeps them).
        for k, agg in summary["methods"].items():
            per = [t["methods"][k] for t in draws.values()]
            assert agg["draws"] == 2 and agg["internal_writes_per_draw"] == [r["internal_writes"] for r in per]
            assert agg["internal_writes"] == sum(r["internal_writes"] for r in per) / 2
            assert agg["schedules_explored"] == sum(r["schedules_explored"] for r in per) / 2
            assert agg["traverses_min"] <= agg["traverses"] <= agg["traverses_max"]
        assert summary["footprint"] == offline.TOY_DEFAULTS["footprints"][dist]
        for t in draws.values():
            m = t["methods"]
            ex, pr, gr = (m[k]["internal_writes"] for k in ("exhaustive", "pruned", "greedy"))
            assert ex <= pr <= gr and pr <= ex + 1, dist
            assert m["exhaustive"]["complete"] and m["pruned"]["complete"]
            assert t["problem"]["blocks"] == 8 and t["problem"]["pages_per_block"] == 4
            assert t["problem"]["page_writes"] == 46
            assert t["problem"]["footprint"] == offline.TOY_DEFAULTS["footprints"][dist]
            footprints.add(t["problem"]["footprint"])
            assert m["pruned"]["params"]["psi"] == offline.TOY_DEFAULTS["psi"]
            # Traverses: greedy is one path; the pruned tree is counted exactly and is small;
            # the complete graph is estimated and is huge.
            assert m["greedy"]["traverses"] == 1
            assert not m["pruned"]["traverses_estimated"] and 1 <= m["pruned"]["traverses"] <= 5_000
            assert m["exhaustive"]["traverses"] >= 10**7
            assert m["exhaustive"]["traverses"] > 1000 * m["pruned"]["traverses"]
            # The bounded search visits fewer schedules than the unbounded tree has.
            assert m["pruned"]["schedules_explored"] <= m["pruned"]["traverses"]
            mc = t["mcts"]
            assert mc["target"] == pr and mc["budget"] == m["pruned"]["traverses"]
            assert all(n is not None for n in mc["playouts_needed"]), (dist, mc)
            greedy_worse += gr > ex
    assert min(footprints) == 15 and max(footprints) == 29
    assert greedy_worse > 0


def test_experiment_on_toy_has_every_method_under_methods(cli, tmp_path):
    out = tmp_path / "e.json"
    p = cli("experiment", "offline", "--workload", "toy-uniform", "--playouts", "256", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "convergence" in p.stdout and "improvement" not in p.stderr
    d = json.loads(out.read_text())
    m = d["methods"]
    assert set(m) == {"greedy", "fifo", "cost-benefit", "d-choices", "mcts", "exhaustive", "pruned"}
    for r in m.values():
        for k in ("internal_writes", "waf", "cleanings", "improvement_pct", "better_than_greedy", "revalidated"):
            assert k in r
        assert r["revalidated"]
    g = m["greedy"]["internal_writes"]
    assert m["exhaustive"]["internal_writes"] <= m["pruned"]["internal_writes"] <= g
    assert m["mcts"]["internal_writes"] <= g
    assert d["convergence"] == m["mcts"]["convergence"] and d["convergence"][-1]["playouts"] == 256


def test_offline_one_method_json(cli, tmp_path):
    out = tmp_path / "o.json"
    p = cli("offline", "--method", "mcts", "--workload", "toy-gamma", "--playouts", "64", "--seed", "3", "--json", str(out))
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())["methods"]["mcts"]
    assert r["playouts"] == 64 and r["seed"] == 3 and len(r["schedule"]) == r["cleanings"]
    assert r["traverses"] == 64 and not r["traverses_estimated"] and "traverses (unbounded tree)" in p.stdout
    assert r["internal_writes"] <= r["greedy_internal_writes"]


def test_mcts_never_worse_than_greedy_and_reproducible():
    wl = {"kind": "synthetic", "pattern": "hotcold", "requests": 20_000}
    kw = dict(pages_per_block=16, spare=0.1, logical_pages=2048)
    mcts = offline.method("mcts", playouts=32, workers=2)
    for seed in (1, 2, 3):
        a = offline.run_offline(wl, ["greedy", mcts], seed=seed, **kw)
        b = offline.run_offline(wl, mcts, seed=seed, **kw)
        assert a.reports["mcts"].internal_writes <= a.reports["greedy"].internal_writes
        assert a.reports["mcts"].schedule == b.reports["mcts"].schedule
        assert a.reports["mcts"].convergence == b.reports["mcts"].convergence
    assert a.problem.blocks == math.ceil(a.problem.footprint / (16 * (1 - 0.1))) + 1


@pytest.mark.parametrize("args,fragments", [
    (["offline", "--method", "belady", "--workload", "toy-uniform"], ["unknown offline method 'belady'", "mcts"]),
    (["offline", "--method", "greedy", "--workload", "uniform", "--blocks", "1", "--pages-per-block", "8"], ["offline.blocks"]),
    (["offline", "--method", "greedy", "--trace", "/nonexistent/x.vscsi"], ["/nonexistent/x.vscsi"]),
    (["offline", "--method", "mcts", "--workload", "toy-uniform", "--param", "playoutz=8"], ["unknown field", "playoutz"]),
    (["offline", "--method", "mcts", "--workload", "toy-uniform", "--param", "playout=fast"], ["fast", "best-online", "greedy"]),
    # A bad value names its parameter and method (the methods are an internally tagged enum,
    # whose path serde cannot see: each parameter is tried alone).
    (["offline", "--method", "mcts", "--workload", "toy-uniform", "--param", "psi=fast"],
     ["offline.method mcts: psi:", "expected u32"]),
    (["offline", "--method", "d-choices", "--workload", "toy-uniform", "--param", "d=-1"],
     ["offline.method d-choices: d:", "expected u32"]),
    (["offline", "--method", "greedy", "--workload", "toy-beta"], ["unknown workload 'toy-beta'"]),
    (["offline", "--method", "greedy"], ["exactly one of --trace"]),
    (["experiment", "offline", "--workload", "uniform", "--spare", "1.5"], ["--spare", "(0, 1)", "got 1.5"]),
    (["experiment", "offline", "--workload", "toy-normal", "--psi", "9"], ["psi"]),
])
def test_bad_input_is_one_line(cli, args, fragments):
    assert_one_line_error(cli(*args), *fragments)


def test_cloudphysics_mcts_vs_greedy_measured(cli, traces, tmp_path):
    path = traces / CLOUDPHYSICS
    if not path.exists():
        pytest.skip(f"{path} not found")
    out = tmp_path / "cp.json"
    p = cli("experiment", "offline", "--trace", str(path), "--playouts", "8", "--json", str(out), timeout=120)
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    pr, m = d["problem"], d["methods"]
    assert pr["footprint"] == pr["logical_pages"] > 100_000 and pr["prefill"]
    assert 0.07 <= pr["spare"] < 0.08
    g = m["greedy"]
    assert g["internal_writes"] > 0 and g["waf"] > 1.5  # GC is active
    assert m["mcts"]["internal_writes"] <= g["internal_writes"]
    assert m["mcts"]["improvement_pct"] >= 0 and m["mcts"]["revalidated"]
    assert "exhaustive" not in m
    # Figure 9: multi-frontier placements with greedy cleaning, beside the single-frontier rows.
    assert set(d["placements"]) == set(offline.PLACEMENTS)
    for pl in d["placements"].values():
        assert pl["host_writes"] == g["host_writes"] and pl["internal_writes"] >= 0 and "improvement_pct" in pl
    assert "placement: hot-cold" in p.stdout
    # The paper's conclusion on this trace: MCTS improves on greedy by a measurable amount, and
    # hot/cold placement (with plain greedy cleaning) by much more.
    mcts_gain = m["mcts"]["improvement_pct"]
    hot_cold_gain = d["placements"]["hot-cold"]["improvement_pct"]
    assert mcts_gain > 1.0, mcts_gain
    assert hot_cold_gain > 3 * mcts_gain and hot_cold_gain > 30, (hot_cold_gain, mcts_gain)


@pytest.mark.parametrize("spare", [0.07, 0.10])
def test_cloudphysics_mcts_at_least_the_best_online_policy(cli, traces, tmp_path, spare):
    """Issue 17: a near-optimal bound that an online policy beats is no bound. MCTS starts from
    the best online schedule and its playouts complete with the best deterministic online policy
    (measured 2026-11-24, 64 playouts: at 7 % spare cost-benefit is best online, −12.38 % vs
    greedy, MCTS −13.94 %; at 10 % greedy is, MCTS −3.91 %; before, with Greedy playouts and a
    Greedy incumbent, cost-benefit beat MCTS at 7 %)."""
    path = traces / CLOUDPHYSICS
    if not path.exists():
        pytest.skip(f"{path} not found")
    out = tmp_path / "cp.json"
    p = cli("experiment", "offline", "--trace", str(path), "--spare", str(spare), "--playouts", "16",
            "--no-placements", "--json", str(out), timeout=120)
    assert p.returncode == 0, p.stderr
    m = json.loads(out.read_text())["methods"]
    online = {k: v["internal_writes"] for k, v in m.items() if k in ("greedy", "fifo", "cost-benefit", "random", "d-choices")}
    assert {"greedy", "cost-benefit"} <= set(online)
    assert m["mcts"]["internal_writes"] <= min(online.values()), (m["mcts"]["internal_writes"], online)
    assert m["mcts"]["revalidated"]
