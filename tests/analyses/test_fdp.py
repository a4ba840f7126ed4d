"""Certified f-DP reporting (seed 003 eqs. 8, 21, 23) against closed forms.

For rate 1 the T-fold Gaussian mechanism is exactly μ-GDP with μ = √T/σ, so
its trade-off curve is f_μ(α) = Φ(Φ⁻¹(1−α) − μ) (evaluated here with mpmath,
independently of certdp's ball code), its advantage is 2Φ(μ/2) − 1, and its
tight μ is μ itself.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian
from certdp.numerics.ball import working_precision
from certdp.analyses.fdp import (
    _Profile,
    f_lower_at,
    f_upper_at,
    gdp_report,
    phi_inv_lower,
    phi_inv_upper,
)
from flint import arb

MU = 2  # σ = 5, T = 100


def _mp(x: arb) -> mpmath.mpf:
    """The exact value of an exact ball as an mpmath number."""
    man, exp = x.man_exp()
    with mpmath.workdps(60):
        return mpmath.ldexp(mpmath.mpf(int(man)), int(exp))


@pytest.fixture(scope="module")
def gauss_acc():
    return PLDAccountant(h=Fraction(1, 256)).compose(SubsampledGaussian(Fraction(5)), 100)


def ndtri_mp(p):
    """Φ⁻¹(p) by bisection on mpmath's ncdf (accurate in the tails)."""
    with mpmath.workdps(50):
        p = mpmath.mpf(p)
        lo, hi = mpmath.mpf(-60), mpmath.mpf(60)
        for _ in range(300):
            mid = (lo + hi) / 2
            if mpmath.ncdf(mid) < p:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


def f_mu_mp(mu, alpha):
    with mpmath.workdps(40):
        return mpmath.ncdf(-ndtri_mp(alpha) - mu)


def test_trade_off_bounds_bracket_gaussian_curve(gauss_acc):
    up = [_Profile.of(gauss_acc.plds("upper")[r]) for r in ("add", "remove")]
    lo = [_Profile.of(gauss_acc.plds("lower")[r]) for r in ("add", "remove")]
    with working_precision(128):
        for alpha in ("1e-8", "1e-4", "0.01", "0.1", "0.3", "0.5", "0.8"):
            x = arb(alpha)
            truth = f_mu_mp(MU, mpmath.mpf(alpha))
            fl, fu = f_lower_at(up, x), f_upper_at(lo, x)
            assert fl.is_exact() and fu.is_exact()
            assert _mp(fl) <= truth <= _mp(fu), (alpha, fl, truth, fu)
            assert float(fu.mid()) - float(fl.mid()) < 0.02


def test_gaussian_report_contains_mu_and_advantage(gauss_acc):
    rep = gdp_report(gauss_acc, residual="1e-8")
    # the tight μ of an exactly 2-GDP mechanism is 2: the certified lower end cannot exceed it
    assert rep.mu.lo <= arb(2)
    # the reported μ is within the discretisation error of 2
    assert abs(rep.mu.mid - 2) < 0.02
    with mpmath.workdps(30):
        adv = 2 * mpmath.ncdf(mpmath.mpf(1)) - 1
    assert rep.advantage.contains(adv)
    assert rep.residual_exact == Fraction(1, 10**8) and rep.residual.contains(Fraction(1, 10**8))
    # regret of a μ within 0.02 of the truth is small, and the enclosure is ordered
    assert rep.regret is not None
    assert rep.regret.hi < arb("0.001")
    # Δ(f_2, f_μ) for μ >= 2 is sup (δ_μ − δ_2)/(1+e^ε) >= 0: the enclosure must reach it
    with mpmath.workdps(30):
        m = mpmath.mpf(rep.mu.hi_str(30))
        best = mpmath.mpf(0)
        for e in [mpmath.mpf(i) / 20 for i in range(0, 200)]:
            d = lambda mm: mpmath.ncdf(-e / mm + mm / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mm - mm / 2)  # noqa: E731
            best = max(best, (d(m) - d(mpmath.mpf(2))) / (1 + mpmath.exp(e)))
    assert rep.regret.hi >= arb(str(float(best)))


def test_phi_inv_bounds_vs_mpmath():
    with working_precision(128), mpmath.workdps(40):
        for p in ("1e-300", "1e-20", "0.001", "0.3", "0.5", "0.7", "0.999999"):
            b = arb(p)
            t = ndtri_mp(p)
            assert _mp(phi_inv_lower(b)) <= t <= _mp(phi_inv_upper(b))
            assert phi_inv_lower(b).is_exact() and phi_inv_upper(b).is_exact()


def test_subsampled_report_orders_mu_below_strict_tail():
    # σ = 2, q = 0.1, T = 50: the PLD μ (except residual) is far below the strict tail √T/σ
    from certdp.analyses.accountants.dpsgd import dpsgd

    r = dpsgd(2, "0.1", 50, delta="1e-5", mu=True, h=Fraction(1, 512), regret=False)
    assert r.mu.hi < r.strict_mu_at_least.lo
    assert r.mu.lo <= r.mu.hi
    assert r.settings["residual"] == "1/10000000000" and r.residual.contains(Fraction(1, 10**10))


def test_a_mechanism_with_zero_privacy_loss_measures_mu_zero():
    # randomized response with p = 1/2 outputs a fair coin: δ ≡ 0, so μ = 0 exactly and the
    # regret against f_0 = 1 − α is 0 (the regret used to evaluate δ_μ at μ = 0: "ball nan")
    import certdp

    ans = certdp.gdp("compose(randomized_response(p=1/2), k=3)")
    assert ans.mu.hi == 0 and ans.mu.lo == 0
