"""Where a sweep's runs execute: a small interface and its local implementations.

An :class:`Executor` takes tasks and yields one :class:`~ssdlab.sweeps.runner.Outcome` per
task as each finishes, in any order; it never raises for a run that fails (that is an error
outcome), and :meth:`Executor.close` stops everything at once (Ctrl-C). The driver
(``sweeps.driver``) stores each outcome as it comes, so an executor keeps no results of its own.

- :class:`InlineExecutor` (``-j 0``): in this process, one run after another (debugging).
- :class:`LocalPoolExecutor` (``-j N``, the default): N worker processes
  (``concurrent.futures.ProcessPoolExecutor``, started with 'spawn': no state inherited from
  the parent). A worker that dies (SIGKILL, out of memory, a crash in native code) breaks
  the pool; the pool is restarted and the runs that were in flight run again, each one alone,
  so that a run which kills its worker again is known to be the culprit: after
  ``max_attempts`` deaths it is an error row.

- :class:`~ssdlab.sweeps.executor_ray.RayExecutor` (``--ray local|ADDRESS``), in its own file
  so that Ray is imported only when asked for: ``ray.remote(execute)`` tasks (a
  :class:`~ssdlab.sweeps.spec.RunTask` carries the device text, so a remote worker needs no
  file but a trace's), outcomes from ``ray.wait``. ``sweeps.executors`` chooses between them.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterator, Optional, Sequence

from ssdlab.sweeps.runner import Outcome, crashed, execute
from ssdlab.sweeps.spec import RunTask

#: How many times a run may kill its worker before it is an error row.
MAX_ATTEMPTS = 2


class Executor(ABC):
    """Runs tasks; yields their outcomes as they finish."""

    #: Runs executing at once.
    workers: int = 1

    @abstractmethod
    def run(self, tasks: Sequence[RunTask]) -> Iterator[Outcome]:
        """One outcome per task, in completion order."""

    def where(self) -> str:
        """Where the runs execute, for the sweep's first line (``on 4 workers``)."""
        return f"on {self.workers} worker{'s' * (self.workers != 1)}"

    def close(self) -> None:
        """Stop at once: runs in flight are abandoned (they are not finished, so not stored)."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InlineExecutor(Executor):
    """Runs in this process, in order."""

    workers = 1

    def where(self) -> str:
        return "in this process"

    def run(self, tasks: Sequence[RunTask]) -> Iterator[Outcome]:
        for t in tasks:
            yield execute(t)


#: Seconds between a worker's checks that the sweep that started it is still alive.
ORPHAN_CHECK_S = 1.0


def _exit_when_orphaned(parent: int) -> None:
    while True:
        time.sleep(ORPHAN_CHECK_S)
        if os.getppid() != parent:
            os._exit(1)


def _worker_init(parent: int) -> None:
    # Ctrl-C goes to the whole foreground process group: only the parent acts on it (it stops
    # the workers), so a run is never cut short and reported as if it had failed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A worker holds both ends of the pool's task queue, so it would wait for work forever if
    # the sweep were killed (SIGKILL): it leaves once its parent is gone. The parent's pid comes
    # from the parent: if it died while this worker started, os.getppid() here is already init's.
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()


def cpu_count() -> int:
    """CPUs this process may use."""
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


class LocalPoolExecutor(Executor):
    """N worker processes on this machine, restarted when one dies."""

    def __init__(self, workers: int, max_attempts: int = MAX_ATTEMPTS,
                 fn: Callable[[RunTask], Outcome] = execute):
        self.workers = max(1, workers)
        self.max_attempts = max_attempts
        #: What a worker runs (a module-level function, so that it pickles).
        self.fn = fn
        self._pool: Optional[ProcessPoolExecutor] = None
        #: Pools started (1 + restarts after a worker died).
        self.pools_started = 0

    def _new_pool(self) -> ProcessPoolExecutor:
        self.pools_started += 1
        self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=_worker_init, initargs=(os.getpid(),))
        return self._pool

    def worker_pids(self) -> list[int]:
        """The live workers' process ids."""
        procs = getattr(self._pool, "_processes", None) or {}
        return [p.pid for p in list(procs.values()) if p.is_alive()]

    def run(self, tasks: Sequence[RunTask]) -> Iterator[Outcome]:
        pending = deque(tasks)
        retry: deque[RunTask] = deque()  # in flight when a worker died: run again, alone
        attempts = {t.id: 0 for t in tasks}
        in_flight: dict[Future, RunTask] = {}
        pool = self._new_pool()
        try:
            while pending or retry or in_flight:
                broken = False
                try:
                    if retry:
                        if not in_flight:
                            t = retry.popleft()
                            in_flight[pool.submit(self.fn, t)] = t
                    else:
                        while pending and len(in_flight) < self.workers:
                            t = pending.popleft()
                            in_flight[pool.submit(self.fn, t)] = t
                except (BrokenProcessPool, OSError) as e:
                    # A worker that dies while the pool spawns another (spawn starts workers
                    # lazily, at submit) can make submit fail with OSError('handle is closed')
                    # instead of BrokenProcessPool: the pool's manager thread has already
                    # marked it broken and closed the call queue the new worker was being
                    # handed. Any other OSError is not ours to hide.
                    if isinstance(e, OSError) and not getattr(pool, "_broken", False):
                        raise
                    broken = True
                    in_flight.setdefault(Future(), t)  # the task being submitted counts as in flight
                if not broken:
                    done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                    for f in done:
                        if isinstance(f.exception(), BrokenProcessPool):
                            broken = True
                            continue
                        t = in_flight.pop(f)
                        outcome = f.result()
                        outcome.attempts = attempts[t.id] + 1
                        yield outcome
                if broken:
                    died = []
                    for f, t in list(in_flight.items()):
                        if f.done() and not f.cancelled() and f.exception() is None:
                            outcome = f.result()
                            outcome.attempts = attempts[t.id] + 1
                            yield outcome
                        else:
                            died.append(t)
                    in_flight.clear()
                    self._stop(pool)
                    pool = self._new_pool()
                    for t in died:
                        attempts[t.id] += 1
                        if attempts[t.id] >= self.max_attempts:
                            yield crashed(t, attempts[t.id])
                        else:
                            retry.append(t)
        except BaseException:
            self._stop(pool)
            raise
        else:
            pool.shutdown(wait=True)
        finally:
            self._pool = None

    @staticmethod
    def _stop(pool: ProcessPoolExecutor) -> None:
        """Kill the pool's workers (runs in flight are abandoned) and release it."""
        procs = list((getattr(pool, "_processes", None) or {}).values())
        for p in procs:
            try:
                p.kill()
            except (OSError, ValueError):
                pass
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            try:
                p.join(timeout=10)
            except (OSError, ValueError, AssertionError):
                pass
        # Wait for the pool's manager thread to close its wakeup pipe. Left running, it can close
        # the pipe while the interpreter's exit hook (concurrent.futures.process._python_exit) is
        # writing to it: Python 3.11 checks and writes without a lock, and an interrupted sweep
        # then ends with an 'OSError: Bad file descriptor' traceback (seen in CI under load).
        manager = getattr(pool, "_executor_manager_thread", None)
        if manager is not None:
            manager.join(timeout=10)

    def close(self) -> None:
        if self._pool is not None:
            self._stop(self._pool)
            self._pool = None
