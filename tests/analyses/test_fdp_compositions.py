"""GDP reports for any composition the PLD engine holds (issue 16), against independent truth."""

from __future__ import annotations

from fractions import Fraction

import mpmath

from certdp.analyses.dispatch import gdp_of
from certdp.mechanisms import parse_spec
from refs import mpf


def delta_mu(mu, eps):
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def pure_dp_delta(eps0, k, eps):
    p = mpmath.exp(eps0) / (1 + mpmath.exp(eps0))
    return mpmath.fsum(mpmath.binomial(k, i) * p ** (k - i) * (1 - p) ** i
                       * max(0, 1 - mpmath.exp(eps - eps0 * (k - 2 * i))) for i in range(k + 1))


def test_pure_dp_composition_report_against_the_binomial_profile():
    """μ.hi with η: δ(ε) <= δ_μ(ε) + η must hold for the exact binomial profile at every ε
    checked; and μ.lo must be refuted: some ε has δ(ε) > δ_{μ.lo}(ε) + η.  (With a residual
    allowed; without one, gdp_of answers the strict μ: tests/analyses/test_strict_gdp.py.)"""
    ans = gdp_of(parse_spec("compose(pure_dp(eps=1/5), k=50)"), residual=Fraction(1, 10**10))
    mu_hi, mu_lo = mpf(ans.mu.hi_exact), mpf(ans.mu.lo_exact)
    eta = mpf(ans.residual.hi_exact)
    assert ans.strict_mu_at_least is None and "PLD" in ans.method
    with mpmath.workdps(40):
        e0 = mpf(Fraction(1, 5))
        grid = [mpf(i) / 20 for i in range(0, 200)]
        truth = [pure_dp_delta(e0, 50, e) for e in grid]
        assert all(t <= delta_mu(mu_hi, e) + eta for t, e in zip(truth, grid))
        assert any(t > delta_mu(mu_lo * (1 - mpf("1e-3")), e) + eta for t, e in zip(truth, grid))
    assert mu_hi - mu_lo < mpf("1e-3")


def test_laplace_composition_report_is_consistent_with_its_profile():
    ans = gdp_of(parse_spec("compose(laplace(scale=5), k=50)"))
    assert 1.3 < ans.mu.lo_exact <= ans.mu.hi_exact < 1.45 and ans.mu.hi_exact - ans.mu.lo_exact < Fraction(1, 1000)


def test_upper_bound_only_compositions_report_no_lower_end():
    ans = gdp_of(parse_spec('compose(profile("Max(1 - exp(eps/2 - 1), 0)"), k=10)'))
    assert ans.mu.lo_exact == 0 and ans.mu.hi_exact > 0 and "upper bound only" in ans.method
