"""The CLI's progress display: a `rich` status line on stderr for the heartbeats of
long work (:mod:`certdp.progress`); stdout is never touched."""

from __future__ import annotations

import time
from typing import Callable


class RichReporter:
    """A transient `rich` progress display on stderr, shown once the work has
    lasted ``delay`` seconds and refreshed at most ``rate`` times a second.
    Use as a context manager around the work (it removes the display)."""

    def __init__(self, delay: float = 0.5, rate: float = 10.0,
                 clock: Callable[[], float] = time.monotonic, points: str | None = None) -> None:
        #: off a terminal, a command over many points (the audit's claims) prints one line per
        #: finished point of this task and nothing of the work inside a point
        self._points = points
        self._start = clock()
        self._clock = clock
        self._delay = delay
        self._interval = 1.0 / rate
        self._last = float("-inf")
        self._progress = None
        self._console = None
        self._tasks: dict[str, int] = {}
        self._counts: dict[str, int] = {}

    def _is_terminal(self) -> bool:
        if self._console is None:
            from rich.console import Console  # noqa: PLC0415 - only when something is shown

            self._console = Console(stderr=True)
        return bool(self._console.is_terminal)

    def __enter__(self) -> "RichReporter":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __call__(self, task: str, done: int | None, total: int | None) -> None:
        now = self._clock()
        self._counts[task] = self._counts.get(task, 0) + 1 if done is None else done
        if self._points is not None and not self._is_terminal():
            if task == self._points:
                self._console.print(f"certdp: {task}: {self._counts[task]}" + (f"/{total}" if total else ""),  # type: ignore[union-attr]
                                    highlight=False, markup=False)
            return
        if now - self._start < self._delay or now - self._last < self._interval:
            return
        self._last = now
        if self._console is None:
            from rich.console import Console  # noqa: PLC0415 - only when something is shown

            self._console = Console(stderr=True)
            if not self._console.is_terminal:
                self._interval = max(self._interval, 1.0)  # plain log lines: at most one a second
        if not self._console.is_terminal:
            count = self._counts[task]
            self._console.print(f"certdp: {task}: {count}" + (f"/{total}" if total else ""),
                                highlight=False, markup=False)
            return
        if self._progress is None:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,  # noqa: PLC0415
                                       TextColumn, TimeElapsedColumn)

            # redirect_stdout=False: the answer printed while the bar is up must go to
            # stdout (a pipe or file), not into the display on the terminal
            self._progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                      MofNCompleteColumn(), TimeElapsedColumn(), console=self._console,
                                      transient=True, redirect_stdout=False, redirect_stderr=False)
            self._progress.start()
        if task not in self._tasks:
            self._tasks[task] = self._progress.add_task(task, total=total)
        self._progress.update(self._tasks[task], completed=self._counts[task], total=total)
