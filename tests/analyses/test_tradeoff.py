"""certdp tradeoff / certdp.tradeoff: certified β = f(α) against independent truth
(Gaussian f_μ in mpmath, Neyman–Pearson on exact finite pairs)."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
from hypothesis import given, settings, strategies as st

from certdp import tradeoff
from certdp.cli import main
from refs import mpf


def contains(enc, x) -> bool:
    """x in the enclosure, up to mpmath's own rounding of the reference (1e-60)."""
    slack = mpf("1e-60")
    return mpf(enc.lo_exact) - slack <= x <= mpf(enc.hi_exact) + slack


def np_tradeoff(p_masses, q_masses, alpha):
    """f(α) = min type II error at type I error α for P vs Q (Neyman–Pearson with
    randomisation on the boundary outcome): reject P where q/p is largest; β is summed
    from the Q-masses kept (no cancellation near α = 1)."""
    order = sorted(range(len(p_masses)), key=lambda i: -(q_masses[i] / p_masses[i]) if p_masses[i] > 0 else -mpmath.inf)
    a, beta = mpf(alpha), mpmath.mpf(0)
    for i in order:
        take = 0 if a <= 0 else (min(1, a / p_masses[i]) if p_masses[i] > 0 else 1)
        beta += (1 - take) * q_masses[i]
        a -= take * p_masses[i]
    return beta


def kfold_rr(p, k):
    ps = [mpmath.binomial(k, i) * p ** (k - i) * (1 - p) ** i for i in range(k + 1)]
    qs = [mpmath.binomial(k, i) * (1 - p) ** (k - i) * p ** i for i in range(k + 1)]
    return ps, qs


@settings(max_examples=20, deadline=None, derandomize=True)
@given(alpha=st.fractions(Fraction(0), Fraction(1)))
def test_gaussian_closed_form(alpha):
    with mpmath.workdps(80):
        mu = mpf(Fraction(3, 2))
        a = mpf(alpha)
        truth = mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1) - mu) if 0 < a < 1 else (1 - a)
        enc = tradeoff("compose(gaussian(sigma=2), k=9)", alpha).enclosure  # μ = 3/2
        assert contains(enc, truth) and enc.width < 1e-25


@settings(max_examples=20, deadline=None, derandomize=True)
@given(alpha=st.fractions(Fraction(0), Fraction(1)))
def test_pure_dp_composition_against_neyman_pearson(alpha):
    with mpmath.workdps(80):
        e0 = mpf(Fraction(1, 5))
        p = mpmath.exp(e0) / (1 + mpmath.exp(e0))
        truth = np_tradeoff(*kfold_rr(p, 30), alpha)
        enc = tradeoff("compose(pure_dp(eps=1/5), k=30)", alpha).enclosure
        assert contains(enc, truth) and enc.width < 1e-10


def test_randomized_response_and_laplace_one_step():
    for a in (Fraction(1, 20), Fraction(1, 5), Fraction(1, 2)):
        truth = max(0, 1 - 3 * mpf(a), (1 - mpf(a)) / 3)  # RR p = 3/4: ε = log 3
        enc = tradeoff("randomized_response(p=3/4)", a).enclosure
        assert contains(enc, truth) and enc.width < 2e-3


def test_laplace_composition_band_is_narrow_and_ordered():
    prev = None
    for a in (Fraction(1, 100), Fraction(1, 10), Fraction(1, 2)):
        enc = tradeoff("compose(laplace(scale=5), k=50)", a).enclosure
        assert enc.width < 1e-3
        if prev is not None:
            assert enc.hi_exact <= prev.lo_exact  # f is decreasing
        prev = enc


def test_upper_bound_only_profiles_and_cli(capsys):
    enc = tradeoff('compose(profile("Max(1 - exp(eps/2 - 1), 0)"), k=3)', "1/10").enclosure
    assert 0 <= enc.hi_exact - Fraction(9, 10) < Fraction(1, 10**30) and enc.lo_exact > 0
    assert main(["tradeoff", "pure_dp(eps=1)", "--alpha", "1/10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with mpmath.workdps(50):
        truth = 1 - mpmath.e / 10
        assert mpf(Fraction(out["beta"]["lo"])) <= truth <= mpf(Fraction(out["beta"]["hi"]))
    for bad in (["--alpha", "2"], ["--alpha", "x"], ["--alpha", "-0.1"]):
        assert main(["tradeoff", "laplace(scale=1)", *bad]) == 2
