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

import sympy
from flint import arb

from certdp.verifier.errors import InputError
from certdp.expr.evaluate import compile_ball, constant_sign
from certdp.expr.parser import parse_expression
from certdp.verifier.exact import exact


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

