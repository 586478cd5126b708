"""Runs of a sweep on Ray: a local Ray instance (``--ray local``) or a cluster (``--ray ADDRESS``).

:class:`RayExecutor` is the :class:`~ssdlab.sweeps.executor.Executor` interface over Ray tasks:
each run is one ``ray.remote(execute)`` call (a :class:`~ssdlab.sweeps.spec.RunTask` pickles and
carries the device's TOML text, so a remote worker needs ssdlab installed and the traces at the
same path, nothing else), and outcomes are yielded from ``ray.wait`` as they finish.

Why the numbers:

- **In flight: 2 × the cluster's CPUs** (read when Ray starts), or ``-j N`` on a cluster. Two
  per CPU keeps every CPU busy — when a run finishes, the next one is already queued on the
  cluster, not waiting for a round trip to this process — while a 100,000-run sweep is not
  submitted at once: each submitted task holds its arguments (the device's TOML) in the cluster's
  object store and a reference here, and Ctrl-C has to cancel every task in flight. More per CPU
  buys nothing, since runs are independent and of similar length.
- **Retries: ours, not Ray's** (tasks are submitted with ``max_retries=0``). A run whose worker
  died (killed, out of memory, a crash in native code, its node lost) runs again, up to
  :data:`~ssdlab.sweeps.executor.MAX_ATTEMPTS` times in all, then it is an error row
  (:func:`~ssdlab.sweeps.runner.crashed`), as in the local pool, so ``attempts`` in the store
  means the same whatever the executor. Unlike the pool's, a retry here need not run alone: Ray
  reports a death against the one task that was on that worker, so the runs beside it are not
  suspects. Any other Ray error (the task raised — say ssdlab cannot be imported on a worker —,
  its runtime environment failed, no node can run it) would fail the same way again: it is an
  error row at once, with Ray's message folded onto one line.

Ray is imported only when this executor is made; without it, :func:`require_ray` raises
:class:`RayMissing` (an ``ImportError``) naming the ``ray`` extra.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Iterator, Optional, Sequence

from ssdlab.sweeps.executor import MAX_ATTEMPTS, Executor, cpu_count
from ssdlab.sweeps.runner import Outcome, crashed, execute, one_line
from ssdlab.sweeps.spec import RunTask

#: Tasks in flight per CPU of the cluster (see the module's doc).
IN_FLIGHT_PER_CPU = 2
#: Ray's errors that mean a run's worker (or its node, or its result) was lost, not that the run
#: failed: retried. Names, looked up in ``ray.exceptions``, so that one missing from an older
#: Ray is skipped.
LOST = ("WorkerCrashedError", "NodeDiedError", "OutOfMemoryError", "LocalRayletDiedError", "ObjectLostError")
NEEDS_RAY = "needs the ray extra (pip install 'ssdlab[ray]')"


class RayMissing(ImportError):
    """Ray is not installed."""


class RayStartError(RuntimeError):
    """Ray could not be started, or its cluster not reached (the message is Ray's, one line)."""


def require_ray() -> Any:
    """The ``ray`` module, or :class:`RayMissing`."""
    try:
        import ray
    except ImportError:
        raise RayMissing(NEEDS_RAY) from None
    return ray


def check_address(address: Optional[str]) -> str:
    """``local``, or something that may be a cluster's address; ValueError for an empty one."""
    if address is None or not address.strip():
        raise ValueError(f"expected local or a Ray cluster's address (ray://HOST:10001, HOST:6379 or auto), "
                         f"got {address!r}")
    return address.strip()


class RayExecutor(Executor):
    """Runs on Ray. ``address``: ``"local"`` starts a Ray instance on this machine with
    ``workers`` CPUs (None: one per CPU this process may use); otherwise ``ray.init(address=...)``
    joins that cluster and ``workers`` caps the runs in flight (None: 2 × the cluster's CPUs).
    If this process is already connected to Ray, that connection is used and left open.
    Ray starts on the first :meth:`where` or :meth:`run`, not here, so a sweep with nothing to
    run does not start it."""

    def __init__(self, address: str, workers: Optional[int] = None, max_attempts: int = MAX_ATTEMPTS,
                 fn: Callable[[RunTask], Outcome] = execute):
        self.ray = require_ray()
        self.address = check_address(address)
        self.local = self.address == "local"
        if workers is not None and workers < 1:
            raise ValueError(f"expected at least 1 worker on Ray, got {workers}")
        self.requested = workers
        self.max_attempts = max_attempts
        #: What a Ray worker runs (pickled by reference if importable on the workers, by value
        #: if defined in a function).
        self.fn = fn
        self.workers = workers or 1
        self.cpus = 0
        self.in_flight_limit = 0
        #: Whether this executor started Ray (and so shuts it down) or found it connected.
        self.started = False
        self._running = False
        self._in_flight: dict[Any, RunTask] = {}

    def start(self) -> None:
        """Start Ray or join the cluster (once); read its CPUs to size the runs in flight."""
        if self._running:
            return
        ray = self.ray
        if not ray.is_initialized():
            # Quiet: Ray's own INFO lines and the workers' output would break the progress lines.
            kwargs: dict[str, Any] = dict(logging_level=logging.ERROR, log_to_driver=False)
            if self.local:
                kwargs.update(num_cpus=self.requested or cpu_count(), include_dashboard=False)
            try:
                ray.init(address=self.address, **kwargs)
            except Exception as e:  # noqa: BLE001 - Ray raises ConnectionError, ValueError, RuntimeError, …
                raise RayStartError(one_line(f"{type(e).__name__}: {e}")) from None
            self.started = True
        self._running = True
        self.cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        if self.local or self.requested is None:
            self.in_flight_limit = IN_FLIGHT_PER_CPU * self.cpus
            self.workers = self.cpus
        else:
            self.in_flight_limit = self.workers = self.requested

    def where(self) -> str:
        """``on Ray (local, 2 CPUs)``, ``on Ray at ray://head:10001 (64 CPUs)``; starts Ray."""
        self.start()
        cpus = f"{self.cpus} CPU{'s' * (self.cpus != 1)}"
        if not self.started:
            return f"on Ray (already connected, {cpus})"
        if self.local:
            return f"on Ray (local, {cpus})"
        cap = f", at most {self.workers} run{'s' * (self.workers != 1)} at once" if self.requested else ""
        return f"on Ray at {self.address} ({cpus}{cap})"

    def run(self, tasks: Sequence[RunTask]) -> Iterator[Outcome]:
        if not tasks:
            return
        self.start()
        ray = self.ray
        lost = tuple(c for c in (getattr(ray.exceptions, n, None) for n in LOST) if c is not None)
        remote = ray.remote(max_retries=0)(self.fn)
        pending = list(reversed(tasks))  # popped from the end: the spec's order
        attempts = {t.id: 0 for t in tasks}
        in_flight = self._in_flight
        while pending or in_flight:
            while pending and len(in_flight) < self.in_flight_limit:
                t = pending.pop()
                in_flight[remote.remote(t)] = t
            ready, rest = ray.wait(list(in_flight), num_returns=1)
            if rest:
                more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
                ready += more
            for ref in ready:
                t = in_flight.pop(ref)
                attempts[t.id] += 1
                try:
                    outcome = ray.get(ref)
                except lost:
                    if attempts[t.id] >= self.max_attempts:
                        yield crashed(t, attempts[t.id])
                    else:
                        pending.append(t)  # next to go
                    continue
                except ray.exceptions.RayError as e:
                    yield Outcome(t.id, "error", one_line(f"on Ray: {_message(e)}"), attempts=attempts[t.id])
                    continue
                outcome.attempts = attempts[t.id]
                yield outcome

    def close(self) -> None:
        """Cancel the runs in flight (their workers are killed: a run is not cut short quietly
        and then stored) and shut Ray down if this executor started it."""
        ray = self.ray
        for ref in list(self._in_flight):
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: BLE001 - finished meanwhile, or Ray already gone
                pass
        self._in_flight.clear()
        if self.started:
            ray.shutdown()
            self.started = False
        self._running = False


def _message(e: Exception) -> str:
    """A Ray error as its cause's ``Type: message`` (a task's traceback is not a row's message)."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {cause}"
    return f"{type(e).__name__}: {e}"
