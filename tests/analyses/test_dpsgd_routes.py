"""DP-SGD routes (issue 16): full batch (rate 1) is answered exactly as a
composition of Gaussians, and a tiny σ gets an automatic grid instead of a
traceback or a grid too large for memory."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certdp.errors import InputError

from certdp.analyses.accountants.dpsgd import dpsgd
from certdp.analyses.accountants.pld import DEFAULT_H, PLDAccountant, SubsampledGaussian
from timing import timed, within


def _mp_delta(mu: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.e**eps * mpmath.ncdf(-eps / mu - mu / 2)


@timed(6)
@pytest.mark.parametrize("noise,steps,eps", [("2", 4, "1"), ("3/10", 100000, "500000"), ("1", 1, "1/3")])
def test_full_batch_delta_is_the_gaussian_profile(noise, steps, eps, time_limit):
    with mpmath.workdps(50):
        mu = mpmath.sqrt(steps) / mpmath.mpf(Fraction(noise).numerator) * Fraction(noise).denominator
        truth = _mp_delta(mu, mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator)
        with within(time_limit):
            res = dpsgd(noise, 1, steps, eps=eps, mu=True)
        assert res.delta.lower_float() <= truth <= res.delta.upper_float()
        assert res.delta.hi - res.delta.lo <= abs(truth) * 1e-15
        assert res.mu.lower_float() <= mu <= res.mu.upper_float()
        assert res.residual.hi == 0 and res.regret.hi == 0
        adv = 2 * mpmath.ncdf(mu / 2) - 1
        assert res.advantage.lower_float() <= adv <= res.advantage.upper_float() <= 1
        assert res.settings["name"] == "exact-gdp"


def test_full_batch_eps_solves_the_gaussian_profile():
    res = dpsgd("3/10", 1, 100000, delta="1e-5")
    with mpmath.workdps(60):
        mu = mpmath.sqrt(100000) / mpmath.mpf("0.3")
        lo, hi = mpmath.mpf(res.eps.lo_exact.numerator) / res.eps.lo_exact.denominator, \
            mpmath.mpf(res.eps.hi_exact.numerator) / res.eps.hi_exact.denominator
        # δ_μ is decreasing in ε: δ(lo) >= 1e-5 >= δ(hi) brackets the root
        assert _mp_delta(mu, lo) >= mpmath.mpf("1e-5") >= _mp_delta(mu, hi)
        assert hi - lo <= 1e-9 * hi


def test_automatic_grid_widens_for_tiny_noise():
    acc = PLDAccountant().compose(SubsampledGaussian(Fraction(1, 100), Fraction(1, 100)), 10)
    assert acc.h > DEFAULT_H and (acc.h / DEFAULT_H).denominator == 1  # a power-of-2 multiple
    assert PLDAccountant().compose(SubsampledGaussian(Fraction(1), Fraction(1, 100)), 10).h == DEFAULT_H
    # σ = 1e-30 (the smallest taken) must not overflow the float arithmetic of the choice
    tiny = PLDAccountant().compose(SubsampledGaussian(Fraction(1, 10**30), Fraction(1, 2)), 1)
    assert tiny.h > 10**50
    # below it the float search would underflow: a clear refusal, not a wrong grid
    with pytest.raises(InputError, match="below the range"):
        PLDAccountant().compose(SubsampledGaussian(Fraction(1, 10**300), Fraction(1, 2)), 1)


def test_tiny_noise_is_answered_with_a_narrow_enclosure():
    """σ = q = 0.01, T = 10: one sampled step leaks a loss ≈ 1/(2σ²) = 5,000;
    δ = 1e-5 needs about three sampled steps (P(Bin(10, 0.01) >= 4) ≈ 2e-7 < 1e-5 <
    P(Bin >= 3) ≈ 1.1e-4), so ε lies between 2·5,000 and 4·5,200."""
    res = dpsgd("1/100", "1/100", 10, delta="1e-5")
    assert 10_000 < res.eps.lower_float() and res.eps.upper_float() < 21_000
    assert res.eps.upper_float() - res.eps.lower_float() <= 0.01 * res.eps.upper_float()
