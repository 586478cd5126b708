"""Issue 14, sweeps on Ray (the ``ray`` extra): the same table as the local pool, row for row;
a run that kills its Ray worker is retried, then an error row, and the sweep goes on. The
errors given without Ray (the missing extra, a bad ``--ray``) are in test_sweep.py, which runs
without it."""
from __future__ import annotations

import logging
import os
import signal

import pytest

ray = pytest.importorskip("ray", reason="ray extra not installed: pip install 'ssdlab[ray]'")

import ssdlab  # noqa: E402
from ssdlab.sweeps import expand  # noqa: E402
from ssdlab.sweeps.executor_ray import RayExecutor  # noqa: E402
from ssdlab.sweeps.runner import execute  # noqa: E402
from test_sweep import WALL, grid, write_spec  # noqa: E402


@pytest.fixture(scope="module")
def connected():
    """This process connected to a local Ray instance of 2 CPUs, for the tests that drive the
    executor in-process (one Ray start for all of them: it takes seconds)."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_local_gives_the_pools_table_row_for_row(cli, tmp_path):
    """The issue's must-show: the example sweep (every victim policy × 5 spare factors × 2 seeds,
    50 short runs on the tiny preset) on the local pool and on a local Ray instance."""
    example = cli("sweep", "--example")
    assert example.returncode == 0, example.stderr
    spec = write_spec(tmp_path, example.stdout)
    assert len(expand(spec).tasks) >= 50
    pool, on_ray = tmp_path / "pool", tmp_path / "ray"
    p = cli("sweep", str(spec), "-o", str(pool), "-j", "2")
    assert p.returncode == 0, p.stderr
    r = cli("sweep", str(spec), "-o", str(on_ray), "--ray", "local", "-j", "2")
    assert r.returncode == 0, r.stderr
    assert "50 to run on Ray (local, 2 CPUs)" in " ".join(r.stdout.split()), r.stdout  # (rich wraps long lines)
    assert "(50 ok, 0 errors)" in r.stdout
    assert "Traceback" not in r.stderr and "ssdlab: error" not in r.stderr, r.stderr
    da, db = ssdlab.load(pool), ssdlab.load(on_ray)
    assert len(da) == 50 and (da.status == "ok").all()
    assert da.drop(columns=WALL).equals(db.drop(columns=WALL))
    assert (on_ray / "results.parquet").is_file() and len(list((on_ray / "series").glob("*.parquet"))) == 50
    # Run again: nothing to do, and Ray is not started for it.
    again = cli("sweep", str(spec), "-o", str(on_ray), "--ray", "local")
    assert again.returncode == 0 and "50 in" in again.stdout and "0 to run" in again.stdout, again.stdout
    assert "Ray" not in " ".join(again.stdout.split())


def test_a_run_that_kills_its_ray_worker_is_retried_then_an_error_row(tmp_path, connected):
    spec = write_spec(tmp_path, grid(victims=("greedy", "fifo", "random"), spares=(0.15,), seeds=(1, 2)))
    tasks = expand(spec).tasks
    always = next(t for t in tasks if t.config["set.gc.victim"] == "fifo" and t.config["seed"] == 2)
    once = next(t for t in tasks if t.config["set.gc.victim"] == "greedy" and t.config["seed"] == 1)
    raises = next(t for t in tasks if t.config["set.gc.victim"] == "random" and t.config["seed"] == 1)
    marker = tmp_path / "died-once"

    def dies(task):  # defined here, so Ray pickles it by value (the workers cannot import this file)
        if task.id == once.id and not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        if task.id == always.id:
            os.kill(os.getpid(), signal.SIGKILL)
        if task.id == raises.id:
            raise ModuleNotFoundError("No module named 'ssdlab'")  # as on a worker without ssdlab
        return execute(task)

    ex = RayExecutor("local", 2, fn=dies)
    with ex:
        outcomes = {o.id: o for o in ex.run(tasks)}
    assert ray.is_initialized()  # Ray was connected before: the executor left it so
    assert sorted(outcomes) == sorted(t.id for t in tasks)
    assert outcomes[always.id].status == "error" and outcomes[always.id].attempts == 2
    assert "worker process died" in outcomes[always.id].error
    assert outcomes[once.id].status == "ok" and outcomes[once.id].attempts == 2  # killed once, run again
    assert outcomes[raises.id].status == "error" and outcomes[raises.id].attempts == 1  # not a death: not retried
    assert outcomes[raises.id].error == "on Ray: ModuleNotFoundError: No module named 'ssdlab'"
    rest = [o for i, o in outcomes.items() if i not in (always.id, once.id, raises.id)]
    assert len(rest) == 3 and all(o.status == "ok" and o.attempts == 1 for o in rest)


def test_python_api_on_ray_and_the_in_flight_bound(tmp_path, connected):
    spec = write_spec(tmp_path, grid(victims=("greedy", "fifo"), spares=(0.15,), seeds=(1, 2)))
    on_ray = ssdlab.sweep(spec, ray="local", jobs=2)
    assert list(on_ray.id) == [t.id for t in expand(spec).tasks]
    assert on_ray.drop(columns=WALL).equals(ssdlab.sweep(spec, jobs=0).drop(columns=WALL))
    # Two runs in flight per CPU; on a cluster, -j N caps them at N.
    local = RayExecutor("local", 2)
    local.start()
    assert local.in_flight_limit == 4 and local.where() == "on Ray (already connected, 2 CPUs)"
    capped = RayExecutor("auto", 1)
    capped.start()
    assert capped.in_flight_limit == 1 and not capped.started
    assert sum(o.status == "ok" for o in capped.run(expand(spec).tasks)) == 4
    with pytest.raises(ValueError, match="at least 1"):
        RayExecutor("local", 0)
