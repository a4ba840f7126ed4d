"""The one way certdp decides a ball comparison: raise the precision.

A ball comparison can be undecided (the balls overlap).  certdp never
guesses then: :func:`decide` re-runs the test at 2×, 4×, … the starting
precision, up to one ceiling (:data:`certdp.numerics.ball.MAX_PREC`, or a
caller's smaller ``cap``/``doublings``), and raises the one
:class:`~certdp.errors.PrecisionError` when it is still undecided.  Every
"raise precision until decided" loop of certdp is a call of this function.

The loops built on it for the library's searches (:func:`adaptive`, :func:`refine`,
:func:`bisect`) are in :mod:`certdp.numerics.decide`: a certificate's check needs only this one.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from certdp.verifier.errors import PrecisionError, check_budget

from certdp.verifier.ball import MAX_PREC, working_precision

T = TypeVar("T")

#: The schedule: each retry doubles the working precision.
GROWTH = 2


def decide(test: Callable[[int], T | None], *, start: int, what: str, cap: int = MAX_PREC,
           doublings: int | None = None) -> T:
    """``test(prec)`` (run inside ``working_precision(prec)``) returns a decided
    value, or None when the balls do not decide it at that precision (a
    :class:`PrecisionError` raised by the test counts as undecided).  Retried
    at start·2^k up to ``cap`` (at most :data:`MAX_PREC`) or ``doublings``
    retries; then PrecisionError naming ``what``."""
    cap = min(cap, MAX_PREC)
    prec = max(2, min(int(start), cap))
    tries = 0
    while True:
        try:
            with working_precision(prec):
                out = test(prec)
        except PrecisionError:
            out = None
        if out is not None:
            return out
        if prec >= cap or (doublings is not None and tries >= doublings):
            raise PrecisionError(f"{what}: undecided at {prec} bits of working precision")
        prec = min(GROWTH * prec, cap)
        tries += 1
        check_budget(f"raising the working precision ({what})")  # a retry can take seconds
