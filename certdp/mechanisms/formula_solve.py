"""Symbolic solving of σ = f(ε, δ) for δ, for ``tradeoff("<formula>", sigma=σ)``.

Search code (sympy's ``solve``): loaded only when a general ``tradeoff``
mechanism is built; the certificate checker never parses σ-formula specs.  The solution is re-checked at
two exact points in ball arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import sympy
from flint import arb

from certdp.errors import InputError
from certdp.expr import compile_ball, evaluate_ball
from certdp.expr.symbols import DELTA, DELTA_POS as _DPOS, EPS, EPS_POS as _EPOS
from certdp.numerics.ball import to_ball, working_precision


def _check_supported(e: sympy.Expr) -> None:
    compile_ball(e, sorted(e.free_symbols, key=lambda t: t.name))


def _ev(e: sympy.Expr, env: dict) -> arb:
    return evaluate_ball(e, env)


def solve_naive(formula: sympy.Expr, sigma: Fraction) -> sympy.Expr:
    """The unique closed-form δ with formula(ε, δ) = σ, as an expression in EPS."""
    f = formula.xreplace({EPS: _EPOS, DELTA: _DPOS})
    try:
        sols = sympy.solve(sympy.Eq(f, sympy.Rational(sigma.numerator, sigma.denominator)), _DPOS)
    except (NotImplementedError, ValueError, TypeError):  # sympy's "no algorithm" and kin
        raise InputError(f"cannot solve sigma = {formula} for delta in closed form (sympy finds no algorithm "
                         "for it); use a formula without Max/Min/piecewise parts, or give the profile "
                         "itself with profile(\"...\")") from None
    if len(sols) != 1:
        raise InputError(
            f"cannot solve sigma = {formula} for delta in closed form with a unique solution (got {sols})"
        )
    sol = sympy.sympify(sols[0]).xreplace({_EPOS: EPS})
    if sol.free_symbols - {EPS}:
        raise InputError(f"solution {sol} of the trade-off equation has unexpected symbols")
    _check_supported(sol)
    # independent check of the solution at two exact points (ball arithmetic)
    with working_precision(128):
        for e0 in (Fraction(1, 2), Fraction(3, 2)):
            d = _ev(sol, {EPS: to_ball(e0)})
            if not (d.is_finite() and d > 0):
                raise InputError(f"solved delta {sol} is not positive at eps = {e0}")
            r = _ev(formula, {EPS: to_ball(e0), DELTA: d}) - to_ball(sigma)
            if not (r.is_finite() and abs(r) < arb(2) ** -60):
                raise InputError(f"solved delta {sol} does not satisfy sigma = {formula} at eps = {e0}")
    return sol
