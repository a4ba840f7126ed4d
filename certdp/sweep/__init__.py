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
from typing import Callable

from certdp.sweep.grid import Grid, Quantity, load_grid, parse_grid
from certdp.sweep.point import compute_point
from certdp.sweep.runner import Progress, SweepAborted, executor, run_tasks, window_for
from certdp.sweep.store import ResultStore

__all__ = ["Grid", "Progress", "Quantity", "SweepAborted", "SweepSummary", "executor", "load_grid", "parse_grid",
           "run_sweep", "run_tasks", "window_for"]


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
              on_progress: Callable[[Progress], None] | None = None) -> SweepSummary:
    """Compute the points of ``grid`` missing from ``out`` and write the sorted file."""
    store = ResultStore(out, grid, retry_errors=retry_errors)
    t0 = time.perf_counter()
    with executor(jobs, dask) as (ex, workers):
        done = store.open()
        resumed = len(done)
        state = {"computed": 0, "failed": sum(1 for r in done.values() if r["error"])}
        axes = grid.axis_names

        def on_result(point: tuple[str, ...], result: dict[str, str]) -> None:
            store.append({**dict(zip(axes, point)), **result})
            state["computed"] += 1
            state["failed"] += bool(result["error"])
            if on_progress is not None:
                on_progress(Progress(resumed + state["computed"], grid.size, state["computed"], state["failed"],
                                     time.perf_counter() - t0))

        def on_error(point: tuple[str, ...], err: BaseException) -> None:
            row = {c: "" for q in grid.quantities for c in q.columns}
            text = " ".join(str(err).split())
            on_result(point, {**row, "assumptions": "", "route": "", "seconds": "",
                              "error": f"worker failed: {type(err).__name__}: {text}"})

        todo = ((p, (grid.spec_for(p), grid.quantities, point_budget)) for p in grid.points() if p not in done)
        try:
            run_tasks(compute_point, todo, on_result, on_error, ex, window_for(workers, dask is not None))
        finally:
            store.close()
    store.finish()
    return SweepSummary(grid.size, resumed, state["computed"], state["failed"], time.perf_counter() - t0)
