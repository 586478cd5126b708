"""Which executor runs a sweep: the choice, in one place (the executors' own files do not know
of each other: ``executor`` holds the interface and the local ones, ``executor_ray`` Ray's)."""
from __future__ import annotations

from typing import Optional

from ssdlab.sweeps.executor import Executor, InlineExecutor, LocalPoolExecutor, cpu_count


def make_executor(jobs: Optional[int], ray: Optional[str] = None) -> Executor:
    """``jobs`` worker processes (None: one per CPU); 0 runs in this process. With ``ray``
    (``"local"`` or a cluster's address), on Ray: ``jobs`` is then the local instance's CPUs,
    or on a cluster a cap on the runs at once (see ``executor_ray``)."""
    if ray is not None:
        from ssdlab.sweeps.executor_ray import RayExecutor  # only with --ray: Ray is an extra

        return RayExecutor(ray, jobs)
    if jobs == 0:
        return InlineExecutor()
    return LocalPoolExecutor(cpu_count() if jobs is None else jobs)


def executor_for(jobs: Optional[int], runs: int, ray: Optional[str] = None) -> Executor:
    """:func:`make_executor` for ``runs`` runs: no more workers than runs (a process or a CPU
    reserved for nothing is slower to start and to stop, not faster)."""
    if ray is not None:
        return make_executor(None if jobs is None else min(jobs, max(1, runs)), ray)
    workers = cpu_count() if jobs is None else jobs
    return make_executor(min(workers, max(1, runs)) if workers else 0)
