"""Deciding a comparison by raising precision (never guessing), and the loops the
library's searches build on it.

:func:`decide` itself lives in :mod:`certdp.verifier.decide`, part of the checker's own
kernel (issue 36: the checker imports only its own modules, so all that a certificate's
reader must trust is in ``certdp/verifier/``); it is re-exported here.  The loops below
(an enclosure refined to a relative accuracy, a ball refined until good enough, the
certified bisection) are search tools: a certificate's check loads none of them, only
user expressions (:mod:`certdp.expr`) and the library's analyses do.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

from flint import arb

from certdp.verifier.ball import MAX_PREC, rel_accuracy_bits  # noqa: F401  (re-exported)
from certdp.verifier.decide import GROWTH, decide  # noqa: F401  (re-exported)
from certdp.verifier.errors import PrecisionError


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


def refine(compute: Callable[[int], arb], good: Callable[[arb], bool], *, start: int, cap: int,
           what: str) -> arb:
    """A ball from ``compute(prec)`` (run inside ``working_precision(prec)``),
    refined on the one schedule until ``good(ball)``; at ``cap`` the last
    finite ball is returned (every ball is a sound enclosure: refinement only
    buys width).  PrecisionError when no precision up to ``cap`` gives a
    finite ball."""
    last: list[arb] = []

    def test(prec: int) -> arb | None:
        y = compute(prec)
        if y.is_finite():
            last[:] = [y]
            if good(y) or prec >= cap:
                return y
        return None

    try:
        return decide(test, start=start, cap=cap, what=what)
    except PrecisionError:
        if last:
            return last[0]
        raise


def short_midpoint(lo: Fraction, hi: Fraction) -> Fraction:
    """A short dyadic point strictly inside (lo, hi) (cheap to evaluate at)."""
    width = hi - lo
    k = max(0, width.denominator.bit_length() - width.numerator.bit_length() + 3) if width < 1 else 0  # ≥ -log2 w
    m = (lo + hi) / 2
    scale = Fraction(2) ** k
    cand = Fraction(math.floor(m * scale)) / scale
    return cand if lo < cand < hi else m


def bisect(sign_at: Callable[[Fraction], int], *, lo: Fraction, hi: Fraction,
           done: Callable[[Fraction, Fraction], bool], limit: Fraction, what: str,
           max_steps: int = 10_000,
           guide: Callable[[Fraction, Fraction], list[Fraction] | None] | None = None) -> tuple[Fraction, Fraction]:
    """The one certified bisection for a threshold x* of a monotone test.

    ``sign_at(x)`` is +1 when x < x* is certain (keep searching right), −1
    when x* <= x is certain, 0 when undecided.  The invariant: x* > lo
    whenever lo was certified (+1) and x* <= hi once hi is certified (−1).
    First ``hi`` doubles until certified −1 (PrecisionError past ``limit``);
    then midpoints (short dyadics) shrink [lo, hi] until ``done(lo, hi)``, an
    undecided midpoint (the sound, wider bracket is returned), or
    ``max_steps``.  ``guide(lo, hi)`` may propose the points to test instead of
    the midpoint (e.g. a float secant estimate ± a small radius, so that one
    step can close the bracket); proposals outside (lo, hi) are ignored, and the
    bracket stays certified whatever the guide says.
    Returns (lo, hi) with lo <= x* <= hi."""
    while True:
        s = sign_at(hi)
        if s < 0:
            break
        if s > 0:
            lo = hi
        hi *= 2
        if hi > limit:
            raise PrecisionError(f"{what}: no certified threshold below {limit}")
    for _ in range(max_steps):
        if done(lo, hi):
            break
        points = (guide(lo, hi) if guide is not None else None) or []
        points = [p for p in points if lo < p < hi] or [short_midpoint(lo, hi)]
        for m in points:
            if not lo < m < hi:
                continue
            s = sign_at(m)
            if s > 0:
                lo = m
            elif s < 0:
                hi = m
            else:
                return lo, hi
    return lo, hi
