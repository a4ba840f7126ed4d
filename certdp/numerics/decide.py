"""The one way certdp decides a ball comparison: raise the precision.

A ball comparison can be undecided (the balls overlap).  certdp never
guesses then: :func:`decide` re-runs the test at 2×, 4×, … the starting
precision, up to one ceiling (:data:`certdp.numerics.ball.MAX_PREC`, or a
caller's smaller ``cap``/``doublings``), and raises the one
:class:`~certdp.errors.PrecisionError` when it is still undecided.  Every
"raise precision until decided" loop of certdp is a call of this function.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from flint import arb

from certdp.errors import PrecisionError

from certdp.numerics.ball import MAX_PREC, rel_accuracy_bits, working_precision

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


def adaptive(
    compute: Callable[[int], arb],
    rel_bits: int,
    start_prec: int,
    what: str,
) -> arb:
    """Evaluate ``compute(prec)`` at growing precision until its relative
    accuracy reaches ``rel_bits`` bits.

    ``compute`` must return a ball that is correct at every precision (it runs
    inside :func:`working_precision`).  Exact zero is accepted as fully
    accurate.  Raises :class:`PrecisionError` past :data:`MAX_PREC`.
    """
    def test(prec: int) -> arb | None:
        y = compute(prec)
        return y if y.is_finite() and (y.is_zero() or rel_accuracy_bits(y) >= rel_bits) else None

    return decide(test, start=max(int(start_prec), rel_bits + 10),
                  what=f"{what}: {rel_bits} bits of relative accuracy")
