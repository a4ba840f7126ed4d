"""The API functions added for the teaching notebooks (issue 18): mu_pure_dp,
phi, pld, switch_point, is_adp, is_prdp, counterexample -- each checked against
an independent truth (mpmath, closed forms, hand-computed exact verdicts)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

import certdp
from refs import delta_mu_ref, in_enclosure, mp_digits, mpf, mu_pure_ref

_mp = pytest.fixture(autouse=True)(mp_digits(40))


@pytest.mark.parametrize("eps0", ["1/2", "1", "2"])
def test_mu_pure_dp_against_mpmath(eps0):
    assert in_enclosure(certdp.mu_pure_dp(eps0), mu_pure_ref(Fraction(eps0)))


def test_phi_composition_of_gaussians_is_delta_mu():
    # 4 Gaussians with sigma = 2 compose to exactly 1-GDP (mu^2 = k / sigma^2)
    for method in ("auto", "integral"):
        acc = certdp.phi("gaussian(sigma=2)", 4, method=method)
        assert acc.mu_squared == 1
        for eps in (Fraction(1, 2), Fraction(2)):
            assert in_enclosure(acc.delta(eps), delta_mu_ref(1, eps))


def test_phi_heterogeneous_and_mass_at_infinity():
    acc = certdp.phi("approx_dp(eps=1/10, delta=1e-6)", 10).compose(certdp.mechanism("gaussian(sigma=1)"), 1)
    assert acc.delta_at_infinity().contains(1 - (1 - Fraction(1, 10**6)) ** 10)
    # randomized response p = 3/4 once: delta(eps) = (3/4 - e^eps/4)^+ (closed form)
    rr = certdp.phi("randomized_response(p=3/4)")
    assert in_enclosure(rr.delta(Fraction(1, 2)), mpf("0.75") - mpmath.exp(mpf("0.5")) / 4)


def test_pld_single_gaussian_against_delta_mu():
    acc = certdp.pld("gaussian(sigma=1)", 1)
    for eps in (Fraction(1, 2), Fraction(2)):
        assert in_enclosure(acc.delta(eps), delta_mu_ref(1, eps))


def test_switch_point_sgd_against_mpmath():
    # SGD (A=2, B=1, sigma=2): naive profile exp(-x^2); the switch point maximises q(x) = (1 - e^{-x^2}) / (1 + e^x)
    q = lambda x: (1 - mpmath.exp(-x**2)) / (1 + mpmath.exp(x))  # noqa: E731
    x_star = mpmath.findroot(lambda x: mpmath.diff(q, x), mpf("1.2"))
    sp = certdp.switch_point("sgd(A=2, B=1, sigma=2)", digits=12)
    assert in_enclosure(sp.eps, x_star)
    assert in_enclosure(sp.delta, mpmath.exp(-x_star**2))


def test_switch_point_refuses_other_mechanisms():
    with pytest.raises(certdp.InputError):
        certdp.switch_point("laplace(scale=1)")


RR = [["3/4", "1/4"], ["1/4", "3/4"]]  # randomized response: delta(eps) = (3/4 - e^eps/4)^+, loss ln 3 w.p. 3/4


def test_is_adp_exact_verdicts():
    assert certdp.is_adp(RR, 0, "1/2").holds  # delta(0) = 1/2 exactly
    assert not certdp.is_adp(RR, 0, "1/2 - 1/10**9").holds
    assert certdp.is_adp(RR, "11/10", 0).holds and not certdp.is_adp(RR, "109/100", 0).holds  # zero from ln 3 ~ 1.0986
    check = certdp.is_adp(RR, 1, "1/10")  # delta(1) = 3/4 - e/4 ~ 0.0704
    with mpmath.workdps(80):
        truth = mpf("0.1") - (mpf("0.75") - mpmath.e / 4)
    assert check.holds and in_enclosure(check.margin, truth)


def test_is_prdp_exact_verdicts():
    # the loss ln 3 ~ 1.0986 exceeds eps = 1 with probability 3/4, and never exceeds eps = 6/5
    assert certdp.is_prdp(RR, 1, "3/4").holds
    assert not certdp.is_prdp(RR, 1, "3/4 - 1/10**9").holds
    assert certdp.is_prdp(RR, "6/5", 0).holds


def test_counterexample_is_adp_but_not_prdp_by_independent_checks():
    cx = certdp.counterexample("1/2", "2/5", "1/2")
    assert cx.valid
    table = [[cx.p if a == c else cx.q for c in range(cx.n)] for a in range(cx.n)]
    assert certdp.is_adp(table, "1/2", "2/5").holds and not certdp.is_prdp(table, "1/2", "2/5").holds
    # Lemma 3.1 (3): e^eps_hat q < p <= e^eps q + delta, checked in mpmath
    p, q = mpf(cx.p), mpf(cx.q)
    assert mpmath.exp(mpf("0.5")) * q < p <= mpmath.exp(mpf("0.5")) * q + mpf("0.4")
