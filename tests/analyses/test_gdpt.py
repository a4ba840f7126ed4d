"""Tests of certdp.analyses.gdpt against independent truth (mpmath closed forms / root finding)."""

from __future__ import annotations

from certdp.certificates.writer import measurement_certificate

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from certdp.errors import InputError
from certdp.analyses.algorithm3 import algorithm3, algorithm3_cells
from certdp.analyses.gdpt import gdpt, measure
from certdp.mechanisms.spec import parse_spec
from refs import mp_delta_mu, mp_digits, mp_mu_gdp, mpq
from timing import timed, within

_mpmath_precision = pytest.fixture(autouse=True)(mp_digits(30))
q2mp = mpq


def lap_delta(theta, eps):
    return max(1 - mpmath.exp(q2mp(eps) / 2 - q2mp(theta) / 2), mpmath.mpf(0))


def mp_sup_G(delta, eps_max, n=40):
    """max of G on a grid with local golden refinement (mpmath; a lower estimate of sup G)."""
    xs = [mpmath.mpf(eps_max) * i / n for i in range(n)]
    vals = [(mp_mu_gdp(x, delta(x)) if delta(x) > 0 else 0, x) for x in xs]
    v, x = max(vals)
    lo, hi = max(x - mpmath.mpf(eps_max) / n, 0), x + mpmath.mpf(eps_max) / n
    g = (mpmath.sqrt(5) - 1) / 2
    f = lambda t: mp_mu_gdp(t, delta(t)) if delta(t) > 0 else 0  # noqa: E731
    for _ in range(45):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(a) >= f(b):
            hi = b
        else:
            lo = a
    return max(v, f((lo + hi) / 2))


with mpmath.workdps(30):
    LAPLACE_MU = 2 * mpmath.sqrt(2) * mpmath.erfinv(1 - mpmath.exp(-1))  # 2Φ⁻¹(1 - e^{-1}/2)


def test_laplace_gdpt_points_vs_mpmath():
    m = parse_spec("laplace(scale=1/2)")
    for e in ["0", "0.3", "1", "1.9"]:
        enc = gdpt(m, e)
        truth = mp_mu_gdp(q2mp(Fraction(e)), lap_delta(2, Fraction(e)))
        assert enc.contains(truth), (e, enc, truth)
        assert enc.mid == pytest.approx(float(truth), abs=1e-9)
    assert gdpt(m, 2).contains(0) and gdpt(m, 3).hi == 0


@settings(max_examples=15, deadline=None)
@given(st.fractions(min_value=Fraction(1, 4), max_value=4), st.fractions(min_value=0, max_value=3))
def test_gdpt_contains_mpmath(scale, eps):
    m = parse_spec(f"laplace(scale={scale.numerator}/{scale.denominator})")
    theta = 1 / scale
    d = lap_delta(mpmath.mpf(theta.numerator) / theta.denominator, mpmath.mpf(eps.numerator) / eps.denominator)
    enc = gdpt(m, eps)
    if d == 0:
        assert enc.contains(0)
    else:
        assert enc.contains(mp_mu_gdp(mpmath.mpf(eps.numerator) / eps.denominator, d))


def test_laplace_measure_seed000():
    """Seed 000/001 Laplace example (Δ/b = 2): μ* = G(0) = 2Φ⁻¹(1 - e^{-1}/2)."""
    # independent check that the GDPT is maximal at 0 (mpmath grid)
    assert mp_sup_G(lambda x: lap_delta(2, x), 2, n=20) <= LAPLACE_MU + mpmath.mpf("1e-20")
    r = measure(parse_spec("laplace(scale=1/2)"), width="1e-6")
    assert r.mu.contains(LAPLACE_MU)
    assert r.mu_upper - r.mu_lower <= Fraction(1, 10**6)
    assert r.tail.kind == "zero" and r.residual.hi == 0
    assert r.cells == len(r.breakpoints) - 1 and r.evaluations >= r.cells
    js = r.to_json()
    assert set(js) == {"mu", "eps_max", "residual", "tail", "strict_mu_at_least", "tail_mu_at_most", "evaluations",
                        "cells", "profile_kind", "assumptions"}
    assert js["tail"]["kind"] == "zero" and js["strict_mu_at_least"] is None


@pytest.mark.parametrize("eps0", ["1/2", "1", "2"])
def test_pure_dp_thm51(eps0):
    """Seed 000 Thm 5.1: the worst-case eps0-DP profile has μ* = -2Φ⁻¹(1/(1+e^eps0))."""
    q = Fraction(eps0)
    e = mpmath.mpf(q.numerator) / q.denominator
    truth = -2 * mpmath.sqrt(2) * mpmath.erfinv(2 / (1 + mpmath.exp(e)) - 1)
    r = measure(parse_spec(f"pure_dp(eps={eps0})"), width="1e-5")
    assert r.mu.contains(truth)
    assert r.mu_upper - r.mu_lower <= Fraction(1, 10**5)


def _sub_delta(theta, rate):
    def d(x):
        x = mpmath.mpf(x)
        return rate * lap_delta(theta, mpmath.log(1 + (mpmath.exp(x) - 1) / rate))
    return d


@pytest.mark.parametrize("rate", ["1/5"])
def test_subsampled_laplace(rate):
    g = Fraction(rate)
    r = measure(parse_spec(f"subsample(laplace(scale=1/2), rate={rate})"), width="1e-5")
    truth = mp_sup_G(_sub_delta(2, mpmath.mpf(g.numerator) / g.denominator), 1, n=30)
    # truth is a grid lower estimate of sup G: it must not exceed mu+, and mu- must be <= sup
    assert truth <= mpmath.mpf(r.mu_upper.numerator) / r.mu_upper.denominator
    assert float(r.mu_lower) <= float(truth) + 1e-9
    assert r.tail.kind == "zero"


@pytest.mark.slow
@pytest.mark.soundness
@pytest.mark.parametrize("rate", ["1/2", "1/5", "1/10", "1/20", "1/100"])
def test_subsampled_laplace_all_rates(rate):
    g = Fraction(rate)
    r = measure(parse_spec(f"subsample(laplace(scale=1/2), rate={rate})"), width="1e-6")
    truth = mp_sup_G(_sub_delta(2, mpmath.mpf(g.numerator) / g.denominator), 2, n=200)
    assert truth <= mpmath.mpf(r.mu_upper.numerator) / r.mu_upper.denominator
    assert float(r.mu_lower) <= float(truth) + 1e-12


def test_residual_tail_and_identification():
    """δ = e^{-ε²}/2, an upper bound only: its identified limit L = 1/2 (independently:
    ε²/(−2 log δ) → 1/2) bounds the mechanism's tail limit from above, √(1/2) < μ⁺ (residual
    statement, η <= 1e-30); nothing from below (no strict lower bound, μ⁻ = 0)."""
    r = measure(parse_spec('profile("exp(-eps**2)/2")'), width="1e-4")
    assert r.tail.kind == "residual" and r.tail.upper_L == "1/2" and r.tail.L is None
    assert r.residual.hi <= mpmath.mpf("1e-30")
    e = mpmath.mpf(r.eps_max.numerator) / r.eps_max.denominator
    assert r.residual.contains(mpmath.exp(-e * e) / 2)
    truth = mp_sup_G(lambda x: mpmath.exp(-q2mp(x) ** 2) / 2, 3, n=30)
    assert r.mu_lower == 0 and truth <= float(r.mu_upper)
    big = mpmath.mpf(10) ** 6
    assert abs(big**2 / (-2 * mpmath.log(mpmath.exp(-big**2) / 2)) - mpmath.mpf(1) / 2) < 1e-11
    assert r.strict_mu_at_least is None
    with mpmath.workdps(60):
        assert r.tail_mu_at_most is not None and r.tail_mu_at_most.contains(mpmath.sqrt(mpmath.mpf(1) / 2))
    assert float(r.tail_mu_at_most.width) < 1e-20 and "NOT GDP" not in r.statement()
    assert "limsup G <= 0.70710679" in r.statement()


def test_exact_profile_residual_tail_records_its_limit():
    """gaussian(sigma=1) measured by cells: G ≡ 1, so √L = 1 is not above μ⁺: residual
    statement with L = 1 recorded, no strict bound beyond μ⁺ itself."""
    r = measure(parse_spec("gaussian(sigma=1)"), width="1e-4")
    assert r.mu.contains(1) and r.tail.kind == "residual" and r.tail.L == "1"
    assert r.strict_mu_at_least is None and r.tail_mu_at_most is None


def test_limit_tail_of_an_upper_bound_is_an_upper_end_only():
    """δ = e^{-ε²/8}/100 is an upper bound U (``profile``): identify(U) gives L = 4, so the
    mechanism's tail limit limsup G <= √L = 2 (G_A <= G_U pointwise) and it is GDP (Liu et
    al. 2022 Thm 4.3); but √L > μ⁺ on [0, 1] says nothing from below (issue 41)."""
    r = measure(parse_spec('profile("exp(-eps**2/8)/100")'), width="1e-4", eps_max=1)
    assert r.tail.kind == "residual" and r.tail.upper_L == "4" and r.tail.L is None
    assert r.tail_mu_at_most is not None and r.tail_mu_at_most.contains(2)
    assert float(r.tail_mu_at_most.width) < 1e-20
    assert r.strict_mu_at_least is None and r.mu_lower == 0 and r.mu_upper < 2
    # independent truth: ε²/(−2 log U(ε)) → 4, and the head's sup of G_U on [0, 1] (mpmath) <= μ⁺
    big = mpmath.mpf(10) ** 6
    assert abs(big**2 / (-2 * mpmath.log(mpmath.exp(-big**2 / 8) / 100)) - 4) < 1e-9
    assert mp_sup_G(lambda x: mpmath.exp(-q2mp(x) ** 2 / 8) / 100, 1, n=20) <= float(r.mu_upper)
    assert r.to_json()["tail_mu_at_most"] is not None and r.to_json()["tail"]["upper_L"] == "4"


def test_limit_tail_exceeds_head():
    """subsample(gaussian(sigma=1), rate=1/10), an exact profile: the tail limit is 1/σ = 1
    whatever the rate (Liu et al. 2022 §5.3), above the head μ on [0, 1] (≈ 0.333): the
    strict GDP parameter is at least 1 ("limit" tail)."""
    r = measure(parse_spec("subsample(gaussian(sigma=1), rate=1/10)"), width="1e-4", eps_max=1)
    assert r.tail.kind == "limit" and r.tail.L == "1"
    assert r.strict_mu_at_least is not None and r.strict_mu_at_least.contains(1)
    assert float(r.strict_mu_at_least.width) < 1e-20
    assert r.mu_upper < 1 and "the strict GDP parameter is at least 1" in r.statement()

    def sub_delta(x):  # γ δ_1(log(1 + (e^x − 1)/γ)), mpmath
        return mpmath.mpf(1) / 10 * mp_delta_mu(1, mpmath.log(1 + (mpmath.exp(q2mp(x)) - 1) * 10))

    head = mp_sup_G(sub_delta, 1, n=20)
    assert float(r.mu_lower) - 1e-9 <= head <= float(r.mu_upper)
    with mpmath.workdps(60):  # G far out rises towards the tail limit 1 (0.928, 0.977 at ε = 30, 100)
        g30, g100 = mp_mu_gdp(30, sub_delta(30)), mp_mu_gdp(100, sub_delta(100))
        assert float(r.mu_upper) < g30 < g100 < 1 and g100 > 0.97


def test_not_gdp_tail_statement():
    """L = ∞ of an exact (guarantee) profile proves "not GDP"; of an upper bound, nothing."""
    a = measure(parse_spec("approx_dp(eps=1, delta=1/100)"), width="1e-4", eps_max=2)
    assert a.tail.kind == "limit" and a.tail.L == "oo" and "NOT GDP" in a.statement()
    assert a.residual.contains(mpmath.mpf(1) / 100)  # δ(ε) = δ₀ for ε >= ε₀ (Liu et al. 2022 Thm 3.1)
    u = measure(parse_spec('profile("1/(2+2*eps)")'), width="1e-3", eps_max=4)
    assert u.residual.contains(mpmath.mpf(1) / 10)
    assert u.tail.kind == "residual" and u.tail.upper_L == "oo" and u.tail.L is None
    assert "NOT GDP" not in u.statement() and u.tail_mu_at_most is None and u.strict_mu_at_least is None


def test_algorithm3_agrees_with_measure():
    m = parse_spec("laplace(scale=1/2)")
    c = 50
    a3 = algorithm3(m, 2, c)
    assert a3.cells == algorithm3_cells(2, c) == 502
    assert a3.mu.contains(LAPLACE_MU)
    assert float(a3.mu.width) <= 1 / c
    r = measure(m, width=Fraction(1, c))
    assert r.mu.contains(LAPLACE_MU)
    assert r.mu.lo <= a3.mu.hi and a3.mu.lo <= r.mu.hi  # the enclosures intersect
    assert r.evaluations < a3.evaluations


def test_algorithm3_grid_formula_vs_printed():
    """Printed n = ⌈√(8cπε_h)⌉+1 is far below the n needed for margin 1/c."""
    import math

    c, eh = 10**6, 100
    printed = math.ceil(math.sqrt(8 * c * math.pi * eh)) + 1
    assert algorithm3_cells(eh, c) > 10**8 > 1000 * printed


def test_bad_inputs():
    m = parse_spec("laplace(scale=1/2)")
    with pytest.raises(InputError):
        measure(m, width="0")
    with pytest.raises(InputError):
        measure(m, eps_max="-1")
    with pytest.raises(InputError):
        gdpt(m, "-1")


@timed(15)
def test_laplace_performance_budget(time_limit):
    """Width 1e-6 over ε ∈ [0, 100]: the evaluation count is the default run's budget
    check; the wall-clock limit (generous: the machine is shared) runs under -m slow."""
    with within(time_limit):
        r = measure(parse_spec("laplace(scale=1/2)"), width="1e-6", eps_max=100)
    assert r.mu.contains(LAPLACE_MU)
    # Algorithm 3 at the same width needs n = ⌈2√(2π)·10⁶·100⌉ ≈ 5·10⁸ profile evaluations
    assert algorithm3_cells(100, 10**6) > 1000 * r.evaluations


def test_seed001_table1_gdp_rows():
    """Seed 001 Table 1: 50-fold composition of 0.2-DP.  GDP row (Thm 5.1, μ·√50)
    3.1 | 5.06 | 6.47 | 7.62 and GDP (Lap) row (measured μ of Laplace, Δ/b = 0.2)
    2.87 | 4.74 | 6.09 | 7.19 for δ = 0.1, 0.01, 0.001, 0.0001."""
    from certdp.numerics.gdp import eps_from_mu_delta, mu_from_pure_dp

    r = measure(parse_spec("laplace(scale=5)"), width="1e-7")
    pure = mu_from_pure_dp("0.2")
    rows = {"GDP": (pure, ["3.1", "5.06", "6.47", "7.62"]), "Lap": (r.mu, ["2.87", "4.74", "6.09", "7.19"])}
    s50_lo, s50_hi = Fraction(7071067811865475, 10**15), Fraction(7071067811865476, 10**15)  # √50 bracket
    assert s50_lo**2 < 50 < s50_hi**2
    for name, (enc, printed) in rows.items():
        from certdp.numerics.ball import dyadic_to_fraction

        lo, hi = dyadic_to_fraction(enc.lo) * s50_lo, dyadic_to_fraction(enc.hi) * s50_hi
        for delta, text in zip(["0.1", "0.01", "0.001", "0.0001"], printed):
            e_lo, e_hi = eps_from_mu_delta(lo, delta).lo, eps_from_mu_delta(hi, delta).hi
            # the printed value is the enclosure rounded to its printed digits
            digits = len(text.split(".")[1])
            assert round(float(e_lo), digits) == round(float(e_hi), digits) == float(text), (name, delta, e_lo, e_hi)


@pytest.mark.slow
def test_laplace_width_1e9():
    r = measure(parse_spec("laplace(scale=1/2)"), width="1e-9", eps_max=100)
    assert r.mu.contains(LAPLACE_MU)
    assert r.mu_upper - r.mu_lower <= Fraction(1, 10**9)


def test_first_and_second_order_covers_agree():
    """The pure first-order (monotone cell) cover and the default cover with
    second-order cells both enclose μ*; the second-order one needs far fewer cells."""
    from certdp.certificates import check

    m = parse_spec("laplace(scale=1/2)")
    r1 = measure(m, width="1e-5", second_order=False)
    r2 = measure(m, width="1e-5")
    assert r1.mu.contains(LAPLACE_MU) and r2.mu.contains(LAPLACE_MU)
    assert r2.cells * 10 < r1.cells
    assert check(measurement_certificate(r1)).valid and check(measurement_certificate(r2)).valid


@timed(15)
def test_width_1e9_fast_with_second_order(time_limit):
    with within(time_limit):
        r = measure(parse_spec("laplace(scale=1/2)"), width="1e-9", eps_max=100)
    assert r.mu.contains(LAPLACE_MU) and r.mu_upper - r.mu_lower <= Fraction(1, 10**9)


def test_seed000_thm45_derivative_is_mills_ratio():
    """∂μ_GDP/∂ε = R(t), t = μ/2 + ε/μ (Mills ratio) <= √(2π)/2; the printed proof's
    √(2π)e^{-t²/2}Φ(-t) is wrong (finite differences in mpmath, independent of certdp)."""
    for eps, delta in [(mpmath.mpf(1), mpmath.mpf("0.1")), (mpmath.mpf("0.2"), mpmath.mpf("0.5"))]:
        h = mpmath.mpf("1e-8")
        m0, m1 = mp_mu_gdp(eps, delta), mp_mu_gdp(eps + h, delta)
        fd = (m1 - m0) / h
        t = m0 / 2 + eps / m0
        mills = (1 - mpmath.ncdf(t)) / mpmath.npdf(t)
        printed = mpmath.sqrt(2 * mpmath.pi) * mpmath.exp(-t * t / 2) * mpmath.ncdf(-t)
        assert abs(fd - mills) < 1e-6
        assert abs(fd - printed) > 0.1
        assert fd <= mpmath.sqrt(2 * mpmath.pi) / 2
