"""Issue 14, sweeps: specifications expanded into runs (and refused in one line), the results
store (typed Parquet rows, resumable, never half-written), the local process pool (a killed
worker loses no run; a run that kills its worker every time is an error row), failures as
rows, and the same rows whatever -j."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import ssdlab
from ssdlab import registry
from ssdlab.sweeps import SpecError, expand
from ssdlab.sweeps.executor import LocalPoolExecutor
from ssdlab.sweeps.keys import ARRIVAL_FIELDS, option_defaults
from ssdlab.sweeps.runner import execute
from ssdlab.sweeps.store import Store, StoreError
from conftest import terminal_sigint
from test_cli import assert_one_line_error

#: Short runs on the tiny preset (each a few ms to simulate).
BASE = '[base]\ndevice = "tiny"\nworkload.requests = 3000\noptions.precondition.random_passes = 0.5\n'
#: Columns that differ between two runs of the same configuration.
WALL = ["wall_time_s"]


def write_spec(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def grid(victims=("greedy", "fifo", "random"), spares=(0.15, 0.25), seeds=(1, 2), requests=3000) -> str:
    q = ", ".join(f'"{v}"' for v in victims)
    return (f'[base]\ndevice = "tiny"\nworkload.requests = {requests}\noptions.precondition.random_passes = 0.5\n'
            f'[grid]\nset.gc.victim = [{q}]\nset.geometry.spare_factor = {list(spares)}\nseed = {list(seeds)}\n')


def row_files(results: Path) -> list[Path]:
    return sorted((results / "rows").glob("*.parquet"))


def temporary_files(results: Path) -> list[Path]:
    return [p for p in results.rglob("*") if p.name.endswith(".tmp")]


# -- specifications --------------------------------------------------------------------------

def test_grid_is_the_cartesian_product_in_spec_order_then_the_runs(tmp_path):
    sw = expand(write_spec(tmp_path, grid() + '[[runs]]\nset.gc.victim = "greedy"\nset.gc.threshold_blocks = 4\n'))
    assert len(sw.tasks) == 3 * 2 * 2 + 1
    keys = [(t.config["set.gc.victim"], t.config["set.geometry.spare_factor"], t.config["seed"]) for t in sw.tasks[:12]]
    assert keys == [(v, s, d) for v in ("greedy", "fifo", "random") for s in (0.15, 0.25) for d in (1, 2)]
    last = sw.tasks[-1]
    assert last.config["set.gc.threshold_blocks"] == 4 and "set.geometry.spare_factor" not in last.config
    assert last.config["workload.requests"] == 3000  # [base] under every explicit run
    assert len({t.id for t in sw.tasks}) == len(sw.tasks)
    assert [t.id for t in expand(tmp_path / "spec.toml").tasks] == [t.id for t in sw.tasks]  # ids are stable
    assert sw.axes == ["seed", "set.gc.threshold_blocks", "set.gc.victim", "set.geometry.spare_factor"]
    t = sw.tasks[0]
    assert t.overrides == ('gc.victim="greedy"', "geometry.spare_factor=0.15")
    assert 'victim = "greedy"' in t.resolved_toml and "spare_factor = 0.15" in t.resolved_toml
    assert t.workload["kind"] == "synthetic" and t.workload["pattern"] == registry.default("synthetic pattern")
    assert t.options["precondition"] == {"random_passes": 0.5} and t.options["seed"] == 1


def test_table_valued_axes_set_several_keys_and_kinds_mix(tmp_path):
    sw = expand(write_spec(tmp_path, '[base]\ndevice = "tiny"\nworkload.requests = 1000\n[grid]\n'
                           'workload = [{pattern = "zipf", zipf_theta = 0.5}, {name = "home1"}, '
                           '{personality = "varmail", trim = "discard"}]\n'
                           'options = [{queue_depth = 4}, {queue_depth = 32, timing = false}]\n'))
    kinds = [t.workload["kind"] for t in sw.tasks]
    assert kinds == ["synthetic"] * 2 + ["preset"] * 2 + ["fs"] * 2
    assert sw.tasks[0].workload["zipf_theta"] == 0.5 and sw.tasks[4].workload["trim"] == "discard"
    assert sw.tasks[1].options["timing"] is False and sw.tasks[1].options["replay"]["queue_depth"] == 32


def test_one_configuration_spelled_two_ways_is_one_run(tmp_path):
    """The id hashes the resolved configuration: the tiny preset's own spare factor, a
    workload default written out and a whole number for a float field change nothing."""
    spec = {"base": {"device": "tiny", "workload": {"requests": 1000}},
            "runs": [{}, {"set": {"geometry": {"spare_factor": 0.2}}, "workload": {"read_fraction": 0}},
                     {"seed": 2}]}
    sw = expand(spec)
    assert sw.duplicates == 1 and len(sw.tasks) == 2
    assert sw.tasks[0].options["seed"] == 1 and sw.tasks[1].options["seed"] == 2


def test_device_files_and_traces_are_found_beside_the_spec(tmp_path, monkeypatch):
    sub = tmp_path / "exp"
    sub.mkdir()
    (sub / "dev.toml").write_text(ssdlab.Device("tiny").resolved_toml())
    (sub / "t.csv").write_text("0,W,0,4096\n100,W,4096,4096\n")
    monkeypatch.chdir(tmp_path)  # elsewhere: paths start from the spec's folder
    sw = expand(write_spec(sub, '[base]\ndevice = "dev.toml"\nworkload.path = "t.csv"\n'
                                '[grid]\nworkload.lba_map = ["none", "modulo"]\n'))
    t = sw.tasks[0]
    assert t.device_source == str(sub / "dev.toml") and t.device_text == (sub / "dev.toml").read_text()
    assert t.workload["kind"] == "trace" and t.workload["path"] == str(sub / "t.csv")
    assert t.options["replay"]["mode"] == "open-loop"
    r = execute(t)  # a worker needs the trace, not the device file
    assert r.status == "ok" and r.results["requests.total"] == 2 and r.results["backlog_fraction"] >= 0


@pytest.mark.parametrize("text, fragments", [
    ("[base]\nfoo = 1\n", ["spec.toml: base.foo: unknown key", "workload.<field>"]),
    ("[grd]\n", ["spec.toml: grd: unknown table", "[grid]"]),
    ("[grid]\nseed = []\n", ["grid.seed: expected a non-empty list"]),
    ("[grid]\nseed = 3\n", ["grid.seed: expected a list of values", "got 3"]),
    ("[base]\nseed = [1, 2]\n", ["base.seed", "put it in [grid]"]),
    ("[grid]\nworkload.read_fraction = [0.5, 1.5]\n", ["grid.workload.read_fraction[1]", "[0, 1]", "1.5"]),
    ("[base]\nworkload.requests = 10.5\n", ["base.workload.requests", "whole number", "10.5"]),
    ("[base]\noptions.queue_depth = 0\n", ["base.options.queue_depth", "≥ 1", "got 0"]),
    ("[base]\noptions.bogus = 1\n", ["base.options.bogus: unknown run option", "queue_depth"]),
    ("[base]\nworkload.pattern = \"zipff\"\n", ["base.workload.pattern", "uniform, hotcold, zipf, sequential"]),
    ("[base]\nworkload.name = \"home1\"\nworkload.read_fraction = 0.5\n", ["base.workload.read_fraction",
                                                                          "does not apply to a preset workload"]),
    ("[base]\nworkload.pattern = \"uniform\"\nworkload.personality = \"varmail\"\n", ["one workload kind per run"]),
    ("[base]\nworkload.arrival.kind = \"poisson\"\n", ["base.workload.arrival.iops: missing"]),
    ("[base]\nworkload.path = \"missing.csv\"\n", ["base.workload.path: expected a trace file"]),
    ("[base]\ndevice = \"nope\"\n", ["base.device: expected a preset", "tiny", "'nope'"]),
    ("[base]\nset.gc.vitcim = \"fifo\"\n", ["base.set.gc.vitcim: unknown field", "victim"]),
    ("[grid]\nset.gc.victim = [\"fifo\", \"bogus\"]\n", ["grid.set.gc.victim[1]", "unknown victim policy 'bogus'"]),
    ("[base]\nset.geometry.spare_factor = \"abc\"\n", ["base.set.geometry.spare_factor: invalid type"]),
    ("[grid]\nset.gc = [{victim = \"fifo\"}]\n\"set.gc.victim\" = [\"random\"]\n", ["sets set.gc.victim",
                                                                               "each key on one axis"]),
    ("[base]\noptions.iostat_interval_us = 1e6\n", ["base.options.iostat_interval_us: not a sweep option"]),
    ("[base\n", ["spec.toml:1: invalid TOML"]),
])
def test_a_bad_spec_is_one_line(cli, tmp_path, text, fragments):
    spec = write_spec(tmp_path, text)
    assert_one_line_error(cli("sweep", str(spec), "--dry-run"), *fragments)
    assert not (tmp_path / "spec.results").exists()


def test_spec_errors_are_config_errors_in_python():
    with pytest.raises(ssdlab.ConfigError, match=r"^spec: grid.seed\[1\]: expected a whole number"):
        expand({"grid": {"seed": [1, 2.5]}})
    with pytest.raises(SpecError, match="runs: expected an array of tables"):
        expand({"runs": 3})


def test_key_tables_agree_with_the_core():
    assert set(ARRIVAL_FIELDS) == set(registry.names("arrival process"))
    import inspect
    assert set(option_defaults()) <= set(inspect.signature(ssdlab.build_options).parameters)


def test_example_expands_to_at_least_50_short_runs(cli, tmp_path):
    p = cli("sweep", "--example")
    assert p.returncode == 0, p.stderr
    sw = expand(write_spec(tmp_path, p.stdout))
    assert len(sw.tasks) >= 50
    victims = {t.config["set.gc.victim"] for t in sw.tasks}
    assert len(victims) == len(registry.names("victim policy"))  # every policy of the registry
    assert {t.config["device"] for t in sw.tasks} == {"tiny"}
    assert max(t.workload["requests"] for t in sw.tasks) <= 50_000
    assert all(t.resolved_toml for t in sw.tasks)
    assert_one_line_error(cli("sweep", "--example", str(tmp_path / "spec.toml")), "--example", "no SPEC")


# -- running ---------------------------------------------------------------------------------

def test_sweep_end_to_end_same_rows_whatever_j(cli, tmp_path):
    spec = write_spec(tmp_path, grid())  # 12 runs
    a, b = tmp_path / "a", tmp_path / "b"
    p1 = cli("sweep", str(spec), "-o", str(a), "-j", "1")
    assert p1.returncode == 0, p1.stderr
    assert "12 runs, 0 in" in p1.stdout and "12 runs in" in p1.stdout and "(12 ok, 0 errors)" in p1.stdout
    assert len([l for l in p1.stderr.splitlines() if l.startswith("[") and " ok " in l]) == 12  # plain progress lines
    p2 = cli("sweep", str(spec), "-o", str(b), "-j", "2")
    assert p2.returncode == 0, p2.stderr
    da, db = ssdlab.load(a), ssdlab.load(b)
    assert len(da) == 12 and list(da.id) == sorted(t.id for t in expand(spec).tasks)
    assert da.drop(columns=WALL).equals(db.drop(columns=WALL))
    # In this process (the Python API), the same rows again, in the spec's order.
    dc = ssdlab.sweep(spec, jobs=0)
    assert list(dc.id) == [t.id for t in expand(spec).tasks]
    assert dc.sort_values("id").reset_index(drop=True).drop(columns=WALL).equals(da.drop(columns=WALL))
    # Typed columns: counts are integers, rates floats; configuration as given.
    assert da["erases"].dtype == np.int64 and da["waf"].dtype == np.float64
    assert da["set.geometry.spare_factor"].dtype == np.float64 and da["seed"].dtype == np.int64
    assert (da.status == "ok").all() and (da.waf > 1).all() and (da.attempts == 1).all()
    assert set(da.device_name) == {"tiny"} and da.device_hash.nunique() == 6  # 3 victims × 2 spares
    # Compacted: one table, no row files; every run's time series beside it.
    assert (a / "results.parquet").is_file() and not row_files(a)
    assert len(list((a / "series").glob("*.parquet"))) == 12
    s = ssdlab.sweeps.series(a, da.id[0])
    assert len(s["time_s"]) > 0 and set(s) >= {"time_s", "free_blocks", "waf"}
    # A row's setup runs it again, bit for bit.
    r = ssdlab.rerun(json.loads(da.setup[3]))
    assert r.waf == da.waf[3] and r.latency_us.write.p99 == da["latency_us.write.p99"][3]
    # Run again: nothing to do.
    p3 = cli("sweep", str(spec), "-o", str(a))
    assert p3.returncode == 0 and "12 in" in p3.stdout and "0 to run" in p3.stdout, p3.stdout


def test_resume_runs_only_what_is_missing(cli, tmp_path):
    spec = write_spec(tmp_path, grid(victims=("greedy", "fifo"), spares=(0.15,), seeds=(1, 2, 3, 4, 5)))
    out = tmp_path / "r"
    assert cli("sweep", str(spec), "-o", str(out), "--no-compact", "-j", "1").returncode == 0
    files = row_files(out)
    assert len(files) == 10
    kept = {f.name: f.read_bytes() for f in files[3:]}
    for f in files[:3]:
        f.unlink()
    p = cli("sweep", str(spec), "-o", str(out), "--no-compact", "-j", "1")
    assert p.returncode == 0, p.stderr
    assert "7 in" in p.stdout and "3 to run" in p.stdout, p.stdout
    assert {f.name: f.read_bytes() for f in row_files(out) if f.name in kept} == kept  # finished rows untouched
    df = ssdlab.load(out)
    assert sorted(df.id) == sorted(t.id for t in expand(spec).tasks) and df.id.is_unique


def _descendants(pid: int) -> list[int]:
    """Process ids below ``pid`` (a /proc scan)."""
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            parent[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        frontier += kids
    return out


def _workers(pid: int) -> list[int]:
    out = []
    for c in _descendants(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes():
                out.append(c)
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture
def start():
    """Start the CLI in the background; whatever the test's end, it is not left running."""
    procs = []

    def run(args: list[str]) -> subprocess.Popen:
        env = dict(os.environ, COLUMNS="200")
        procs.append(subprocess.Popen([sys.executable, "-m", "ssdlab", *args], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env, preexec_fn=terminal_sigint))
        return procs[-1]

    yield run
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.communicate(timeout=60)


def _wait_for(cond, proc: subprocess.Popen, what: str) -> None:
    while not cond():
        assert proc.poll() is None, f"sweep ended before {what}: {proc.communicate()}"
        time.sleep(0.01)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_interrupted_sweep_keeps_its_rows_and_resumes(cli, start, tmp_path):
    spec = write_spec(tmp_path, grid(victims=("greedy", "fifo"), spares=(0.15, 0.2), seeds=(1, 2, 3, 4, 5),
                                     requests=500_000))
    out = tmp_path / "r"
    proc = start(["sweep", str(spec), "-o", str(out), "-j", "1", "--no-compact"])
    _wait_for(lambda: len(row_files(out)) >= 2, proc, "two rows were stored")
    workers = _workers(proc.pid)
    assert workers
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, (stdout, stderr)
    assert "interrupted" in stderr and "Traceback" not in stderr, stderr
    stored = row_files(out)
    assert 2 <= len(stored) < 20 and not temporary_files(out)
    for f in stored:  # whole rows
        assert pq.read_table(f).column("status").to_pylist() == ["ok"]
    assert not [w for w in workers if _alive(w)]  # no worker left behind
    p = cli("sweep", str(spec), "-o", str(out), "-j", "1")
    assert p.returncode == 0, p.stderr
    assert f"{len(stored)} in" in p.stdout, p.stdout
    df = ssdlab.load(out)
    assert sorted(df.id) == sorted(t.id for t in expand(spec).tasks) and df.id.is_unique
    assert (df.status == "ok").all()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_killed_worker_loses_no_run(start, tmp_path):
    spec = write_spec(tmp_path, grid(victims=("greedy", "fifo"), spares=(0.15, 0.2), seeds=(1, 2), requests=500_000))
    out = tmp_path / "r"
    proc = start(["sweep", str(spec), "-o", str(out), "-j", "2"])
    _wait_for(lambda: _workers(proc.pid), proc, "a worker started")
    stored_at_kill = len(row_files(out))
    os.kill(_workers(proc.pid)[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, (stdout, stderr)
    assert stored_at_kill < 8
    df = ssdlab.load(out)
    assert sorted(df.id) == sorted(t.id for t in expand(spec).tasks) and df.id.is_unique
    assert (df.status == "ok").all(), df.error.tolist()
    assert (df.attempts == 2).any()  # the runs in flight when the worker died ran again
    assert not temporary_files(out)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_killed_sweep_leaves_whole_rows_no_orphan_and_resumes(cli, start, tmp_path):
    spec = write_spec(tmp_path, grid(victims=("greedy", "fifo"), spares=(0.15, 0.2), seeds=(1, 2), requests=500_000))
    out = tmp_path / "r"
    proc = start(["sweep", str(spec), "-o", str(out), "-j", "2", "--no-compact"])
    _wait_for(lambda: row_files(out), proc, "a row was stored")
    workers = _workers(proc.pid)
    proc.kill()
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 60  # a bound on waiting, not a measurement: workers leave within ~1 s
    while [w for w in workers if _alive(w)] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert workers and not [w for w in workers if _alive(w)]  # orphaned workers left
    stored = row_files(out)
    assert 1 <= len(stored) < 8
    for f in stored:
        assert pq.read_table(f).num_rows == 1
    p = cli("sweep", str(spec), "-o", str(out), "-j", "2")
    assert p.returncode == 0 and f"{len(stored)} in" in p.stdout, (p.stdout, p.stderr)
    df = ssdlab.load(out)
    assert sorted(df.id) == sorted(t.id for t in expand(spec).tasks) and df.id.is_unique
    assert not temporary_files(out)


def die_on_second(task):
    """A worker function whose run of one task always kills its own process."""
    if task.config["seed"] == 2 and task.config["set.gc.victim"] == "fifo":
        os.kill(os.getpid(), signal.SIGKILL)
    return execute(task)


def test_a_run_that_kills_its_worker_every_time_is_an_error_row(tmp_path):
    tasks = expand(write_spec(tmp_path, grid(victims=("greedy", "fifo"), spares=(0.15,), seeds=(1, 2)))).tasks
    ex = LocalPoolExecutor(2, fn=die_on_second)
    outcomes = {o.id: o for o in ex.run(tasks)}
    assert sorted(outcomes) == sorted(t.id for t in tasks)
    culprit = next(t for t in tasks if t.config["seed"] == 2 and t.config["set.gc.victim"] == "fifo")
    assert outcomes[culprit.id].status == "error" and outcomes[culprit.id].attempts == 2
    assert "worker process died" in outcomes[culprit.id].error
    assert all(o.status == "ok" for i, o in outcomes.items() if i != culprit.id)  # the runs beside it were not blamed
    assert ex.pools_started >= 3  # restarted after each death


def test_device_advisories_are_said_once_each_with_where_they_come_from(cli, tmp_path):
    # tiny's 4 planes: 8 and 12 static SLC blocks are 2 and 3 a plane, at or below the default
    # trigger of 5 (every write migrates), and each is said once for its two seeds; 0 is none.
    spec = write_spec(tmp_path, BASE + 'set.ftl.kind = "hybrid"\nset.cache.slc = "static"\n[grid]\nset.cache.slc_blocks = [8, 12, 0]\nseed = [1, 2]\n')
    sw = expand(spec)
    assert len(sw.tasks) == 6 and len(sw.advisories) == 2, sw.advisories
    assert sw.advisories[0].startswith(f"{spec}: grid.set.cache.slc_blocks[0]: cache.slc_blocks: 8 SLC blocks")
    assert sw.advisories[1].startswith(f"{spec}: grid.set.cache.slc_blocks[1]: cache.slc_blocks: 12 SLC blocks")
    p = cli("sweep", str(spec), "--dry-run", "-o", str(tmp_path / "r"))
    assert p.returncode == 0, p.stderr
    assert [line for line in p.stderr.splitlines() if "warning" in line] == [f"ssdlab: warning: {a}" for a in sw.advisories]
    assert expand(write_spec(tmp_path, grid(), "plain.toml")).advisories == []


def test_a_failing_run_is_an_error_row_and_the_sweep_goes_on(cli, tmp_path):
    spec = write_spec(tmp_path, BASE + "[grid]\nset.geometry.spare_factor = [0.2, 1.5]\nseed = [1, 2]\n")
    out = tmp_path / "r"
    p = cli("sweep", str(spec), "-o", str(out), "-j", "2")
    assert p.returncode == 0, p.stderr
    assert "ssdlab: warning: 2 of 4 runs failed" in p.stderr and "(2 ok, 2 errors)" in p.stdout
    df = ssdlab.load(out)
    bad = df[df["set.geometry.spare_factor"] == 1.5]
    assert len(bad) == 2 and (bad.status == "error").all() and bad.waf.isna().all()
    assert all(e.count("\n") == 0 and "geometry.spare_factor: expected a fraction in (0, 1), got 1.5" in e
               for e in bad.error)
    good = df[df["set.geometry.spare_factor"] == 0.2]
    assert (good.status == "ok").all() and good.error.isna().all()
    again = cli("sweep", str(spec), "-o", str(out), "--retry-errors", "-j", "1")
    assert again.returncode == 0 and "2 in" in again.stdout and "2 to run" in again.stdout, again.stdout
    assert ssdlab.load(out).id.is_unique
    # A store of error rows only has the result columns too (null), so its schema is the same.
    only = ssdlab.sweep(write_spec(tmp_path, BASE + "[grid]\nset.geometry.spare_factor = [1.5]\n", "bad.toml"), jobs=0)
    assert list(only.status) == ["error"] and only["waf"].isna().all() and only["erases"].isna().all()
    assert pq.read_table(tmp_path / "r" / "results.parquet").schema.field("erases").type == "int64"
    assert set(df.columns) == set(only.columns)


# -- on Ray: what is refused without it (the Ray tests themselves: test_sweep_ray.py) ---------

def test_ray_option_errors_are_one_line_with_or_without_ray(cli, tmp_path, monkeypatch):
    spec = write_spec(tmp_path, grid(victims=("greedy",), spares=(0.2,), seeds=(1,)))
    assert_one_line_error(cli("sweep", str(spec), "--ray", ""), "--ray", "expected local or a Ray cluster's address")
    assert_one_line_error(cli("sweep", str(spec), "--ray", "local", "-j", "0"), "--jobs/-j", "at least 1 with --ray")
    # Ray missing: a 'ray' package that cannot be imported, first on the path of the sweep's process.
    fake = tmp_path / "no-ray" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'ray'\", name=\"ray\")\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(fake.parent), *filter(None, [os.environ.get("PYTHONPATH")])]))
    p = cli("sweep", str(spec), "--ray", "local")
    assert_one_line_error(p, "--ray: needs the ray extra (pip install 'ssdlab[ray]')")
    assert p.stderr.strip() == "ssdlab: error: --ray: needs the ray extra (pip install 'ssdlab[ray]')"
    assert not (tmp_path / "spec.results").exists()  # refused before anything ran
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"needs the ray extra \(pip install 'ssdlab\[ray\]'\)"):
        ssdlab.sweep(spec, ray="local")
    with pytest.raises(ValueError, match="expected local or a Ray cluster's address"):
        ssdlab.sweep(spec, ray=" ")


# -- the store -------------------------------------------------------------------------------

def test_a_failed_write_leaves_the_stored_rows_and_no_partial_file(tmp_path, monkeypatch):
    tasks = expand(write_spec(tmp_path, grid(victims=("greedy",), spares=(0.2,), seeds=(1, 2)))).tasks
    from ssdlab.sweeps.runner import make_row

    with Store(tmp_path / "r") as store:
        first = execute(tasks[0])
        store.write(make_row(tasks[0], first), first.series)

        def full(fd):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fsync", full)
        second = execute(tasks[1])
        with pytest.raises(StoreError, match="No space left on device"):
            store.write(make_row(tasks[1], second), second.series)
    assert [f.stem for f in row_files(tmp_path / "r")] == [tasks[0].id]
    assert not temporary_files(tmp_path / "r")
    assert Store(tmp_path / "r").statuses() == {tasks[0].id: "ok"}


def test_one_sweep_at_a_time_per_store_and_only_in_a_store(tmp_path):
    with Store(tmp_path / "r"):
        with pytest.raises(StoreError, match="another sweep is writing"):
            Store(tmp_path / "r").open()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not a sweep results store"):
        Store(tmp_path / "other").open()


def test_stores_of_different_specs_read_as_one_table(tmp_path):
    out = tmp_path / "r"
    ssdlab.sweep(write_spec(tmp_path, grid(victims=("greedy",), spares=(0.2,), seeds=(1,))), jobs=0, out=out)
    ssdlab.sweep({"base": {"device": "tiny", "workload": {"requests": 1000, "pattern": "zipf"}},
                  "grid": {"set.gc.threshold_blocks": [3, 4]}}, jobs=0, out=out)
    df = ssdlab.load(out)
    assert len(df) == 3 and df.id.is_unique
    assert df["set.gc.threshold_blocks"].isna().sum() == 1 and df["workload.pattern"].isna().sum() == 1


def test_without_pandas_the_api_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"ssdlab\[parquet\]"):
        ssdlab.load(tmp_path)
    with pytest.raises(ImportError, match=r"ssdlab\[parquet\]"):
        ssdlab.sweep({"base": {"device": "tiny"}})


def test_columns_whose_types_disagree_read_as_text(tmp_path):
    """Two specs may give one key values of different types (a number here, a name there)."""
    with Store(tmp_path / "r") as store:
        store.write({"id": "a", "status": "ok", "error": None, "set.gc.rl.q_table": 1, "waf": 2.0})
        store.write({"id": "b", "status": "error", "error": "x", "set.gc.rl.q_table": "q.json"})
    t = Store(tmp_path / "r").read()
    assert t.column("set.gc.rl.q_table").to_pylist() == ["1", "q.json"]
    assert t.column("waf").to_pylist() == [2.0, None] and t.column_names[:3] == ["id", "status", "error"]


def test_a_pool_that_breaks_while_spawning_a_worker_is_restarted(tmp_path, monkeypatch):
    # CPython's pool can fail submit with OSError('handle is closed') when a worker dies while
    # the next one is being spawned (seen in CI): the pool is restarted as for any death.
    tasks = expand(write_spec(tmp_path, grid(victims=("greedy", "fifo"), spares=(0.15,), seeds=(1, 2)))).tasks
    ex = LocalPoolExecutor(2)
    real_new_pool = LocalPoolExecutor._new_pool

    def new_pool(self):
        pool = real_new_pool(self)
        if self.pools_started == 1:
            submit, calls = pool.submit, []

            def failing_submit(*a, **k):
                calls.append(1)
                if len(calls) == 2:
                    pool._broken = "a child process terminated abruptly"
                    raise OSError("handle is closed")
                return submit(*a, **k)
            pool.submit = failing_submit
        return pool
    monkeypatch.setattr(LocalPoolExecutor, "_new_pool", new_pool)
    outcomes = {o.id: o for o in ex.run(tasks)}
    assert sorted(outcomes) == sorted(t.id for t in tasks)
    assert all(o.status == "ok" for o in outcomes.values())
    assert ex.pools_started == 2


def test_an_oserror_of_a_healthy_pool_is_not_hidden(tmp_path, monkeypatch):
    tasks = expand(write_spec(tmp_path, grid(victims=("greedy",), spares=(0.15,), seeds=(1,)))).tasks
    ex = LocalPoolExecutor(1)
    real_new_pool = LocalPoolExecutor._new_pool

    def new_pool(self):
        pool = real_new_pool(self)

        def failing_submit(*a, **k):
            raise OSError("no more processes")
        pool.submit = failing_submit
        return pool
    monkeypatch.setattr(LocalPoolExecutor, "_new_pool", new_pool)
    with pytest.raises(OSError, match="no more processes"):
        list(ex.run(tasks))
