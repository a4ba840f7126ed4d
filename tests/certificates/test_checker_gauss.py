"""The checker's own Gaussian primitives (:mod:`certdp.verifier.gauss` and
:mod:`certdp.verifier.cells`) are the ones :mod:`certdp.numerics` uses (one owner, issue 36),
and they agree with mpmath at 60 digits (independent truth)."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
from flint import arb

from certdp.numerics import cells, gdp, normal
from certdp.numerics.ball import dyadic_to_fraction, to_ball, working_precision
from certdp.verifier import cells as vcells, gauss

from refs import mp_digits  # noqa: E402

_mp = pytest.fixture(autouse=True, scope="module")(mp_digits(60))


def _cases():
    rng = random.Random(36)
    return [(Fraction(rng.randint(1, 4000), 1000), Fraction(rng.randint(0, 400000), 1000)) for _ in range(40)]


@pytest.mark.parametrize("mu,eps", _cases()[:20])
def test_delta_mu_agrees(mu, eps):
    with working_precision(128):
        a = gauss.delta_mu_ball(to_ball(mu), to_ball(eps))
        b = gdp.delta_mu_ball(to_ball(mu), to_ball(eps))
        s = vcells.delta_mu_slope_ball(to_ball(mu), to_ball(eps))
        t = cells.delta_mu_slope_ball(to_ball(mu), to_ball(eps))
    assert a.overlaps(b) and s.overlaps(t)
    m, e = mpmath.mpf(mu.numerator) / mu.denominator, mpmath.mpf(eps.numerator) / eps.denominator
    truth = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
    if truth > mpmath.mpf(10) ** -50:  # above the 60-digit reference's own error
        lo, hi = (dyadic_to_fraction(v) for v in (a.lower(), a.upper()))
        tol = mpmath.mpf(10) ** -40
        assert mpmath.mpf(lo.numerator) / lo.denominator <= truth * (1 + tol)
        assert truth * (1 - tol) <= mpmath.mpf(hi.numerator) / hi.denominator
    assert gauss.delta_mu_start_prec(0, mu, eps) == gdp._delta_mu_start_prec(0, mu, eps)


@pytest.mark.parametrize("x", ["-80", "-7.5", "-1", "0", "0.3", "6", "70"])
def test_phi_agrees(x):
    with working_precision(128):
        xb = arb(x)
        for f, g in ((gauss.Phi_ball, normal.Phi_ball), (gauss.Phi_upper_ball, normal.Phi_upper_ball),
                     (gauss.phi_ball, normal.phi_ball)):
            assert f(xb).overlaps(g(xb)) and abs(f(xb).rad() - g(xb).rad()) <= abs(g(xb).mid()) * arb(2) ** -100


def test_one_owner():
    # numerics re-exports the checker's functions: the same objects, not copies
    assert gdp.delta_mu_ball is gauss.delta_mu_ball and normal.Phi_ball is gauss.Phi_ball
    assert normal.mills_ratio_series_ball is gauss.mills_ratio_series_ball
    assert cells.second_order_holds is vcells.second_order_holds and cells.prove_on_cells is vcells.prove_on_cells
    assert cells.CellBudgetExceeded is vcells.CellBudgetExceeded
