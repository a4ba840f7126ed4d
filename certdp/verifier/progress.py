"""Progress of long computations, reported without printing.

Long loops call :func:`certdp.errors.check_budget` between steps (the one
heartbeat of long work: it enforces the time budget and reports progress).
Library code never prints: a caller that wants to show progress installs a
reporter with :func:`reporting`; the CLI installs
:class:`certdp.cli.display.RichReporter`
(a status line on stderr, via the `rich` library) when stderr is a terminal
or ``--progress`` is given, and none with ``--quiet``.  Without a reporter a
heartbeat costs one context-variable lookup.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator, Protocol


class Reporter(Protocol):
    def __call__(self, task: str, done: int | None, total: int | None) -> None: ...


_reporter: ContextVar[Reporter | None] = ContextVar("certdp_progress_reporter", default=None)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Send the heartbeats of the body to ``reporter`` (None: to nobody)."""
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


def report(task: str, done: int | None = None, total: int | None = None) -> None:
    """One heartbeat: ``task`` is running, ``done`` of ``total`` steps finished
    (either may be unknown)."""
    r = _reporter.get()
    if r is not None:
        r(task, done, total)
