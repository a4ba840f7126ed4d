"""The table's slopes in balls (certdp.verifier.slopes) against sympy's derivative
of the same closed form, evaluated by mpmath at points inside each cell, and against
difference quotients of the profile (mean value: the quotient over a cell lies in
the hull of the slopes on it).  A slope ball that misses either is unsound."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy
from flint import arb

from certdp.verifier import mechs, slopes
from certdp.expr.symbols import EPS
from certdp.numerics.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound, working_precision

SPECS = [
    "laplace(scale=1/2)",
    "laplace(scale=3, sensitivity=2)",
    "gaussian(sigma=1)",
    "gaussian_dp(mu=0.7)",
    "randomized_response(p=0.25)",
    "randomized_response(p=1/2)",
    "pure_dp(eps=1)",
    "approx_dp(eps=1, delta=0.01)",
    "discrete_laplace(scale=1, sensitivity=3)",
    "subsample(laplace(scale=1), rate=0.1)",
    "subsample(gaussian(sigma=1), rate=1)",
    "subsample(gaussian(sigma=1/2), rate=0.3)",
    "subsample(subsample(randomized_response(p=0.8), rate=1/2), rate=1/3)",
    "subsample(approx_dp(eps=1/2, delta=1/100), rate=1/4)",
    "compose(gaussian(sigma=2), k=9)",
    "compose(laplace(scale=1), k=1)",
    "compose(pure_dp(eps=0.2), k=50)",
    "compose(randomized_response(p=3/4), k=7)",
    "clip_reify(gaussian(sigma=1), eps_h=2, lo=0, hi=1)",
    "clip_reify(subsample(laplace(scale=1/2), rate=0.3), eps_h=1, lo=-1, hi=1)",
]

#: cells [a, b]: small, wide, at 0, and across the kinks of the specs (1, 2, log 3 ≈ 1.0986, 1.5, 4)
CELLS = [(Fraction(0), Fraction(1, 64)), (Fraction(1, 10), Fraction(3, 10)), (Fraction(0), Fraction(3)),
         (Fraction(63, 64), Fraction(65, 64)), (Fraction(1), Fraction(11, 10)), (Fraction(7, 4), Fraction(9, 4)),
         (Fraction(3, 2), Fraction(5, 2)), (Fraction(39, 10), Fraction(41, 10)), (Fraction(5), Fraction(6))]


TOL = mpmath.mpf(10) ** -30


def _mpf(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


@pytest.mark.parametrize("spec", SPECS)
def test_slope_contains_the_derivative(spec):
    mech = mechs.parse(spec)
    d = sympy.diff(mech.profile(), EPS)
    fns = slopes.ball_functions(mech)
    assert fns is not None
    _, d_p = fns
    with working_precision(128), mpmath.workdps(40):
        for a, b in CELLS:
            cell = to_ball(a).union(to_ball(b))
            for s in (d_p(cell), slopes.slope(mech, cell)):
                assert s.is_finite(), (spec, a, b)
                for t in (Fraction(1, 7), Fraction(1, 2), Fraction(6, 7)):
                    x = a + (b - a) * t
                    v = d.subs(EPS, sympy.Rational(x.numerator, x.denominator)).rewrite(sympy.Piecewise)
                    v = mpmath.mpf(sympy.N(v, 40))
                    lo, hi = (_mpf(dyadic_to_fraction(e)) for e in (lower_bound(s), upper_bound(s)))
                    assert lo - TOL <= v <= hi + TOL, (spec, a, b, x, s, v)


@pytest.mark.parametrize("spec", SPECS)
def test_difference_quotient_in_the_slope_hull(spec):
    mech = mechs.parse(spec)
    p, d_p = slopes.ball_functions(mech)
    with working_precision(128):
        for a, b in CELLS:
            pa, pb = p(to_ball(a)), p(to_ball(b))
            quotient = (pb - pa) / to_ball(b - a)
            s = d_p(to_ball(a).union(to_ball(b)))
            assert s.lower() <= quotient.upper() and quotient.lower() <= s.upper(), (spec, a, b, quotient, s)


def test_no_slope_without_a_closed_form():
    for spec in ['profile("Max(1 - exp(eps/2 - 1), 0)")', "compose(discrete_gaussian(sigma=2), k=3)",
                 'subsample(profile("Max(1/2 - eps, 0)"), rate=1/2)', "dpsgd(noise=2, rate=0.01, steps=100)",
                 "compose(laplace(scale=1), k=3)"]:
        assert slopes.ball_functions(mechs.parse(spec)) is None, spec
    assert slopes.slope(mechs.parse("compose(laplace(scale=1), k=3)"), arb(1)) is None
