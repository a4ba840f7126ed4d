"""Exceptions raised by certdp.

Every error a user can trigger with bad input is an :class:`InputError`
(a ``ValueError``) whose message names the offending value.  Failures of the
certified machinery itself (a comparison that stays undecided at the maximum
precision) are :class:`PrecisionError`; certdp never guesses instead.
"""

from __future__ import annotations


class CertdpError(Exception):
    """Base class of all certdp errors."""


class InputError(CertdpError, ValueError):
    """User input is malformed or outside the domain of the mathematics."""


class PrecisionError(CertdpError, ArithmeticError):
    """A certified evaluation could not reach the requested accuracy.

    Raised instead of returning an uncertified or guessed answer.
    """


class BudgetExceeded(CertdpError):
    """A computation needs more time than the budget it was given (exit 1:
    nothing is claimed, nothing is guessed)."""


import time as _time  # noqa: E402
from contextlib import contextmanager as _contextmanager  # noqa: E402
from typing import Iterator as _Iterator  # noqa: E402

from certdp.verifier.progress import report as _report  # noqa: E402 - a leaf module: no cycle

_deadline: list[tuple[float, float, str]] = []  # (monotonic deadline, seconds, option) of the innermost budget


@_contextmanager
def budget(seconds: float | None, option: str = "--budget") -> _Iterator[None]:
    """Run the body under a time budget (None: unlimited; nested budgets take
    the earlier deadline; ``option`` is the flag the message names).  Long loops call
    :func:`check_budget` between steps; it raises :class:`BudgetExceeded`
    once the budget is spent (never in the middle of a ball computation)."""
    if seconds is None:
        yield
        return
    if not seconds > 0:
        raise InputError(f"the budget must be a positive number of seconds, got {seconds}")
    entry = (_time.monotonic() + seconds, seconds, option)
    if _deadline and _deadline[-1][0] < entry[0]:
        entry = _deadline[-1]  # an inner budget never extends an outer one
    _deadline.append(entry)
    try:
        yield
    finally:
        _deadline.pop()


def remaining_budget() -> tuple[float, str] | None:
    """(seconds left, the option that set it) of the innermost budget; None if unlimited."""
    if not _deadline:
        return None
    deadline, _, option = _deadline[-1]
    return max(deadline - _time.monotonic(), 1e-3), option


def check_budget(what: str, done: int | None = None, total: int | None = None) -> None:
    """The heartbeat of long work: report progress (``done`` of ``total``
    steps of ``what``, see :mod:`certdp.progress`) and raise BudgetExceeded
    when the innermost budget is spent."""
    _report(what, done, total)
    if _deadline and _time.monotonic() > _deadline[-1][0]:
        _, seconds, option = _deadline[-1]
        raise BudgetExceeded(f"{what} needs more than the budget of {seconds:g} s (raise it with {option} SECONDS)")
