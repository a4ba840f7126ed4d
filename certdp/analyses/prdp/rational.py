"""Small exact helpers: simplest rational in an open interval, certified ⌈·⌉ / ⌊·⌋."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

from flint import arb

from certdp.numerics.decide import decide
from certdp.numerics.ball import dyadic_to_fraction, lower_bound, upper_bound


def simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """A rational with small denominator strictly inside ``(lo, hi)`` (``0 ≤ lo < hi``).

    Continued-fraction (Stern–Brocot) descent; the result is the rational of
    least denominator in the open interval.
    """
    if not (0 <= lo < hi):
        raise ValueError(f"need 0 <= lo < hi, got ({lo}, {hi})")
    f = math.floor(lo)
    if f + 1 < hi:
        return Fraction(f + 1)
    a, b = lo - f, hi - f  # 0 <= a < b <= 1
    if a == 0:
        return f + Fraction(1, math.floor(1 / b) + 1)
    return f + 1 / simplest_between(1 / b, 1 / a)


def ball_bounds(x: arb) -> tuple[Fraction, Fraction]:
    """Exact rational lower and upper bounds of a finite ball."""
    return dyadic_to_fraction(lower_bound(x)), dyadic_to_fraction(upper_bound(x))


def certified_floor(compute: Callable[[], arb], what: str) -> int:
    """``⌊X⌋`` for an irrational ``X`` given by a ball computation (raises precision
    until the ball lies strictly between two consecutive integers)."""
    def test(_prec: int) -> int | None:
        x = compute()
        if x.is_finite():
            lo, hi = ball_bounds(x)
            if math.floor(lo) == math.floor(hi) and hi != math.floor(hi) and lo != math.floor(lo):
                return math.floor(lo)
        return None

    return decide(test, start=64, what=f"the floor of {what}")
