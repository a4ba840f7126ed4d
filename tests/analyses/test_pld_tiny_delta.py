"""Tiny δ targets get a smaller truncation τ automatically (issue 16): a sound,
finite answer instead of "no finite eps", with relative accuracy for tiny δ values."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian
from certdp.mechanisms import parse_spec
from refs import delta_mu_ref, mpf


def test_eps_at_delta_1e_30_for_a_laplace_composition_is_finite_and_exact_enough():
    """compose(laplace(scale=5), k=50): the loss is at most 50/5 = 10 and P(L = 10) = 2^-50,
    so δ(ε) = 2^-50 (1 − e^{ε−10}) just below 10: ε(1e-30) = 10 + log(1 − 1e-30·2^50)."""
    acc = PLDAccountant().compose(parse_spec("laplace(scale=5)"), 50)
    e = acc.epsilon(Fraction(1, 10**30))
    with mpmath.workdps(60):
        truth = 10 + mpmath.log(1 - mpf(Fraction(1, 10**30)) * 2**50)
    lo, hi = mpf(Fraction(e.lo_str(40))), mpf(Fraction(e.hi_str(40)))
    assert lo <= truth <= hi and hi - lo < mpf("1e-12")


def test_tiny_delta_values_keep_relative_accuracy():
    """A Gaussian composition through the loss-law path: δ_{√k}(ε) ≈ 1e-25 enclosed within 5 %."""
    from certdp.analyses.accountants.discretise import LawSource
    from certdp.analyses.accountants.loss_laws import GaussianLaw

    acc = PLDAccountant().compose(LawSource(GaussianLaw(Fraction(1, 2))), 4)
    eps = Fraction(22)
    truth = delta_mu_ref(2, eps)
    assert truth < mpf("1e-20")
    d = acc.delta(eps)
    lo, hi = mpf(Fraction(d.lo_str(40))), mpf(Fraction(d.hi_str(40)))
    assert lo <= truth <= hi and hi <= truth * mpf("1.05")


def test_dpsgd_delta_1e_18_answers():
    from certdp.analyses.accountants.dpsgd import dpsgd

    r = dpsgd(1, Fraction(1, 100), 100, delta=Fraction(11, 10**19))
    assert r.eps.hi_exact < 5 and r.eps.lo_exact > 4


@pytest.mark.parametrize("sigma, steps, delta", [(10, 1000, Fraction(1, 10**18)), (20, 4000, Fraction(1, 10**30))])
def test_tiny_delta_truncation_scales_with_the_number_of_steps(sigma, steps, delta):
    """The mass moved to +∞ doubles with every squaring, so τ must shrink with the number
    of composed steps too: rate-1 subsampled Gaussians through the mixture path are
    exactly (√T/σ)-GDP, ε(δ) solved in mpmath.  Before τ followed K, the enclosures were
    [32.21, 32.26] and [40.82, 40.96] (widths 0.037 and 0.13)."""
    acc = PLDAccountant(h=Fraction(1, 1024)).compose(SubsampledGaussian(Fraction(sigma), Fraction(1)), steps)
    e = acc.epsilon(delta)
    mu = mpmath.sqrt(steps) / sigma
    with mpmath.workdps(50):
        truth = mpmath.findroot(lambda x: delta_mu_ref_mpf(mu, x) - mpf(delta), (mpf(1), mpf(100)), solver="bisect")
    lo, hi = mpf(Fraction(e.lo_str(40))), mpf(Fraction(e.hi_str(40)))
    assert lo <= truth <= hi
    assert hi - lo < mpf("0.005")


def delta_mu_ref_mpf(m, e):
    """δ_μ(ε) for mpf arguments (the reference formula of refs.delta_mu_ref)."""
    return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
