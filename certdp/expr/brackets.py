"""Closed-form inputs to monotone questions: the rational bracket of ``log(2)`` and
the hull of an answer over it (Exact inputs everywhere, issue 18).

A question asked at an irrational ε, δ, μ or α (``log(2)``, ``exp(-2)``) is asked at
rationals lo <= x <= hi 2^-190 apart; every quantity certdp answers is monotone in
such an input (δ(ε) and ε(δ) decrease, μ_GDP(ε, δ) increases, ...), so the hull of
the two answers encloses the answer at x.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, Callable

from certdp.verifier.errors import InputError, PrecisionError
from certdp.verifier.ball import dyadic_to_fraction, to_ball, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.verifier.exact import exact


#: Precision (bits) of the rational bracket of a closed-form input.
BRACKET_BITS = 192


#: A positive closed form below 2^-TINY_BITS (``exp(-exp(100))``, whose ball has no exact
#: rational ends) is bracketed by [0, 2^-TINY_BITS] where 0 is in the question's domain.
TINY_BITS = 1024


def bracket(x: object, name: str = "value", zero_ok: bool = False) -> tuple[Fraction, Fraction]:
    """Rationals lo <= x <= hi: lo = hi = x for an exact rational input; for a
    closed form (``log(2)``) the exact ends of its ball at :data:`BRACKET_BITS`
    bits (relative width about 2^-190).  A plain number (``1e-5``, ``256/60000``) is
    read by :func:`certdp.numerics.exact.exact` without loading sympy.  ``zero_ok``:
    0 is a valid input (ε of δ(ε)), so a certified positive x < 2^-TINY_BITS whose
    ball ends are beyond exact conversion is bracketed by [0, 2^-TINY_BITS]."""
    try:
        q = exact(x, name)
    except InputError:
        pass  # a closed form, a sympy constant, or nonsense: the expression route decides
    else:
        return q, q
    from certdp.expr.constants import as_fraction, ball, exact_real, sign  # noqa: PLC0415 (sympy)

    v = exact_real(x, name)
    q = as_fraction(v)
    if q is not None:
        return q, q
    with working_precision(BRACKET_BITS):
        b = ball(v)
        try:
            return dyadic_to_fraction(b.lower()), dyadic_to_fraction(b.upper())
        except PrecisionError:
            tiny = Fraction(1, 2**TINY_BITS)
            if zero_ok and sign(v, name) < 0:
                raise InputError(f"{name} must be >= 0, got {name} = {x}") from None
            if not (zero_ok and b.upper() <= to_ball(tiny) and sign(v, name) > 0):
                raise
            return Fraction(0), tiny  # 0 < x <= ball.upper <= tiny


def rational_at_most(x: object, name: str = "value") -> Fraction:
    """A rational <= x (x itself when rational): for inputs where a smaller value
    is the conservative one (a width or resolution target)."""
    return bracket(x, name)[0]


def monotone(f: Callable[..., Enclosure], *args: tuple[object, str, int]) -> Enclosure:
    """Enclosure of f(x1, ..., xn) for exact-real inputs, f monotone in each:
    ``args`` are (value, name, direction) with direction +1 (f non-decreasing in
    it) or −1 (non-increasing).  Rational inputs are passed as they are (one call);
    with closed forms f runs at the two corners of their brackets and the hull
    [f(lower corner).lo, f(upper corner).hi] encloses f at the exact point."""
    ends = [(bracket(v, name), d) for v, name, d in args]
    if all(lo == hi for (lo, hi), _ in ends):
        return f(*(lo for (lo, _), _ in ends))
    low = f(*(lo if d > 0 else hi for (lo, hi), d in ends))
    high = f(*(hi if d > 0 else lo for (lo, hi), d in ends))
    return Enclosure(low.lo, high.hi)



def at_closed_form(f: Callable[[Fraction], Any], x: object, name: str, zero_ok: bool = False) -> Any:
    """``f(x)`` for f non-increasing in x (δ(ε), ε(δ), f(α) are): a rational x is
    passed as is; a closed form is bracketed, lo <= x <= hi, and the answer is
    [f(hi).lo, f(lo).hi].  f returns an Enclosure, an (Enclosure, method) pair, or a
    record with an ``enclosure`` field (the other fields are taken from f(lo)).
    ``zero_ok``: f is defined at 0 (see :func:`bracket`)."""
    lo, hi = bracket(x, name, zero_ok)
    if lo == hi:
        return f(lo)
    low, high = f(hi), f(lo)
    if isinstance(low, Enclosure):
        return Enclosure(low.lo, high.hi)
    if isinstance(low, tuple):
        return Enclosure(low[0].lo, high[0].hi), high[1]
    return dataclasses.replace(high, enclosure=Enclosure(low.enclosure.lo, high.enclosure.hi))
