"""Kernel tests: containment against mpmath, seed numbers, identities."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import assume, given
from hypothesis import strategies as st

from certdp import InputError
from certdp.numerics import (
    Enclosure,
    Phi,
    Phi_inv,
    delta_mu,
    eps_from_mu_delta,
    log_Phi,
    mills_ratio,
    mu_from_eps_delta,
    mu_from_pure_dp,
    tradeoff_mu,
)
from refs import (
    Phi_inv_ref,
    Phi_ref,
    delta_mu_ref,
    in_enclosure,
    mpf,
    mu_pure_ref,
    tradeoff_ref,
)


def dyadic_or_decimal(lo: float, hi: float, log: bool = False):
    """Exact inputs in [lo, hi]: decimal strings, Fractions and floats."""
    if log:
        base = st.floats(math.log10(lo), math.log10(hi)).map(lambda t: 10.0**t)
    else:
        base = st.floats(lo, hi)
    return st.one_of(
        base.map(lambda x: f"{x:.6g}"),
        base.map(lambda x: Fraction(x).limit_denominator(10**6)),
        base,
    ).filter(lambda x: lo <= float(Fraction(x) if not isinstance(x, str) else Fraction(x)) <= hi)


MU = dyadic_or_decimal(1e-3, 50, log=True)
EPS = st.one_of(st.just(0), dyadic_or_decimal(1e-6, 1e4, log=True))
DELTA = dyadic_or_decimal(1e-300, 0.999, log=True)


def rel_width_ok(enc: Enclosure, bound: float) -> bool:
    return enc.relative_width() <= bound


# --------------------------------------------------------------------------
# δ_μ(ε)
# --------------------------------------------------------------------------


@given(MU, EPS)
def test_delta_mu_contains_mpmath(mu, eps):
    enc = delta_mu(mu, eps)
    assert in_enclosure(enc, delta_mu_ref(mu, eps))
    assert rel_width_ok(enc, 1e-15)


CORNERS = [(m, e) for m in ("0.001", "1", "50") for e in ("0", "1e-9", "1", "100", "10000")]


@pytest.mark.parametrize("mu,eps", CORNERS)
def test_delta_mu_corners(mu, eps):
    enc = delta_mu(mu, eps)
    assert enc.lo > 0, "δ_μ(ε) > 0 for every finite ε"
    assert in_enclosure(enc, delta_mu_ref(mu, eps))
    assert rel_width_ok(enc, 1e-15)


def test_delta_mu_more_digits():
    enc = delta_mu("0.001", 10000, digits=50)
    assert rel_width_ok(enc, 1e-50)
    assert in_enclosure(enc, delta_mu_ref("0.001", 10000))


def test_seed000_tail_orders_of_magnitude():
    """Seed 000 §4.2: with μ = 6, δ_μ(100) is 'on the order of 1e-43' and
    δ_μ(200) is 'smaller than 1e-202'."""
    d100 = delta_mu(6, 100)
    assert d100.certainly_greater_than("1e-43") and d100.certainly_less_than("1e-42")
    d200 = delta_mu(6, 200)
    assert d200.certainly_less_than("1e-202") and d200.certainly_greater_than("1e-203")


@given(MU)
def test_delta_mu_at_zero_closed_form(mu):
    """δ_μ(0) = 2Φ(μ/2) - 1."""
    with mpmath.workdps(80):
        ref = 2 * mpmath.ncdf(mpf(Fraction(mu) if not isinstance(mu, str) else Fraction(mu)) / 2) - 1
    assert in_enclosure(delta_mu(mu, 0), ref)


@given(dyadic_or_decimal(1e-2, 10, log=True), dyadic_or_decimal(0, 100), st.floats(1.01, 3))
def test_delta_mu_decreasing_in_eps(mu, eps, factor):
    e1 = Fraction(eps) if not isinstance(eps, str) else Fraction(eps)
    e2 = e1 * Fraction(factor) + Fraction(1, 100)
    assert delta_mu(mu, e2, digits=30).hi < delta_mu(mu, e1, digits=30).lo


@given(EPS, dyadic_or_decimal(1e-2, 6), st.floats(1.01, 3))
def test_delta_mu_increasing_in_mu(eps, mu, factor):
    m1 = Fraction(mu) if not isinstance(mu, str) else Fraction(mu)
    m2 = m1 * Fraction(factor)
    lo_side, hi_side = delta_mu(m1, eps, digits=30), delta_mu(m2, eps, digits=30)
    assume(hi_side.lo > 1e-300)  # both representable and clearly ordered
    assert lo_side.hi < hi_side.lo


# --------------------------------------------------------------------------
# inverses
# --------------------------------------------------------------------------


@given(dyadic_or_decimal(0, 30), dyadic_or_decimal(1e-40, 0.99, log=True))
def test_mu_from_eps_delta_brackets_root(eps, delta):
    enc = mu_from_eps_delta(eps, delta)
    assert float(enc.width) <= 1e-12
    d = mpf(Fraction(delta) if not isinstance(delta, str) else Fraction(delta))
    # by monotonicity in μ: δ_lo(ε) <= δ <= δ_hi(ε), checked with mpmath
    lo = Fraction(enc.lo_str(40))  # rounded down: still below the root
    hi = Fraction(enc.hi_str(40))
    e = Fraction(eps) if not isinstance(eps, str) else Fraction(eps)
    if lo > 0:
        assert delta_mu_ref(lo, e) <= d
    assert delta_mu_ref(hi, e) >= d


@pytest.mark.parametrize("eps,delta", [("0", "0.5"), ("10000", "1e-300"), ("0.001", "0.999"), ("50", "1e-100")])
def test_mu_from_eps_delta_corners(eps, delta):
    enc = mu_from_eps_delta(eps, delta)
    lo, hi = Fraction(enc.lo_str(40)), Fraction(enc.hi_str(40))
    assert delta_mu_ref(lo, eps) <= mpf(delta) <= delta_mu_ref(hi, eps)


@given(dyadic_or_decimal(1e-2, 20, log=True), dyadic_or_decimal(1e-40, 0.99, log=True))
def test_eps_from_mu_delta_brackets_root(mu, delta):
    enc = eps_from_mu_delta(mu, delta)
    d = mpf(Fraction(delta) if not isinstance(delta, str) else Fraction(delta))
    m = Fraction(mu) if not isinstance(mu, str) else Fraction(mu)
    if enc.hi == 0:
        assert delta_mu_ref(m, 0) <= d
    else:
        assert float(enc.width) <= 1e-12
        lo, hi = Fraction(enc.lo_str(40)), Fraction(enc.hi_str(40))
        assert delta_mu_ref(m, hi) <= d <= delta_mu_ref(m, lo)


@given(dyadic_or_decimal(0, 20), dyadic_or_decimal(1e-30, 0.9, log=True))
def test_round_trip_mu_eps(eps, delta):
    """ε(μ_GDP(ε, δ), δ) = ε.  ε(·, δ) is non-increasing in μ, so with
    μ_GDP ∈ [lo, hi]: ε(hi, δ) <= ε <= ε(lo, δ) (up to the propagated 1e-12 enclosure widths)."""
    e = Fraction(eps) if not isinstance(eps, str) else Fraction(eps)
    mu = mu_from_eps_delta(e, delta)
    slack = Fraction(1, 10**9)  # |dε/dμ| ≈ |b| <= ~15 here, times the 1e-12 width of μ
    at_hi = eps_from_mu_delta(Fraction(mu.hi_str(40)), delta)
    assert not at_hi.certainly_greater_than(e + slack)
    if mu.lo > 0:
        at_lo = eps_from_mu_delta(Fraction(mu.lo_str(40)), delta)
        assert not at_lo.certainly_less_than(e - slack)


# --------------------------------------------------------------------------
# Φ family, trade-off function, pure DP
# --------------------------------------------------------------------------


@given(dyadic_or_decimal(-1e6, 1e3))
def test_Phi_contains_mpmath(x):
    enc = Phi(x)
    assert in_enclosure(enc, Phi_ref(Fraction(x) if not isinstance(x, str) else Fraction(x)))
    assert rel_width_ok(enc, 1e-15)


@given(dyadic_or_decimal(1e-300, 1 - 1e-12, log=True))
def test_Phi_inv_contains_mpmath(p):
    q = Fraction(p) if not isinstance(p, str) else Fraction(p)
    assume(q != Fraction(1, 2))
    enc = Phi_inv(q)
    assert in_enclosure(enc, Phi_inv_ref(q))
    assert rel_width_ok(enc, 1e-15)


@pytest.mark.parametrize("x", ["-1e6", "-40", "0", "2", "30"])
def test_log_Phi_and_mills(x):
    with mpmath.workdps(80):
        x_ = mpf(x)
        ref_log = mpmath.log1p(-mpmath.ncdf(-x_)) if x_ > 0 else mpmath.log(mpmath.ncdf(x_))
        ref_r = mpmath.ncdf(-mpf(x)) / mpmath.npdf(mpf(x))
    assert in_enclosure(log_Phi(x), ref_log)
    assert in_enclosure(mills_ratio(x), ref_r)


@pytest.mark.parametrize("x", ["64", "100", "1e4", "1e7"])
def test_mills_ratio_series_region(x):
    with mpmath.workdps(80):
        ref = mpmath.erfc(mpf(x) / mpmath.sqrt(2)) / 2 / mpmath.npdf(mpf(x))
    enc = mills_ratio(x)
    assert in_enclosure(enc, ref) and rel_width_ok(enc, 1e-15)


@given(dyadic_or_decimal(0, 10), dyadic_or_decimal(1e-12, 1 - 1e-9, log=True))
def test_tradeoff_mu_contains_mpmath(mu, alpha):
    enc = tradeoff_mu(mu, alpha)
    m = Fraction(mu) if not isinstance(mu, str) else Fraction(mu)
    a = Fraction(alpha) if not isinstance(alpha, str) else Fraction(alpha)
    assert in_enclosure(enc, tradeoff_ref(m, a))


def test_tradeoff_endpoints():
    assert tradeoff_mu(1, 0).contains(1) and tradeoff_mu(1, 0).width == 0
    assert tradeoff_mu(1, 1).contains(0) and tradeoff_mu(1, 1).width == 0
    assert tradeoff_mu(0, "0.3").contains("0.7")


@given(dyadic_or_decimal(1e-6, 1e4, log=True))
def test_mu_from_pure_dp_contains_mpmath(eps):
    enc = mu_from_pure_dp(eps)
    assert in_enclosure(enc, mu_pure_ref(Fraction(eps) if not isinstance(eps, str) else Fraction(eps)))
    assert rel_width_ok(enc, 1e-15)


@given(dyadic_or_decimal(1e-3, 30, log=True))
def test_pure_dp_gdp_tight_at_zero(eps):
    """Seed 000 Thm 5.1: the GDPT of ε-DP is maximal at 0, where
    δ_μ(0) = 2Φ(μ/2) - 1 equals the worst-case δ(0) = (e^ε - 1)/(e^ε + 1)."""
    mu = mu_from_pure_dp(eps)
    e = Fraction(eps) if not isinstance(eps, str) else Fraction(eps)
    with mpmath.workdps(80):
        target = (mpmath.exp(mpf(e)) - 1) / (mpmath.exp(mpf(e)) + 1)
        lo_val = 2 * mpmath.ncdf(mpf(Fraction(mu.lo_str(40))) / 2) - 1
        hi_val = 2 * mpmath.ncdf(mpf(Fraction(mu.hi_str(40))) / 2) - 1
    assert lo_val <= target <= hi_val


# --------------------------------------------------------------------------
# seed 003 Table 3
# --------------------------------------------------------------------------

TABLE3 = {  # seed 003 (003_b212dec0ade17b9d.txt) Table 3, transcribed by hand
    "0.1": ("0.03", "0.03", "0.02"),
    "0.5": ("0.14", "0.12", "0.09"),
    "1.0": ("0.27", "0.24", "0.18"),
    "2.0": ("0.50", "0.45", "0.35"),
    "4.0": ("0.92", "0.84", "0.67"),
    "6.0": ("1.31", "1.20", "0.97"),
    "8.0": ("1.67", "1.53", "1.26"),
    "10.0": ("2.00", "1.85", "1.54"),
}


@pytest.mark.parametrize("eps", sorted(TABLE3, key=float))
def test_seed003_table3(eps):
    for delta, printed in zip(("1e-5", "1e-6", "1e-9"), TABLE3[eps]):
        mu = mu_from_eps_delta(eps, delta)
        half = Fraction(1, 200)
        assert mu.certainly_greater_than(Fraction(printed) - half)
        assert mu.certainly_less_than(Fraction(printed) + half)


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: delta_mu(0, 1),
        lambda: delta_mu(-1, 1),
        lambda: delta_mu(1, -1),
        lambda: delta_mu("abc", 1),
        lambda: delta_mu(float("nan"), 1),
        lambda: delta_mu(True, 1),
        lambda: mu_from_eps_delta(1, 0),
        lambda: mu_from_eps_delta(1, 1),
        lambda: mu_from_eps_delta(1, "1.5"),
        lambda: mu_from_eps_delta(1, "1e-5", width=0),
        lambda: eps_from_mu_delta(1, "-0.1"),
        lambda: tradeoff_mu(1, "1.1"),
        lambda: Phi_inv(0),
        lambda: Phi_inv(1),
        lambda: Phi("1e-999999999"),
        lambda: delta_mu(1, 1, digits=0),
        lambda: delta_mu(1, 1, digits=5, prec=20),
    ],
)
def test_bad_input_is_input_error(call):
    with pytest.raises(InputError):
        call()
