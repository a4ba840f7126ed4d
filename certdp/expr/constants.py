"""Exact real inputs: a decimal or fraction, or a closed-form constant.

Wherever certdp reads a number that need not be rational (ε = log 2 in Guingona
et al. 2023 Thm 3.2, δ = exp(−2)), it accepts the same safe closed forms —
``1/3``, ``log(2)``, ``exp(-2)``, ``e/(1+e)``, ``sqrt(2)/2`` — parsed by
:func:`certdp.expr.parser.parse_expression` (no eval) into an exact sympy
constant.  Values are only ever used through certified balls
(:func:`ball`) and certified signs (:func:`sign`), never floats.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.expr.evaluate import compile_ball, constant_sign
from certdp.expr.parser import parse_expression
from certdp.numerics.ball import dyadic_to_fraction, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact


def exact_real(x: object, name: str = "value") -> sympy.Expr:
    """``x`` as an exact sympy constant: numbers through :func:`exact` (Rational),
    strings that are not plain numbers through the safe expression parser.
    InputError for anything else, or for a constant that is not a finite real."""
    if isinstance(x, sympy.Expr):
        expr = x
    else:
        try:
            q = exact(x, name)
        except InputError as first:
            if not isinstance(x, str):
                raise
            try:
                expr = parse_expression(x, variables=())
            except InputError as err:
                raise InputError(f"{name}: not an exact number or closed form ({first}; {err})") from None
        else:
            return sympy.Rational(q.numerator, q.denominator)
    if expr.free_symbols:
        raise InputError(f"{name} must be a constant, got {expr}")
    if expr.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan) or not ball(expr).is_finite():
        raise InputError(f"{name} = {expr} is not a finite real number")
    return expr


def as_fraction(expr: sympy.Expr) -> Fraction | None:
    """The exact rational value, when the constant is rational."""
    return Fraction(int(expr.p), int(expr.q)) if expr.is_Rational else None


def ball(expr: sympy.Expr) -> arb:
    """A ball containing the constant, at the current precision."""
    return compile_ball(expr, [])()


def sign(expr: sympy.Expr, name: str) -> int:
    """The certified sign (−1, 0, 1) of a constant (InputError if undecidable)."""
    s = constant_sign(expr)
    if s is None:
        raise InputError(f"cannot decide the sign of {name} = {expr}")
    return s


#: Precision (bits) of the rational bracket of a closed-form input.
BRACKET_BITS = 192


def bracket(x: object, name: str = "value") -> tuple[Fraction, Fraction]:
    """Rationals lo <= x <= hi: lo = hi = x for an exact rational input; for a
    closed form (``log(2)``) the exact ends of its ball at :data:`BRACKET_BITS`
    bits (relative width about 2^-190)."""
    v = exact_real(x, name)
    q = as_fraction(v)
    if q is not None:
        return q, q
    with working_precision(BRACKET_BITS):
        b = ball(v)
        return dyadic_to_fraction(b.lower()), dyadic_to_fraction(b.upper())


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
