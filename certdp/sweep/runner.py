"""Running points on an executor: in-process, local processes, or a Dask cluster.

The scheduling is not certdp's: local parallelism is
:class:`concurrent.futures.ProcessPoolExecutor`, distributed runs go to
``dask.distributed`` (a running scheduler at ``tcp://HOST:PORT`` or a
``LocalCluster``) through its :class:`concurrent.futures.Executor` interface
(``Client.get_executor``).  certdp only keeps a bounded number of points in
flight, writes each row as it arrives (:class:`certdp.sweep.store.ResultStore`)
and reports progress.

Dask workers must run one thread each: python-flint's working precision and
certdp's time budget are process-wide, so two points computed by threads of
one process could disturb each other (and the GIL would serialise them
anyway).  A cluster whose workers have more threads is refused.
"""

from __future__ import annotations

import os
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from certdp.errors import BudgetExceeded, InputError
from certdp.meta import VERSION


class SweepAborted(RuntimeError):
    """The workers died (not a point's computation): the finished rows are
    saved and a re-run resumes."""


@dataclass(frozen=True)
class Progress:
    """Points done (finished earlier + now) of total; rate and ETA over this run's points."""

    done: int
    total: int
    computed: int
    failed: int
    elapsed: float

    @property
    def rate(self) -> float:
        return self.computed / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate (None before the first point)."""
        return (self.total - self.done) / self.rate if self.rate > 0 else None


def _worker_version() -> str:
    from certdp.meta import VERSION as worker  # noqa: PLC0415

    return worker


@contextmanager
def _dask_executor(address: str, workers: int | None) -> Iterator[tuple[Executor, int]]:
    try:
        from dask.distributed import Client, LocalCluster  # noqa: PLC0415
    except ImportError:
        raise InputError("--dask needs dask.distributed: python -m pip install 'certdp[dask]'") from None
    cluster = None
    try:
        if address == "local":
            n = workers or os.cpu_count() or 1
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
        else:
            try:
                client = Client(address, timeout="10s")
            except (OSError, TimeoutError, ValueError) as err:
                raise InputError(f"--dask {address!r}: cannot reach the Dask scheduler ({err})") from None
        try:
            threads = client.nthreads()
            if not threads:
                try:
                    client.wait_for_workers(1, timeout=60)
                except TimeoutError:
                    raise InputError(f"--dask {address!r}: no worker joined the scheduler within 60 s "
                                     "(start some with `dask worker ADDRESS --nthreads 1`)") from None
                threads = client.nthreads()
            many = [w for w, n in threads.items() if n != 1]
            if many:
                raise InputError(f"Dask worker {many[0]} runs {threads[many[0]]} threads; certdp needs one thread per "
                                 "worker (start workers with `dask worker ADDRESS --nthreads 1 --nworkers N`)")
            try:
                versions = client.run(_worker_version)
            except ImportError as err:
                raise InputError(f"the Dask workers cannot import certdp ({err}); install it on every worker") from None
            other = {v for v in versions.values() if v != VERSION}
            if other:
                raise InputError(f"the Dask workers run certdp {', '.join(sorted(other))}, this is {VERSION}; "
                                 "results must come from one version")
            yield client.get_executor(pure=False), len(threads)
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


@contextmanager
def executor(jobs: int | None = None, dask: str | None = None) -> Iterator[tuple[Executor | None, int]]:
    """(executor, number of workers): None for in-process (``jobs`` 1 or None,
    no ``dask``), a process pool for ``jobs`` > 1, a Dask executor for
    ``dask`` = an address or ``"local"`` (a LocalCluster of ``jobs`` workers,
    default one per core)."""
    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs must be >= 1, got {jobs}")
    if dask is not None:
        if dask != "local" and jobs is not None:
            raise InputError("--jobs goes with --dask local; on a running cluster the workers started there compute")
        with _dask_executor(dask, jobs) as found:
            yield found
    elif jobs is None or jobs == 1:
        yield None, 1
    else:
        pool = ProcessPoolExecutor(max_workers=jobs)
        try:
            yield pool, jobs
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


#: Longest wait for a finished point before the heartbeat runs again (seconds).
HEARTBEAT = 0.5


def run_tasks(fn: Callable[..., Any], tasks: Iterable[tuple[Any, tuple]], on_result: Callable[[Any, Any], None],
              on_error: Callable[[Any, BaseException], None], ex: Executor | None, window: int,
              heartbeat: Callable[[], None] | None = None) -> None:
    """Run ``fn(*args)`` for each ``(key, args)``; call ``on_result(key, value)``
    as each finishes (in completion order), at most ``window`` in flight.  An
    exception from a future (a lost worker, not a point's own error, which
    ``fn`` reports in its value) goes to ``on_error``; a broken process pool
    raises :class:`SweepAborted`.  ``heartbeat`` runs before each task is
    started and at least every :data:`HEARTBEAT` seconds while tasks run; what
    it raises (e.g. BudgetExceeded), and a BudgetExceeded from a task, stops
    the run: the tasks not started are cancelled, the running ones end on their
    own budget."""
    beat = heartbeat if heartbeat is not None else (lambda: None)
    if ex is None:
        for key, args in tasks:
            beat()
            on_result(key, fn(*args))
        return
    it = iter(tasks)
    pending: dict[Any, Any] = {}

    def fill() -> None:
        while len(pending) < window:
            item = next(it, None)
            if item is None:
                return
            beat()
            key, args = item
            pending[ex.submit(fn, *args)] = key

    try:
        fill()
        while pending:
            finished, _ = wait(list(pending), timeout=HEARTBEAT, return_when=FIRST_COMPLETED)
            spent: BudgetExceeded | None = None
            for fut in finished:
                key = pending.pop(fut)
                try:
                    value = fut.result()
                except BrokenProcessPool as err:
                    raise SweepAborted(f"a worker process died ({err}); the finished points are saved, "
                                       "run the same command again to resume") from None
                except BudgetExceeded as err:  # that task's budget: record the others finished with it, then stop
                    spent = err
                    continue
                except Exception as err:  # noqa: BLE001 - e.g. Dask KilledWorker: that point's row says so
                    on_error(key, err)
                    continue
                on_result(key, value)
            if spent is not None:
                raise spent
            beat()  # after the finished points are recorded: none is lost
            fill()
    finally:
        for fut in pending:
            fut.cancel()


def window_for(workers: int, dask: bool) -> int:
    """Points in flight: enough to keep every worker busy; on Dask more, since
    the scheduler balances them and workers may join while the sweep runs."""
    return max(1000, 4 * workers) if dask else 4 * workers
