"""The mpmath kernel's own closed forms (verifier.mechs_iv) and its fixed-point Φ series
(verifier.phi_series) against independent truth: mpmath at high precision (mp, not iv) and
the flint kernel's table; containment and width."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
from mpmath import iv, mp

from certdp.numerics import iv as kernel
from certdp.numerics.ball import to_ball, working_precision
from certdp.verifier import mechs_iv
from certdp.verifier.mechs import parse
from certdp.verifier.phi_series import ncdf

SPECS = ["laplace(scale=1/2)", "gaussian(sigma=2)", "gaussian_dp(mu=6)", "randomized_response(p=3/4)",
         "pure_dp(eps=1)", "approx_dp(eps=1, delta=1e-6)", "discrete_laplace(scale=2, sensitivity=3)",
         "discrete_gaussian(sigma=2)", "subsample(laplace(scale=1), rate=1/10)", "compose(gaussian(sigma=3), k=4)",
         "compose(pure_dp(eps=0.2), k=50)", "compose(randomized_response(p=0.6), k=30)",
         "clip_reify(gaussian(sigma=1), eps_h=2, lo=0, hi=1)", "subsample(randomized_response(p=3/4), rate=1/2)"]
EPS = [Fraction(0), Fraction(1, 7), Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(5), Fraction(100)]


@pytest.fixture(autouse=True)
def _restore_precision():
    old_iv, old_mp = iv.prec, mp.prec
    yield
    iv.prec, mp.prec = old_iv, old_mp


@pytest.mark.parametrize("spec", SPECS)
def test_closed_forms_enclose_the_flint_table_and_are_tight(spec):
    mech = parse(spec)
    assert mechs_iv.covered(mech)
    prof = mechs_iv.profile(mech)
    iv.prec = 128
    for e in EPS:
        v = prof(e)
        with working_precision(160):
            b = mech.delta_ball(to_ball(e))
        lo, hi = float(b.lower()), float(b.upper())
        assert v.a <= hi * (1 + 1e-12) + 1e-300 and v.b >= lo * (1 - 1e-12), (spec, e, v, b)  # they overlap
        width = v.b - v.a
        # relatively tight, or (a value that is 0: discrete_gaussian's bounded tails) absolutely
        assert width <= max(abs(v.b) * mpmath.mpf(2) ** -90, mpmath.mpf(2) ** -(128 + 60)), (spec, e, v)


def test_gaussian_against_mpmath_closed_form():
    mp.prec = 600
    iv.prec = 128
    for mu, e in ((Fraction(6), Fraction(100)), (Fraction(1, 2), Fraction(1, 3)), (Fraction(3, 2), Fraction(4))):
        v = mechs_iv.delta_mu(kernel.point(mu), kernel.point(e))
        m, x = mp.mpf(mu.numerator) / mu.denominator, mp.mpf(e.numerator) / e.denominator
        truth = mp.ncdf(-x / m + m / 2) - mp.exp(x) * mp.ncdf(-x / m - m / 2)
        assert v.a <= truth <= v.b
        assert v.b - v.a <= truth * mpmath.mpf(2) ** -100


def test_phi_series_contains_mpmath_and_is_tight():
    mp.prec = 3000  # the series sums with up to p + 2600 bits: the reference must resolve that
    rng = random.Random(7)
    for p in (64, 200, 600):
        iv.prec = p
        for _ in range(30):
            x = rng.uniform(-60, 60) * rng.choice([1, 1e-3, 1e-9])
            v = ncdf(iv.mpf(x))
            truth = mp.ncdf(mp.mpf(x))
            assert v.a <= truth <= v.b, (p, x)
            assert v.b - v.a <= mpmath.mpf(2) ** -(p + 4), (p, x)


def test_slopes_contain_difference_quotients():
    """P(b) − P(a) = ∫ P' over [a, b]: the quotient lies in the hull of the slopes on [a, b]."""
    iv.prec = 128
    for spec in SPECS:
        mech = parse(spec)
        fns = mechs_iv.functions(mech)
        if fns is None:
            continue
        P, dP = fns
        for a, b in ((Fraction(1, 10), Fraction(2, 10)), (Fraction(1), Fraction(11, 10)), (Fraction(3), Fraction(4))):
            q = (P(kernel.point(b)) - P(kernel.point(a))) / kernel.point(b - a)
            s = dP(kernel.hull(kernel.point(a), kernel.point(b)))
            assert s.a <= q.b and q.a <= s.b, (spec, a, b, q, s)


def test_phi_far_tail_is_relatively_tight():
    """Beyond the series, Φ(−s) = φ(s)·R(s) with Laplace's continued fraction: relatively
    accurate down to 1e-8000, against mpmath's own erfc at high precision."""
    mp.prec = 600
    for p in (64, 128, 300):
        iv.prec = p
        for x in (-4.5, -6.5, -10.25, -30.3, -36.3, -120.0, -1e3):
            v = ncdf(iv.mpf(x))
            truth = mp.ncdf(mp.mpf(x))
            assert v.a <= truth <= v.b, (p, x)
            assert v.b - v.a <= truth * mpmath.mpf(2) ** -(p + 4), (p, x)
            w = ncdf(iv.mpf(-x))  # Φ(s) = 1 − Φ(−s)
            assert w.a <= 1 - truth <= w.b, (p, x)


def test_phi_on_thin_intervals_contains_both_ends_and_is_tight():
    """Φ over a thin interval [a, b] from one end plus (b − a)·max φ: it must contain Φ(a) and
    Φ(b) and be hardly wider than Φ(b) − Φ(a) itself."""
    mp.prec = 700
    rng = random.Random(11)
    for p in (64, 128, 300):
        iv.prec = p
        for _ in range(25):
            x = rng.uniform(-40, 40) * rng.choice([1, 1e-6])
            w = rng.choice([2.0 ** -(p - 4), 1e-30, 1e-9])
            arg = iv.mpf(x) + iv.mpf([0, w])
            v = ncdf(arg)
            lo, hi = mp.ncdf(mp.mpf(arg.a)), mp.ncdf(mp.mpf(arg.b))
            assert v.a <= lo and hi <= v.b, (p, x, w)
            assert v.b - v.a <= (hi - lo) * (1 + mpmath.mpf(2) ** -12) + max(lo, hi) * mpmath.mpf(2) ** -p \
                + mpmath.mpf(2) ** -(p + 4), (p, x, w)
