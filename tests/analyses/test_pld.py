"""Certified PLD accountant: containment against independent truth.

Truth sources: mpmath quadrature of H_{e^ε}(P‖Q) for one step of the
Poisson-subsampled Gaussian (both neighbouring relations, seed 002 Thm 6);
the GDP closed form δ_μ (rate 1: the T-fold Gaussian is exactly √T/σ-GDP).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certdp.analyses.accountants.pld import (
    PLDAccountant,
    SubsampledGaussian,
    lower_one_step,
    upper_one_step,
    upper_one_steps,
)
from certdp.errors import InputError
from certdp.numerics.gdp import delta_mu, eps_from_mu_delta

H = Fraction(1, 256)


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def hockey_stick_quad(sigma: Fraction, q: Fraction, eps: Fraction) -> mpmath.mpf:
    """max over add/remove of ∫ (p − e^ε q)⁺ dx in closed form (60 digits): the
    integrand is positive on one half-line, cut at the point where the loss equals ε.
    remove (P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²)): x > x_r,
      e^{(2x_r−1)/(2σ²)} = (e^ε − 1 + q)/q, δ = (1−q−e^ε)Φ̄(x_r/σ) + qΦ̄((x_r−1)/σ);
    add (P = N(0,σ²), Q = (1−q)N(0,σ²) + qN(1,σ²)), c = 1 − e^ε(1−q) > 0: x < x_a,
      e^{(2x_a−1)/(2σ²)} = c/(e^ε q), δ = cΦ(x_a/σ) − e^ε qΦ((x_a−1)/σ).
    (A 30-digit quadrature was used before; at δ ≈ 1e-40 it was off by 0.35 %.)"""
    with mpmath.workdps(60):
        s, qq, e = _mp(sigma), _mp(q), _mp(eps)
        E = mpmath.exp(e)
        if qq == 1:
            rem = mpmath.ncdf(-e / (1 / s) + (1 / s) / 2) - E * mpmath.ncdf(-e / (1 / s) - (1 / s) / 2)
            return rem
        xr = (2 * s**2 * mpmath.log((E - 1 + qq) / qq) + 1) / 2
        rem = (1 - qq - E) * mpmath.ncdf(-xr / s) + qq * mpmath.ncdf(-(xr - 1) / s)
        c = 1 - E * (1 - qq)
        add = mpmath.mpf(0)
        if c > 0:
            xa = (2 * s**2 * mpmath.log(c / (E * qq)) + 1) / 2
            add = c * mpmath.ncdf(xa / s) - E * qq * mpmath.ncdf((xa - 1) / s)
        return max(rem, add, mpmath.mpf(0))


@pytest.mark.parametrize(
    "sigma,q,eps",
    [
        (Fraction(1), Fraction(1, 2), Fraction(1, 2)),
        (Fraction(2), Fraction(1, 100), Fraction(0)),
        (Fraction(1, 2), Fraction(3, 10), Fraction(2)),
        (Fraction(3), Fraction(1), Fraction(1, 4)),
        (Fraction(47, 5), Fraction(16384, 50000), Fraction(1, 20)),
    ],
)
def test_one_step_contains_quadrature(sigma, q, eps):
    acc = PLDAccountant(h=H).compose(SubsampledGaussian(sigma, q), 1)
    enc = acc.delta(eps)
    truth = hockey_stick_quad(sigma, q, eps)
    assert enc.contains(truth), (enc, truth)
    # tight: the discretisation error of one step is second order in h
    assert float(enc.hi - enc.lo) < 0.05 * float(truth) + 1e-12


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sigma=st.fractions(min_value=Fraction(1, 2), max_value=Fraction(5), max_denominator=20),
    q=st.fractions(min_value=Fraction(1, 100), max_value=Fraction(1), max_denominator=100),
    eps=st.fractions(min_value=Fraction(0), max_value=Fraction(3), max_denominator=16),
)
def test_one_step_contains_quadrature_random(sigma, q, eps):
    acc = PLDAccountant(h=Fraction(1, 128)).compose(SubsampledGaussian(sigma, q), 1)
    enc = acc.delta(eps)
    assert enc.contains(hockey_stick_quad(sigma, q, eps))


def test_gaussian_composition_matches_gdp_closed_form():
    # rate 1: T-fold Gaussian with noise σ is exactly (√T/σ)-GDP
    acc = PLDAccountant(h=Fraction(1, 512)).compose(SubsampledGaussian(Fraction(5)), 100)
    for eps in (Fraction(0), Fraction(1), Fraction(3)):
        enc = acc.delta(eps)
        truth = delta_mu(2, eps, digits=30)
        assert enc.lo <= truth.lo and truth.hi <= enc.hi, (eps, enc, truth)
        assert float(enc.hi - enc.lo) < 2e-3 * float(truth.mid) + 1e-15
    e = acc.epsilon("1e-5")
    t = eps_from_mu_delta(2, "1e-5")
    assert e.lo <= t.lo and t.hi <= e.hi
    assert float(e.hi - e.lo) < 1e-2


def test_heterogeneous_gaussians_match_gdp():
    # μ² = 3/2² + 2/1² = 11/4
    acc = (PLDAccountant(h=Fraction(1, 128))
           .compose(SubsampledGaussian(Fraction(2)), 3)
           .compose(SubsampledGaussian(Fraction(1)), 2))
    with mpmath.workdps(40):
        m = mpmath.sqrt(mpmath.mpf(11) / 4)
        for eps in (Fraction(1, 2), Fraction(2)):
            e = _mp(eps)
            truth = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
            enc = acc.delta(eps)
            assert enc.contains(truth)
            # and tight: grid h = 1/128 gives relative widths 1.6e-5 and 4.3e-5 here;
            # containment alone would let [0, 1] pass
            assert enc.relative_width() < 2e-4, (eps, enc)


def test_upper_and_lower_one_step_masses():
    pair = SubsampledGaussian(Fraction(2), Fraction(1, 10)).pair("remove")
    up = upper_one_step(pair, H, 60)
    lo = lower_one_step(pair, H, 60)
    assert up.total_units() >= 2**60  # masses rounded up: at least a probability measure
    assert lo.total_units() <= 2**60  # rounded down / dropped: at most one
    assert up.kind == "upper" and lo.kind == "lower"


@pytest.mark.parametrize("sigma,q,h", [
    (Fraction(1, 2), Fraction(1, 100), Fraction(1, 256)), (Fraction(11, 10), Fraction(1, 1000), Fraction(1, 1024)),
    (Fraction(2), Fraction(1024, 3125), Fraction(1, 256)), (Fraction(3, 10), Fraction(9, 10), Fraction(1, 128)),
    (Fraction(1), Fraction(1), Fraction(1, 64)), (Fraction(7), Fraction(1, 3), Fraction(1, 100)),
    (Fraction(1, 20), Fraction(1, 50), Fraction(1, 16)),
])
def test_shared_upper_one_steps_match_the_per_relation_construction(sigma, q, h):
    """upper_one_steps (both relations from the remove frame, the add pair mirrored)
    gives the same fixed-point masses as upper_one_step on each pair (the arb
    constructions; the float-vector one: tests/analyses/test_mixture_vec.py)."""
    sg = SubsampledGaussian(sigma, q)
    both = upper_one_steps(sg, h, 70, 8.5, vectorised=False)
    for rel in ("remove", "add"):
        ref = upper_one_step(sg.pair(rel), h, 70, 8.5)
        got = both[rel]
        assert (got.offset, got.inf, got.poly) == (ref.offset, ref.inf, ref.poly)


def test_catalog_mechanisms_are_accepted():
    from certdp.mechanisms.spec import parse_spec

    a = PLDAccountant(h=H).compose(parse_spec("subsample(gaussian(sigma=2), rate=1/10)"), 3)
    b = PLDAccountant(h=H).compose(SubsampledGaussian(Fraction(2), Fraction(1, 10)), 3)
    assert a.delta("1/2") == b.delta("1/2")
    g = PLDAccountant(h=H).compose(parse_spec("gaussian(sigma=4, sensitivity=2)"), 1)
    assert g.delta("1/2").contains(delta_mu(Fraction(1, 2), Fraction(1, 2), digits=30).mid)


@pytest.mark.parametrize(
    "kwargs",
    [dict(sigma=0), dict(sigma=-1), dict(sigma=1, rate=0), dict(sigma=1, rate=Fraction(3, 2))],
)
def test_bad_pairs_rejected(kwargs):
    with pytest.raises(InputError):
        SubsampledGaussian(**kwargs)


def test_bad_accountant_input():
    with pytest.raises(InputError):
        PLDAccountant(h=0)
    with pytest.raises(InputError):
        PLDAccountant().compose(SubsampledGaussian(1), 0)
    with pytest.raises(InputError):
        PLDAccountant().compose(object(), 1)
    with pytest.raises(InputError):
        PLDAccountant().compose(SubsampledGaussian(1), 1).epsilon(0)


def test_delta_monotone_and_epsilon_consistent():
    acc = PLDAccountant(h=H).compose(SubsampledGaussian(Fraction(1), Fraction(1, 5)), 20)
    from certdp.numerics.ball import dyadic_to_fraction

    e = acc.epsilon("1e-4")
    assert e.lo > 0
    # the ε enclosure and the δ enclosures must be mutually consistent:
    # δ(ε.hi) can't be certainly above the target, δ(ε.lo) can't be certainly below
    assert not acc.delta(dyadic_to_fraction(e.hi)).certainly_greater_than("1e-4")
    assert not acc.delta(dyadic_to_fraction(e.lo)).certainly_less_than("1e-4")
    # and δ is non-increasing
    d1, d2 = acc.delta("1/2"), acc.delta(1)
    assert d2.lo <= d1.hi


@pytest.mark.slow
def test_big_dpsgd_support_stays_bounded():
    acc = PLDAccountant().compose(SubsampledGaussian(Fraction(47, 5), Fraction(16384, 50000)), 2000)
    for rel in ("add", "remove"):
        assert acc.plds("upper")[rel].length < 40000


@pytest.mark.parametrize("sigma,q,T", [(Fraction(1, 2), Fraction(1, 10), 5), (Fraction(2), Fraction(1, 2), 20),
                                       (Fraction(1), Fraction(9, 10), 3)])
def test_lazy_lower_plds_give_the_max_over_both_relations(sigma, q, T):
    """epsilon()/delta() build a relation's lower PLD only when it can raise the lower
    end: the answer equals the max over both relations' lower PLDs."""
    from certdp.numerics.ball import lower_bound, to_ball, working_precision

    acc = PLDAccountant(h=H).compose(SubsampledGaussian(sigma, q), T)
    d, e = Fraction(1, 10**5), Fraction(1, 2)
    got_eps, got_delta = acc.epsilon(d), acc.delta(e)
    full = PLDAccountant(h=H).compose(SubsampledGaussian(sigma, q), T)
    lowers = full.plds("lower")
    with working_precision(128):
        lo_eps = max(lowers[r].epsilon_bounds(to_ball(d))[0] for r in ("add", "remove"))
        lo_delta = max(lower_bound(lowers[r].delta_ball(to_ball(e), e)) for r in ("add", "remove"))
    assert got_eps.lo == max(lo_eps, 0) and got_delta.lo == max(lo_delta, 0)
    assert got_eps.lo_exact > 0 and got_delta.lo_exact > 0


def _mp_F(coeffs, offset, h, bits, inf, eps):
    """F_ε of a DiscretePLD in 60-digit mpmath (the definition, term by term)."""
    with mpmath.workdps(60):
        e = _mp(Fraction(eps))
        tot = mpmath.mpf(inf)
        for k, c in enumerate(coeffs):
            y = _mp((offset + k) * h)
            if y > e:
                tot += c * (1 - mpmath.exp(e - y))
        return tot / mpmath.mpf(2) ** bits


@pytest.mark.parametrize("seed", range(8))
def test_epsilon_bounds_and_delta_ball_against_the_definition(seed):
    """epsilon_bounds skips the top of the support with integer masses and delta_ball
    evaluates the integer polynomial in FLINT: both checked against F_ε summed term by
    term in mpmath (F(hi) <= δ <= F(lo) unless lo = 0; delta_ball's ball contains F)."""
    import random

    from flint import fmpz_poly

    from certdp.analyses.accountants.pld import DiscretePLD
    from certdp.numerics.ball import dyadic_to_fraction, to_ball, working_precision

    with mpmath.workdps(60):
        _check_f_eps(random.Random(seed), fmpz_poly, DiscretePLD, dyadic_to_fraction, to_ball, working_precision)


def _check_f_eps(rnd, fmpz_poly, DiscretePLD, dyadic_to_fraction, to_ball, working_precision):
    bits, h = 40, Fraction(1, 64)
    n = rnd.randrange(5, 400)
    coeffs = [rnd.getrandbits(rnd.choice((2, 10, 30))) for _ in range(n)]
    offset = rnd.randrange(-n, n // 2)
    inf = rnd.getrandbits(8)
    pld = DiscretePLD(fmpz_poly(coeffs), offset, h, bits, inf, "upper")
    total = sum(coeffs) + inf
    tol = mpmath.mpf(10) ** -30
    checked = 0
    for frac in (Fraction(1, 10**6), Fraction(1, 1000), Fraction(1, 7), Fraction(1, 2)):
        delta = frac * total / 2**bits
        if not inf < delta * 2**bits:
            continue
        with working_precision(128):
            lo, hi = pld.epsilon_bounds(to_ball(delta))
        lo_q, hi_q = dyadic_to_fraction(lo), dyadic_to_fraction(hi)
        d_mp = _mp(delta)
        assert _mp_F(coeffs, offset, h, bits, inf, hi_q) <= d_mp * (1 + tol)
        if lo_q > 0:
            assert _mp_F(coeffs, offset, h, bits, inf, lo_q) >= d_mp * (1 - tol)
        checked += 1
    assert checked
    for eps in (Fraction(0), h * 3, Fraction(1, 3), h * (offset + n // 2)):
        if eps < 0:
            continue
        truth = _mp_F(coeffs, offset, h, bits, inf, eps)
        for ex in (eps, None):
            with working_precision(128):
                v = pld.delta_ball(to_ball(eps), ex)
                lo_v, hi_v = dyadic_to_fraction(v.lower()), dyadic_to_fraction(v.upper())
            assert _mp(lo_v) <= truth * (1 + tol) and _mp(hi_v) >= truth * (1 - tol)


@pytest.mark.parametrize("rel", ["remove", "add"])
def test_lower_end_cell_sits_on_a_grid_point(rel):
    """With a small rate the bulk of P's mass lies at the finite end of the loss range
    (log(1 - q) for remove, -log(1 - q) for add): the lower PLD's end cell must be cut so
    that its merged loss is just above a grid point (it was rounded down by up to h per
    step).  Float check of the cut: the end cell's merged loss is within 1e-6 h of the
    grid point below it."""
    import math

    from certdp.analyses.accountants.pld import _mass_f, lower_boundaries

    pair = SubsampledGaussian(Fraction(3, 5), Fraction(256, 60000)).pair(rel)
    h = Fraction(1, 1024)
    b = lower_boundaries(pair, h)
    s = float(pair.sigma)
    a, c = (-math.inf, b[0]) if rel == "remove" else (b[-1], math.inf)
    loss = math.log(_mass_f(pair.p_comps, s, a, c)) - math.log(_mass_f(pair.q_comps, s, a, c))
    off = loss / float(h) - math.floor(loss / float(h))
    assert 0 <= off < 1e-6, off
    mass = _mass_f(pair.p_comps, s, a, c)
    assert mass > 0.3  # the bulk: a wrong cut here costs ~T h / 2 in eps


def test_two_sided_width_does_not_drift_with_the_number_of_steps():
    """σ = 0.6, q = 256/60000 at h = 1/1024: the two-sided enclosure stays narrow as T
    grows (it was [3.397, 3.818] at T = 1000 and [4.729, 7.692] at T = 7031)."""
    sg = SubsampledGaussian(Fraction(3, 5), Fraction(256, 60000))
    e = PLDAccountant(h=Fraction(1, 1024)).compose(sg, 1000).epsilon(Fraction(1, 10**5))
    assert float(e.hi - e.lo) < 2e-3 and 3.81 < float(e.lo)


@pytest.mark.parametrize("theta", [1e-9, 1e-4, 1e-2])
def test_coarse_cells_stay_sound(monkeypatch, theta):
    """Cells spanning several grid steps (connect-the-dots on a subset of the grid for
    the upper PLD, a coarser partition for the lower) are as sound at any θ: with rate 1
    the truth is the exact Gaussian profile δ_μ, μ = √k/σ, and with a huge θ (wide cells
    even in the bulk) the enclosure still contains it, only wider."""
    monkeypatch.setattr(PLDAccountant, "_coarsen", lambda self: theta)
    sigma, k = Fraction(3, 2), 4
    acc = PLDAccountant(h=Fraction(1, 256)).compose(SubsampledGaussian(sigma), k)
    mu = Fraction(2) / sigma  # √4 / σ
    for eps in (Fraction(0), Fraction(1, 2), Fraction(2)):
        truth = delta_mu(mu, eps, digits=30)
        enc = acc.delta(eps)
        assert enc.lo_exact <= truth.lo_exact and truth.hi_exact <= enc.hi_exact, (theta, eps)


def test_coarse_cells_change_the_small_rate_answer_by_little():
    # measured: 1e-9 relative at sigma 1.1, q 0.001, T 100, h 1/4096 (both ends)
    acc = PLDAccountant(h=Fraction(1, 4096)).compose(SubsampledGaussian(Fraction(11, 10), Fraction(1, 1000)), 100)
    fine = PLDAccountant(h=Fraction(1, 4096)).compose(SubsampledGaussian(Fraction(11, 10), Fraction(1, 1000)), 100)
    fine._coarsen = lambda: 0.0  # type: ignore[method-assign]
    a, b = acc.epsilon(Fraction(1, 10**5)), fine.epsilon(Fraction(1, 10**5))
    assert abs(a.hi_exact - b.hi_exact) <= b.hi_exact * Fraction(1, 10**6)
    assert abs(a.lo_exact - b.lo_exact) <= b.hi_exact * Fraction(1, 10**6)


def _one_step_delta_truth(sigma, q, eps):
    """δ(ε) of one Poisson-subsampled Gaussian step, max over the remove and add
    relations, by mpmath quadrature on each side of the crossing point (40 digits)."""
    with mpmath.workdps(40):
        s, q, e = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(eps)
        n0 = lambda x: mpmath.npdf(x, 0, s)  # noqa: E731
        mix = lambda x, c: (1 - q) * n0(x) + q * mpmath.npdf(x, c, s)  # noqa: E731
        out = []
        for P, Q, c in ((lambda x: mix(x, 1), n0, 1), (n0, lambda x: mix(x, -1), -1)):
            g = lambda x: P(x) - mpmath.exp(e) * Q(x)  # noqa: E731
            # P/Q is monotone in x: one crossing; integrate g over the side where it is > 0
            x0 = mpmath.findroot(g, 0.5 * c + s * s * c * e, tol=mpmath.mpf(10) ** -35)
            side = [x0, mpmath.inf] if c > 0 else [-mpmath.inf, x0]
            out.append(mpmath.quad(g, side))
        return max(out)


@pytest.mark.parametrize("theta", [0.0, 1e-6, 1e-2])
def test_coarse_cells_stay_sound_for_a_subsampled_step(monkeypatch, theta):
    # q < 1: the finite end of the loss range, the aligned end cells and the coarse
    # cells together; the truth is mpmath quadrature of (P − e^ε Q)_+
    monkeypatch.setattr(PLDAccountant, "_coarsen", lambda self: theta)
    acc = PLDAccountant(h=Fraction(1, 128)).compose(SubsampledGaussian(Fraction(1), Fraction(3, 10)), 1)
    for eps in (Fraction(1, 10), Fraction(1, 2)):
        enc = acc.delta(eps)
        with mpmath.workdps(40):
            truth = _one_step_delta_truth(1, "0.3", mpmath.mpf(eps.numerator) / eps.denominator)
            lo, hi = (mpmath.mpf(x.numerator) / x.denominator for x in (enc.lo_exact, enc.hi_exact))
            # at a grid point ε = 1/2 connect-the-dots is exact up to the upward rounding
            # (~2^-bits): allow the quadrature's own error, 1e-30
            slack = mpmath.mpf(10) ** -30
            assert lo <= truth + slack and truth <= hi + slack, (theta, eps, lo, truth, hi)
        assert enc.hi_exact - enc.lo_exact < Fraction(1, 100)  # and not vacuous
