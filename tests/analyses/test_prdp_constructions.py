"""Seed 004 constructions (Lemma 3.1, Thm 3.2, Thm 3.3, Cor 3.4 (2)) checked
against independent mpmath evaluations of Lemma 3.1's conditions."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from certdp.errors import InputError
from certdp.numerics.ball import dyadic_to_fraction
from certdp.analyses.prdp import DiagonalMechanism, corollary_3_4, is_adp, is_prdp, lemma_3_1, theorem_3_2, theorem_3_3
from refs import mp_digits, mpq


_mp_precision = pytest.fixture(autouse=True)(mp_digits(80))


def inside(enc, x) -> bool:
    lo, hi = dyadic_to_fraction(enc.lo), dyadic_to_fraction(enc.hi)
    return (lo <= x <= hi) if isinstance(x, Fraction) else (mpq(lo) <= x <= mpq(hi))


def independent_lemma_3_1(cx, delta_hat_mp):
    """Conditions (1)–(4) of Lemma 3.1 evaluated with mpmath (50 digits)."""
    n, p, q = cx.n, cx.p, cx.q
    assert 0 < p < 1 and 0 < q < 1 and p + (n - 1) * q == 1
    e, eh = mpmath.exp(mpq(cx.eps)), mpmath.exp(mpq(cx.eps_hat))
    adp_margin = e * mpq(q) + mpq(cx.delta) - mpq(p)
    ratio_margin = mpq(p) - eh * mpq(q)
    prdp_violation = mpq(p) - delta_hat_mp
    return adp_margin, ratio_margin, prdp_violation


def test_worked_instance_seed_choice():
    """ε = 0.5, δ = 0.01, ε̂ = 1 with p, q within 2^-50 of the seed's closed forms:
    the PrDP violation p - δ is only ~3.8e-6 and must still be decided."""
    cx = theorem_3_2("0.5", "0.01", "1", choice="seed")
    E = mpmath.e + mpmath.exp(mpmath.mpf(1) / 2)
    n_expected = int(mpmath.ceil(E * mpmath.mpf("0.99") / mpmath.mpf("0.01")))
    assert n_expected == 433 and cx.n == 433
    q_star = (2 - mpmath.mpf("0.01")) / (2 * (cx.n - 1) + E)
    p_star = (E * q_star + mpmath.mpf("0.01")) / 2
    assert abs(mpq(cx.q) - q_star) < q_star * mpmath.mpf(2) ** -49
    assert abs(mpq(cx.p) - p_star) < mpmath.mpf(10) ** -13
    assert inside(cx.seed_q, q_star)
    adp_m, ratio_m, viol = independent_lemma_3_1(cx, mpmath.mpf("0.01"))
    assert adp_m > 0 and ratio_m > 0 and viol > 0
    assert mpmath.mpf("3.8e-6") < viol < mpmath.mpf("3.9e-6")  # the small margin
    assert cx.valid and cx.adp.holds and not cx.prdp.holds
    assert inside(cx.prdp.violation, cx.p - Fraction(1, 100))  # exact rational violation
    assert cx.prdp.violation.relative_width() < 1e-20
    assert cx.prdp.witness.outputs == (0,)


def test_worked_instance_wide_choice():
    cx = theorem_3_2("0.5", "0.01", "1")
    assert (cx.n, cx.p, cx.q) == (433, Fraction(5, 437), Fraction(1, 437))
    adp_m, ratio_m, viol = independent_lemma_3_1(cx, mpmath.mpf("0.01"))
    assert adp_m > 0 and ratio_m > 0 and viol > 0
    assert cx.valid
    lo, hi = cx.adp.margin.lo, cx.adp.margin.hi
    assert abs(mpq(dyadic_to_fraction(lo)) - adp_m) < mpmath.mpf(10) ** -40 and lo <= hi
    assert cx.prdp.violation.contains(Fraction(5, 437) - Fraction(1, 100))


def test_constructed_mechanism_small_n_explicit_table():
    """For a small n the diagonal mechanism is expanded to the full table and
    checked over all ordered pairs (no symmetry argument)."""
    cx = theorem_3_2("0.5", "0.3", "1")
    assert cx.n <= 20
    t = DiagonalMechanism(cx.n, cx.p, cx.q).to_finite()
    assert is_adp(t, cx.eps, cx.delta).holds
    assert not is_prdp(t, cx.eps_hat, cx.delta).holds


rats = st.builds(Fraction, st.integers(1, 999), st.just(1000))


@given(
    eps=rats,  # (0, 1)
    delta=st.builds(Fraction, st.integers(1, 499), st.sampled_from([1000, 10**6, 10**9])),  # (0, 1/2)
    eps_hat=st.builds(Fraction, st.integers(1, 5000), st.just(1000)),  # (0, 5]
    choice=st.sampled_from(["wide", "seed"]),
)
def test_theorem_3_2_admissible_region(eps, delta, eps_hat, choice):
    cx = theorem_3_2(eps, delta, eps_hat, choice=choice)
    assert cx.valid and cx.adp.holds and not cx.prdp.holds
    assert not cx.notes
    adp_m, ratio_m, viol = independent_lemma_3_1(cx, mpq(delta))
    assert adp_m > 0 and ratio_m > 0 and viol > 0
    # the seed's n
    E = mpmath.exp(mpq(eps)) + mpmath.exp(mpq(eps_hat))
    assert cx.n == int(mpmath.ceil(E * (1 - mpq(delta)) / mpq(delta)))


@pytest.mark.parametrize(
    "eps, delta, eps_hat",
    [("2", "0.01", "3"), ("0.5", "0.5", "1"), ("0.5", "0.9", "4"), ("0", "0.1", "1"), ("1", "0.1", "0"),
     ("3", "0.2", "0.5"), ("0.5", "0.99", "0.1")],
)
def test_theorem_3_2_outside_hypotheses_still_certified(eps, delta, eps_hat):
    """Finding: the construction works outside 0 < ε < 1, δ < 1/2 (with n ≥ 2)."""
    cx = theorem_3_2(eps, delta, eps_hat)
    assert cx.notes  # reported as outside the theorem
    assert cx.valid
    adp_m, ratio_m, viol = independent_lemma_3_1(cx, mpq(Fraction(delta)))
    assert adp_m >= 0 and ratio_m > 0 and viol > 0


@pytest.mark.parametrize("delta", ["0", "1", "1.5", "-0.1"])
def test_theorem_3_2_impossible_delta(delta):
    with pytest.raises(InputError):
        theorem_3_2("0.5", delta, "1")


@pytest.mark.parametrize(
    "penalty, g",
    [("x**2", lambda x: x**2), ("x/(1-x)", lambda x: x / (1 - x)), ("3*x", lambda x: 3 * x),
     ("sqrt(x)/10", lambda x: mpmath.sqrt(x) / 10)],
)
def test_theorem_3_3(penalty, g):
    eps, delta, eps_hat = Fraction(1, 2), Fraction(1, 4), Fraction(7, 10)
    if penalty.startswith("sqrt"):
        eps_hat = Fraction(2, 5)  # ε̂ < ε: hypothesis holds for every g >= 0
    cx = theorem_3_3(eps, delta, eps_hat, penalty)
    assert cx.valid
    assert cx.hypothesis.established
    assert 0 < cx.delta < delta
    # the root of h(x) = g(x) + x lies in the certified bracket, and δ' is inside it
    n = cx.n
    E = mpmath.exp(mpq(eps)) + mpmath.exp(mpq(eps_hat))
    assert n > (1 - mpq(delta)) * E / mpq(delta) + 1
    F = lambda x: (x * (n - 1) + E) / (2 * (n - 1) + E) - g(x) - x  # noqa: E731
    root = mpmath.findroot(F, (mpmath.mpf(0), mpq(delta)), solver="anderson")
    assert inside(cx.root_bracket, root)
    assert inside(cx.root_bracket, cx.delta)
    dh = g(mpq(cx.delta))
    adp_m, ratio_m, viol = independent_lemma_3_1(cx, dh)
    assert adp_m > 0 and ratio_m > 0 and viol > 0


def test_theorem_3_3_refuted_hypothesis_is_reported():
    # ε̂ - ε = 1/2, g = 10x: (e^{1/2} - 1)·10 > 1 everywhere — and by Lemma 2.3 no
    # counterexample can exist for δ' where ε̂ >= ε - ln(1 - 1/10)
    with pytest.raises(InputError, match="REFUTED"):
        theorem_3_3("0.5", "0.25", "1", "10*x")


def test_theorem_3_3_bad_penalty():
    with pytest.raises(InputError):
        theorem_3_3("0.5", "0.25", "1", "__import__('os')")
    with pytest.raises(InputError, match="not certainly negative"):
        theorem_3_3("0.5", "0.25", "1", "-1 - x")


@given(
    K=st.builds(Fraction, st.integers(1, 50), st.integers(1, 10)),
    eps=st.builds(Fraction, st.integers(1, 2000), st.just(1000)),
    frac=st.integers(1, 99),
)
def test_corollary_3_4(K, eps, frac):
    bound = math.log(1 + 1 / float(K))
    eps_hat = Fraction(int(bound * frac * 10), 1000)  # frac% of ln(1 + 1/K), rounded down
    if eps_hat <= 0:
        return
    cx = corollary_3_4(K, eps, eps_hat)
    assert cx.valid and cx.hypothesis.established
    assert cx.delta_hat == K * cx.delta
    adp_m, ratio_m, viol = independent_lemma_3_1(cx, mpq(K * cx.delta))
    assert adp_m > 0 and ratio_m > 0 and viol > 0


def test_corollary_3_4_outside_range():
    with pytest.raises(InputError, match="ln"):
        corollary_3_4(1, "0.1", "0.7")  # ln 2 = 0.693...


def test_lemma_3_1_direct():
    # n = 4, p = 1/2, q = 1/6: p/q = 3 > e^1, p - e^{1/2} q = 0.2252... <= δ = 1/4
    cx = lemma_3_1(4, "1/2", "1/6", "1/2", "1/4", "1", "0.4")
    assert cx.valid and all(c.holds for c in cx.conditions)
    assert float(cx.adp.margin.lo) == pytest.approx(0.25 - (0.5 - math.exp(0.5) / 6), abs=1e-15)
    # δ too small: ADP fails, and the exact check says so
    cx2 = lemma_3_1(4, "1/2", "1/6", "1/2", "1/5", "1", "0.4")
    assert not cx2.valid and not cx2.adp.holds
    assert not [c for c in cx2.conditions if c.name.startswith("(3) p ≤")][0].holds
    with pytest.raises(InputError):
        lemma_3_1(4, "1/2", "1/5", "1/2", "1/4", "1", "0.4")  # p + 3q != 1
