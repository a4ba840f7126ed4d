"""Sweeps: a grid of mechanisms × certified quantities → a table of enclosures.

``run_sweep(grid, "results.csv", jobs=2)`` computes every point of a
:class:`~certdp.sweep.grid.Grid` (read from a TOML grid file by
:func:`~certdp.sweep.grid.load_grid`) with the one router
(:mod:`certdp.analyses.dispatch`), in-process, on local processes or on a
Dask cluster (:mod:`certdp.sweep.runner`), streaming rows into a resumable
results file (:mod:`certdp.sweep.store`).  The same grid gives the same rows
on every backend apart from the ``seconds`` column.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Callable

from certdp.errors import BudgetExceeded, check_budget
from certdp.errors import budget as time_budget
from certdp.sweep.grid import Grid, Quantity, load_grid, parse_grid
from certdp.sweep.point import Deadline, compute_point
from certdp.sweep.runner import Progress, SweepAborted, executor, run_tasks, window_for
from certdp.sweep.store import ResultStore

if TYPE_CHECKING:  # pandas loads with the frames only
    import os

    import pandas

    from certdp.sweep.frames import Verdicts

__all__ = ["Grid", "Progress", "Quantity", "SweepAborted", "SweepSummary", "executor", "load_grid", "parse_grid",
           "results_frame", "run_sweep", "run_tasks", "verdicts_frame", "window_for"]


def results_frame(path: str | os.PathLike[str], *, floats: bool = False) -> pandas.DataFrame:
    """A sweep's results file as a pandas DataFrame (:func:`certdp.sweep.frames.results_frame`)."""
    from certdp.sweep.frames import results_frame as _f  # noqa: PLC0415 (pandas loads on first use)

    return _f(path, floats=floats)


def verdicts_frame(verdicts: Verdicts, *, floats: bool = False) -> pandas.DataFrame:
    """Audit verdicts as a pandas DataFrame (:func:`certdp.sweep.frames.verdicts_frame`)."""
    from certdp.sweep.frames import verdicts_frame as _f  # noqa: PLC0415

    return _f(verdicts, floats=floats)


@dataclass(frozen=True)
class SweepSummary:
    """How a sweep ended: points in the grid, found finished in --out, computed now, rows with an error."""

    total: int
    resumed: int
    computed: int
    failed: int
    seconds: float


def run_sweep(grid: Grid, out: str, *, jobs: int | None = None, dask: str | None = None,
              point_budget: float | None = None, retry_errors: bool = False,
              on_progress: Callable[[Progress], None] | None = None, budget: float | None = None) -> SweepSummary:
    """Compute the points of ``grid`` missing from ``out`` and write the sorted file.

    ``budget`` (seconds; nested in any budget already in force, e.g. the
    command's ``--budget``) bounds the whole sweep: when it is spent the points
    not finished are dropped (the running ones stop on it too), the finished
    rows stay in ``out`` and :class:`~certdp.errors.BudgetExceeded` says how to
    resume."""
    with time_budget(budget, "--budget"):
        deadline = Deadline.of_current_budget()
        store = ResultStore(out, grid, retry_errors=retry_errors)
        t0 = time.perf_counter()
        state = {"computed": 0, "failed": 0}
        try:
            with executor(jobs, dask) as (ex, workers):
                done = store.open()
                resumed = len(done)
                state["failed"] = store.failed()
                try:
                    _run(grid, store, ex, workers, dask is not None, point_budget, deadline, state, resumed, t0,
                         on_progress)
                finally:
                    store.close()
        except BudgetExceeded as err:
            message = str(err)
            try:
                check_budget("the sweep")  # this process's budget: its message names the seconds given
            except BudgetExceeded as spent:
                message = str(spent)
            raise BudgetExceeded(f"{message}; {len(store.rows)} of {grid.size} points are saved in {out}: "
                                 "run the same command again to resume") from None
    store.finish()
    return SweepSummary(grid.size, resumed, state["computed"], state["failed"], time.perf_counter() - t0)


def _run(grid: Grid, store: ResultStore, ex: Executor | None, workers: int, on_dask: bool,
         point_budget: float | None, deadline: Deadline | None, state: dict[str, int], resumed: int, t0: float,
         on_progress: Callable[[Progress], None] | None) -> None:
    columns = store.columns

    def on_result(key: tuple[int, tuple[str, ...]], result: dict[str, str]) -> None:
        index, point = key
        cells = {**dict(zip(grid.axis_names, point)), **result}
        store.append(index, tuple(cells[c] for c in columns))
        state["computed"] += 1
        state["failed"] += bool(result["error"])
        if on_progress is not None:
            on_progress(Progress(resumed + state["computed"], grid.size, state["computed"], state["failed"],
                                 time.perf_counter() - t0))

    def on_error(key: tuple[int, tuple[str, ...]], err: BaseException) -> None:
        row = {c: "" for q in grid.quantities for c in q.columns}
        text = " ".join(str(err).split())
        on_result(key, {**row, "assumptions": "", "route": "", "seconds": "",
                        "error": f"worker failed: {type(err).__name__}: {text}"})

    def heartbeat() -> None:
        check_budget("the sweep", resumed + state["computed"], grid.size)

    todo = (((i, p), (grid.spec_for(p), grid.quantities, point_budget, deadline))
            for i, p in grid.points() if i not in store.rows)
    run_tasks(compute_point, todo, on_result, on_error, ex, window_for(workers, on_dask), heartbeat)
