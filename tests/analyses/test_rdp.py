"""The certified RDP accountant (issue 17): curves against independent
high-precision computations (mpmath), the Abadi et al. 2016 example, and
soundness against the tight PLD accountant (RDP is never below it)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian
from certdp.analyses.accountants.rdp import RDPAccountant
from certdp.cli import main
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec


def _contains(ball, value) -> bool:
    lo, hi = mpmath.mpf(ball.lower().str(40, radius=False)), mpmath.mpf(ball.upper().str(40, radius=False))
    tol = mpmath.mpf(10) ** -35 * max(1, abs(value))  # the decimal printing of the ends
    return lo - tol <= value <= hi + tol


def _mp_sgm(q, sigma, alpha) -> mpmath.mpf:
    """Mironov, Talwar & Zhang 2019 §3.3, written independently with mpmath."""
    q, s = mpmath.mpf(q), mpmath.mpf(sigma)
    a = mpmath.fsum(mpmath.binomial(alpha, k) * (1 - q) ** (alpha - k) * q**k * mpmath.exp((k * k - k) / (2 * s * s))
                    for k in range(alpha + 1))
    return mpmath.log(a) / (alpha - 1)


@settings(max_examples=30, deadline=None)
@given(sigma=st.sampled_from(["0.5", "0.8", "1", "2", "4"]), q=st.sampled_from(["0.001", "0.01", "0.1", "0.5"]),
       alpha=st.integers(2, 128))
def test_subsampled_gaussian_curve_contains_the_binomial_sum(sigma, q, alpha):
    acc = RDPAccountant().compose(parse_spec(f"subsample(gaussian(sigma={sigma}), rate={q})"))
    with mpmath.workdps(60):
        assert _contains(acc.rdp(alpha), _mp_sgm(mpmath.mpf(q), mpmath.mpf(sigma), alpha))


@pytest.mark.parametrize("scale,alpha", [("1", 2), ("0.5", 7), ("3", 40)])
def test_laplace_curve_against_the_renyi_integral(scale, alpha):
    """D_α(Lap(0,b) ‖ Lap(1,b)) = log ∫ p^α q^{1−α} / (α−1), by quadrature."""
    acc = RDPAccountant().compose(parse_spec(f"laplace(scale={scale})"))
    with mpmath.workdps(40):
        b = mpmath.mpf(scale)
        f = lambda x: mpmath.exp(-alpha * abs(x) / b - (1 - alpha) * abs(x - 1) / b) / (2 * b)  # noqa: E731
        integral = mpmath.quad(f, [-mpmath.inf, 0, 1, mpmath.inf])
        assert _contains(acc.rdp(alpha), mpmath.log(integral) / (alpha - 1))


def test_gaussian_and_rr_closed_forms_and_additivity():
    acc = RDPAccountant().compose(parse_spec("gaussian(sigma=2)"), 3).compose(parse_spec("randomized_response(p=0.6)"), 2)
    with mpmath.workdps(40):
        p = mpmath.mpf("0.6")
        for a in (2, 5, 33):
            rr = mpmath.log(p**a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1)
            assert _contains(acc.rdp(a), 3 * mpmath.mpf(a) / 8 + 2 * rr)


def test_abadi_example_classic_conversion_and_the_tight_value():
    """Abadi et al. 2016 (q = 0.01, σ = 4, T = 10⁴, δ = 1e-5) report ε ≈ 1.26 from the
    moments accountant (classic conversion at integer orders).  The classic
    conversion computed with mpmath over the same orders must lie inside
    [1.2, 1.3]; certdp's best bound (improved conversion) is below it, and the
    tight PLD value is below both."""
    acc = RDPAccountant().compose(parse_spec("subsample(gaussian(sigma=4), rate=0.01)"), 10000)
    with mpmath.workdps(40):
        classic = min(10000 * _mp_sgm(mpmath.mpf("0.01"), 4, a) + mpmath.log(10**5) / (a - 1) for a in range(2, 65))
    assert 1.2 <= classic <= 1.3
    bound = acc.epsilon_bound("1e-5")
    assert bound.enclosure.lo == 0 and bound.enclosure.upper_float() <= classic
    assert bound.conversion == "improved"
    pld = PLDAccountant().compose(SubsampledGaussian(Fraction(4), Fraction(1, 100)), 10000).epsilon("1e-5")
    assert pld.upper_float() < bound.enclosure.upper_float()


@pytest.mark.parametrize("sigma,q,T", [("1", "1/10", 10), ("2", "1/100", 100), ("0.8", "1/2", 5)])
def test_rdp_is_never_below_the_tight_lower_bound(sigma, q, T):
    rdp = RDPAccountant().compose(parse_spec(f"subsample(gaussian(sigma={sigma}), rate={q})"), T)
    pld = PLDAccountant().compose(SubsampledGaussian(Fraction(sigma), Fraction(q)), T)
    for delta in ("1e-3", "1e-6"):
        assert rdp.epsilon(delta).hi >= pld.epsilon(delta).lo
    for eps in ("0.5", "2"):
        assert rdp.delta(eps).hi >= pld.delta(eps).lo


def test_unsupported_and_cli(capsys):
    with pytest.raises(InputError, match="RDP accountant handles"):
        RDPAccountant().compose(parse_spec("approx_dp(eps=1, delta=1e-5)"))
    rc = main(["account", "--accountant", "rdp", "--mechanism", "subsample(gaussian(sigma=4), rate=0.01)",
               "--times", "10000", "--delta", "1e-5"])
    out = capsys.readouterr().out
    assert rc == 0 and "improved conversion" in out and "order α = " in out and "upper bound" in out
