"""Certified signs and enclosures of ``a - e^ε·b + c`` for exact ``a, b, c, ε``.

Every decision in the ADP/PrDP checks (Guingona et al. 2023, Def 2.2) has this form:
a hockey-stick term ``p_a(c) - e^ε p_b(c)``, an ADP margin
``δ - Σ_S p_a + e^ε Σ_S p_b`` or a PrDP margin ``δ - Σ_T p_a``.

``a, b, c`` are exact: Python ``Fraction`` or closed sympy expressions
(e.g. ``exp(-1)``); ``ε`` is an exact rational.  When everything is rational
the value is zero only if ``b = 0`` or ``ε = 0`` (for rational ``ε ≠ 0``,
``e^ε`` is transcendental by Lindemann's theorem), and those cases are
decided exactly; otherwise the ball comparison is refined until it decides,
which it must.  Symbolic entries can cancel exactly (``e^{-1/2} - e^{1/2}
e^{-1}``); for them an undecided ball triggers an exact sympy zero test, and
if that is inconclusive too we raise :class:`PrecisionError` — never guess.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Union

import sympy
from flint import arb

from certdp.errors import InputError, PrecisionError
from certdp.numerics.ball import MAX_PREC, to_ball, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact

#: An exact real: a rational, or a closed sympy expression.
Exact = Union[Fraction, sympy.Expr]


def as_exact(x: object, name: str) -> Exact:
    """Normalise an exact number or a closed sympy expression.

    Strings that are not plain numbers are parsed with the safe parser
    :func:`certdp.expr.parse_expression` (no variables); nothing is eval'd.
    """
    if isinstance(x, sympy.Basic):
        if isinstance(x, sympy.Rational):
            return Fraction(int(x.p), int(x.q))
        if not isinstance(x, sympy.Expr) or x.free_symbols:
            raise InputError(f"{name}: {x} is not a closed numeric expression")
        if x.is_real is False:
            raise InputError(f"{name}: {x} is not real")
        return x
    if isinstance(x, str):
        try:
            return exact(x, name)
        except InputError:
            pass
        from certdp.expr import parse_expression  # noqa: PLC0415
        expr = parse_expression(x, variables=())
        return as_exact(expr, name)
    return exact(x, name)


def is_rational(x: Exact) -> bool:
    return isinstance(x, Fraction)


def to_sympy(x: Exact) -> sympy.Expr:
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    return x


def ball_of(x: Exact) -> arb:
    """Ball containing ``x`` at the current working precision."""
    if isinstance(x, Fraction):
        return to_ball(x)
    from certdp.expr import evaluate_ball  # noqa: PLC0415

    return evaluate_ball(x, {})


def exact_add(*xs: Exact) -> Exact:
    """Exact sum (rational when all terms are)."""
    if all(isinstance(x, Fraction) for x in xs):
        return sum(xs, Fraction(0))
    return sympy.Add(*[to_sympy(x) for x in xs])


def exact_mul(x: Exact, k: int) -> Exact:
    return x * k if isinstance(x, Fraction) else sympy.Integer(k) * x


def _lin_ball(a: Exact, b: Exact, c: Exact, eps: Fraction) -> arb:
    return ball_of(a) - to_ball(eps).exp() * ball_of(b) + ball_of(c)


def _lin_rational(a: Exact, b: Exact, c: Exact, eps: Fraction) -> Fraction | None:
    """The exact value when it is rational and known to be so, else None."""
    if not (is_rational(a) and is_rational(b) and is_rational(c)):
        return None
    if b == 0 or eps == 0:
        return a - b + c
    return None


def _is_zero_symbolic(a: Exact, b: Exact, c: Exact, eps: Fraction) -> bool:
    """Exact zero test via sympy simplification (only used for symbolic entries)."""
    e = to_sympy(a) - sympy.exp(sympy.Rational(eps.numerator, eps.denominator)) * to_sympy(b) + to_sympy(c)
    try:
        return sympy.simplify(e) == 0
    except Exception:  # pragma: no cover - sympy internals
        return False


def lin_sign(a: Exact, b: Exact, c: Exact, eps: Fraction, what: str = "value") -> tuple[int, int]:
    """Certified sign of ``a - e^ε b + c`` and the precision that decided it."""
    q = _lin_rational(a, b, c, eps)
    if q is not None:
        return (q > 0) - (q < 0), 64
    all_rational = is_rational(a) and is_rational(b) and is_rational(c)
    prec = 64
    tried_symbolic = False
    while True:
        with working_precision(prec):
            v = _lin_ball(a, b, c, eps)
            if v > 0:
                return 1, prec
            if v < 0:
                return -1, prec
            if v.is_exact() and v.is_zero():
                return 0, prec
        if not all_rational and not tried_symbolic and prec >= 512:
            tried_symbolic = True
            if _is_zero_symbolic(a, b, c, eps):
                return 0, prec
        if prec >= MAX_PREC:
            raise PrecisionError(f"cannot decide the sign of {what} at {prec} bits")
        prec *= 2


def lin_enclosure(a: Exact, b: Exact, c: Exact, eps: Fraction, prec: int = 128) -> Enclosure:
    """Enclosure of ``a - e^ε b + c`` (tight to about ``prec`` bits)."""
    q = _lin_rational(a, b, c, eps)
    if q is not None:
        return Enclosure.exact(q)
    with working_precision(max(prec, 128) + 64):
        return Enclosure.from_ball(_lin_ball(a, b, c, eps))


def format_exact(x: Exact) -> str:
    """Exact string: ``"3/10"`` for rationals, sympy's string for expressions."""
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    return sympy.sstr(x)
