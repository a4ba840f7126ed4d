"""Certified φ accountant vs independent truth (mpmath closed forms, exact sums)."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

import mpmath as mp
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp.analyses.accountants.pairs import (
    ApproxDPPair,
    FinitePair,
    GaussianPair,
    LaplacePair,
    RRPair,
)
from certdp.analyses.accountants.phi import T, PhiAccountant
from certdp.cli import main
from certdp.errors import InputError
from certdp.numerics.gdp import eps_from_mu_delta
from refs import mp_delta_mu, mp_digits, mpq

_mp_precision = pytest.fixture(autouse=True)(mp_digits(60))
mp_frac = mpq


def mp_rr_kfold(p: Fraction, k: int, eps) -> mp.mpf:
    """Hockey stick Σ_outcomes (P − e^ε Q)⁺ of k-fold randomized response,
    outcomes grouped by the number j of "flipped" answers."""
    p_, q_ = mp_frac(p), 1 - mp_frac(p)
    total = mp.mpf(0)
    for j in range(k + 1):
        P = p_ ** (k - j) * q_**j
        Q = q_ ** (k - j) * p_**j
        total += mp.binomial(k, j) * max(P - mp.e ** mp.mpf(eps) * Q, 0)
    return total


def kairouz(k: int, eps0, i: int) -> mp.mpf:
    """Kairouz et al. 2015 Thm 3.3: δ at ε = (k−2i)ε0 for k-fold ε0-DP."""
    e0 = mp.mpf(eps0)
    return sum(mp.binomial(k, l) * (mp.e ** ((k - l) * e0) - mp.e ** ((k - 2 * i + l) * e0))
               for l in range(i)) / (1 + mp.e**e0) ** k


# -- φ-functions -------------------------------------------------------------

def test_phi_expressions_match_definitions():
    t0 = sympy.Rational(3, 7)
    # Gaussian (seed 002 Lemma 34): E[e^{itL}], L ~ N(1/(2σ²), 1/σ²)
    g = GaussianPair(2).phi_expr(T).subs(T, t0)
    m, v = mp.mpf(1) / 8, mp.mpf(1) / 4
    assert abs(complex(g) - complex(mp.exp(1j * t0 * m - v * t0**2 / 2))) < 1e-14
    # Laplace (Lemma 33) vs numerical E_P[e^{itL}] with mpmath quad
    lam = mp.mpf(3) / 2
    lp = LaplacePair(Fraction(3, 2)).phi_expr(T).subs(T, t0)

    def L(o):
        return (abs(o - 1) - abs(o)) / lam

    f = lambda o: mp.exp(-abs(o) / lam) / (2 * lam) * mp.exp(1j * mp.mpf(3) / 7 * L(o))
    ref = mp.quad(f, [-mp.inf, 0, 1, mp.inf])
    assert abs(complex(lp) - complex(ref)) < 1e-14
    # finite pair (Def 35) vs direct sum; mgf_acb agrees with φ(−is)
    fp = FinitePair((Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)),
                    (Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)))
    direct = sum(mp.mpf(p) * mp.exp(1j * mp.mpf(3) / 7 * mp.log(mp.mpf(p) / q))
                 for p, q in [(0.5, 1 / 6), (1 / 3, 1 / 3), (1 / 6, 0.5)])
    assert abs(complex(fp.phi_expr(T).subs(T, t0)) - complex(direct)) < 1e-12


def test_mgf_normalisation():
    from flint import acb
    for pair in (GaussianPair(3), LaplacePair(Fraction(1, 2)), RRPair(p=Fraction(2, 3)),
                 RRPair(eps0=Fraction(1, 5))):
        for s in (0, -1):  # M(0) = P(L finite) = 1, M(−1) = Q(p > 0) = 1
            m = pair.mgf_acb(acb(s))
            # finite (a NaN ball "contains" and "overlaps" everything), containing 1, and
            # tight: radii ~1e-15 at 53 bits, so a ball like [1 ± 1] fails too
            assert m.is_finite(), (pair, s, m)
            assert m.contains(acb(1)), (pair, s, m)
            assert m.real.rad() < 1e-12 and m.imag.rad() < 1e-12, (pair, s, m)


# -- seed 002 §3 -----------------------------------------------------------

def test_seed002_gaussian_0277_03():
    acc = PhiAccountant().compose(GaussianPair(1))
    d = acc.delta("0.277")
    assert d.certainly_less_than("0.3")  # (0.277, 0.3)-DP holds
    assert d.contains(mp_delta_mu(1, "0.277"))
    e = acc.epsilon("0.3")
    ref = mp.findroot(lambda x: mp_delta_mu(1, x) - mp.mpf("0.3"), 0.27)
    assert e.contains(ref) and e.certainly_less_than("0.277")


def test_seed002_rr_not_0471():
    acc = PhiAccountant().compose(RRPair(eps0=1))  # p = e/(1+e)
    e = acc.epsilon("0.3")
    ref = mp.log(mp.mpf("0.7") * mp.e - mp.mpf("0.3"))  # (e − e^ε)/(1+e) = 0.3
    assert e.contains(ref)
    assert e.certainly_greater_than("0.471")  # the printed claim holds
    assert acc.delta("0.471").certainly_greater_than("0.3")


# -- Gaussian compositions (Exp 1) -----------------------------------------

@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=4), st.fractions(0, 6))
def test_gaussian_composition_contains_closed_form(sigmas, eps):
    acc = PhiAccountant()
    for s in sigmas:
        acc = acc.compose(GaussianPair(Fraction(s, 4)))
    mu = mp.sqrt(sum(mp.mpf(16) / s**2 for s in sigmas))
    ref = mp_delta_mu(mu, mp_frac(eps))
    assert acc.delta(eps).contains(ref)


@pytest.mark.parametrize("sigma,k", [(50, 1000), (100, 100000), (50, 100000)])
def test_exp1_integral_route_contains_analytic(sigma, k):
    acc = PhiAccountant(method="integral").compose(GaussianPair(sigma), k)
    mu = mp.sqrt(k) / sigma
    for eps in ("0.1", "1"):
        d = acc.delta(eps)
        assert d.contains(mp_delta_mu(mu, eps))
        assert d.relative_width() < 1e-9


def test_exp1_epsilon_matches_gdp_module():
    for sigma, k in [(50, 10), (100, 10000), (50, 100000)]:
        e = PhiAccountant().compose(GaussianPair(sigma), k).epsilon("1e-4")
        mu = mp.sqrt(k) / sigma
        root = mp.findroot(lambda x: mp_delta_mu(mu, x) - mp.mpf("1e-4"), float(e.mid))
        assert e.contains(root)
        if (k ** 0.5).is_integer():
            g = eps_from_mu_delta(Fraction(int(k**0.5), sigma), "1e-4")
            assert g.lo <= e.hi and e.lo <= g.hi  # the two enclosures intersect


# -- finite mechanisms --------------------------------------------------------

@settings(max_examples=15, deadline=None)
@given(st.fractions(Fraction(1, 100), Fraction(99, 100)), st.integers(1, 60), st.fractions(0, 3))
def test_rr_kfold_exact(p, k, eps):
    acc = PhiAccountant().compose(RRPair(p=p), k)
    assert acc.delta(eps).contains(mp_rr_kfold(p, k, mp_frac(eps)))


def test_optimal_composition_kairouz_lattice():
    acc = PhiAccountant().compose(RRPair(eps0="0.2"), 50)
    for i in (5, 12, 20, 23):
        eps = Fraction(50 - 2 * i, 5)
        assert acc.delta(eps).contains(kairouz(50, "0.2", i))


def test_seed001_table1_optimal_row():
    acc = PhiAccountant().compose(RRPair(eps0="0.2"), 50)
    printed = {"0.1": "2.12", "0.01": "3.64", "0.001": "4.76", "0.0001": "5.28"}
    for delta, eps_printed in printed.items():
        e = acc.epsilon(delta)
        d = mp.mpf(delta)
        e_mid = float(e.mid)
        ref = mp.findroot(lambda x: _mp_delta_pure(50, "0.2", x) - d, e_mid)
        assert e.contains(ref)
        if delta == "0.0001":
            # printed 5.28 is NOT a valid guarantee: ε*(1e-4) ∈ [5.564, 5.565]
            assert e.certainly_greater_than(eps_printed)
            assert acc.delta(eps_printed).certainly_greater_than(delta)
        else:
            assert e.certainly_less_than(eps_printed)


def _mp_delta_pure(k, eps0, eps):
    e0 = mp.mpf(eps0)
    p = mp.e**e0 / (1 + mp.e**e0)
    return sum(mp.binomial(k, j) * max(p ** (k - j) * (1 - p) ** j
                                       - mp.e**eps * (1 - p) ** (k - j) * p**j, 0)
               for j in range(k + 1))


def test_approx_dp_composition_kairouz():
    # k-fold (ε0, δ0): δ = 1 − (1−δ0)^k (1 − δ_pure)  (Kairouz et al. Thm 3.3)
    acc = PhiAccountant().compose(ApproxDPPair("0.5", "0.01"), 3)
    for i in (0, 1):
        eps = Fraction(3 - 2 * i, 2)
        ref = 1 - (1 - mp.mpf("0.01")) ** 3 * (1 - kairouz(3, "0.5", i))
        assert acc.delta(eps).contains(ref)


def test_asymmetric_finite_pair_with_infinite_mass_bruteforce():
    P = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4), Fraction(0))
    Q = (Fraction(1, 8), Fraction(1, 2), Fraction(1, 4), Fraction(1, 8))
    pair = FinitePair(P, Q)
    assert not pair.symmetric
    acc = PhiAccountant().compose(pair, 3).compose(RRPair(p=Fraction(3, 5)))
    rr = (Fraction(3, 5), Fraction(2, 5))
    rq = (Fraction(2, 5), Fraction(3, 5))
    for eps in (Fraction(0), Fraction(1, 3), Fraction(2)):
        refs = []
        for A, B, a2, b2 in ((P, Q, rr, rq), (Q, P, rq, rr)):
            tot = mp.mpf(0)
            for o in product(range(4), range(4), range(4), range(2)):
                pa = mp_frac(A[o[0]] * A[o[1]] * A[o[2]] * a2[o[3]])
                pb = mp_frac(B[o[0]] * B[o[1]] * B[o[2]] * b2[o[3]])
                tot += max(pa - mp.e ** mp_frac(eps) * pb, 0)
            refs.append(tot)
        assert acc.delta(eps).contains(max(refs))
    assert acc.delta_at_infinity().contains(1 - (mp.mpf(7) / 8) ** 3)  # add direction: Q(p=0) = 1/8
    with pytest.raises(InputError):
        acc.epsilon("0.2")  # below the mass at +∞: unattainable


# -- mixed / Laplace (integral route) --------------------------------------------

def _mp_gauss_laplace(mu, lam, eps):
    lam, eps = mp.mpf(lam), mp.mpf(eps)
    a = 1 / lam
    atoms = mp_delta_mu(mu, eps - a) / 2 + mp.exp(-a) * mp_delta_mu(mu, eps + a) / 2
    cont = mp.quad(lambda o: mp.exp(-o / lam) / (2 * lam) * mp_delta_mu(mu, eps - (1 - 2 * o) / lam),
                   [0, 1])
    return atoms + cont


@pytest.mark.parametrize("sigma,lam,eps", [(1, 1, "0.5"), (Fraction(1, 2), 2, 3), (3, Fraction(1, 2), 0)])
def test_gaussian_plus_laplace_integral(sigma, lam, eps):
    acc = PhiAccountant().compose(GaussianPair(sigma)).compose(LaplacePair(lam))
    d = acc.delta(eps)
    assert d.contains(_mp_gauss_laplace(mp.mpf(1) / mp_frac(Fraction(sigma)), mp_frac(Fraction(lam)), eps))
    assert d.relative_width() < 1e-9


def test_exp2_exact_and_integral_agree_with_mpmath():
    sigma, p = 5, Fraction(13, 25)
    for k in (2, 20, 100):
        h = k // 2
        ex = PhiAccountant().compose(GaussianPair(sigma), h).compose(RRPair(p=p), h)
        it = PhiAccountant(method="integral").compose(GaussianPair(sigma), h).compose(
            RRPair(p=p), h)
        mu = mp.sqrt(h) / sigma
        ell = mp.log(mp_frac(p) / (1 - mp_frac(p)))
        ref = sum(mp.binomial(h, j) * mp_frac(p) ** (h - j) * (1 - mp_frac(p)) ** j
                  * mp_delta_mu(mu, 2 - (h - 2 * j) * ell) for j in range(h + 1))
        a, b = ex.delta(2), it.delta(2)
        assert a.contains(ref) and b.contains(ref)


def _mp_lap_D1(z, lam):
    """E[(1 − e^{z−L})⁺] for one Laplace pair (scale lam), by mpmath quadrature
    over the output o of Lap(0, lam) (seed 002 Lemma 33's loss L(o))."""
    a = 1 / lam
    tot = max(1 - mp.exp(z - a), 0) / 2 + mp.exp(-a) * max(1 - mp.exp(z + a), 0) / 2
    ocut = min(max((1 - lam * z) / 2, 0), 1)  # L(o) = (1−2o)/lam > z  iff  o < ocut
    if ocut > 0:
        tot += mp.quad(lambda o: mp.exp(-o / lam) / (2 * lam) * (1 - mp.exp(z - (1 - 2 * o) / lam)),
                       [0, ocut])
    return tot


@pytest.mark.parametrize("lam,eps", [(1, "0.3"), (Fraction(1, 2), 1), (2, 0), (1, 2)])
def test_single_laplace_closed_form(lam, eps):
    d = PhiAccountant().compose(LaplacePair(lam)).delta(eps)
    a = 1 / mp_frac(Fraction(lam))
    assert d.contains(max(1 - mp.exp((mp_frac(Fraction(eps)) - a) / 2), 0))


def test_laplace_plus_rr_exact_route():
    acc = PhiAccountant().compose(LaplacePair(Fraction(3, 2))).compose(RRPair(p=Fraction(2, 3)), 3)
    ell = mp.log(2)
    for eps in (Fraction(0), Fraction(1, 2), Fraction(2)):
        ref = sum(mp.binomial(3, j) * (mp.mpf(2) / 3) ** (3 - j) * (mp.mpf(1) / 3) ** j
                  * _mp_lap_D1(mp_frac(eps) - (3 - 2 * j) * ell, mp.mpf(3) / 2) for j in range(4))
        assert acc.delta(eps).contains(ref)


def test_two_laplace_nested_quadrature():
    old = mp.mp.dps
    mp.mp.dps = 45
    try:
        lam1, lam2, x = mp.mpf(1), mp.mpf(2), mp.mpf("0.2")
        a1 = 1 / lam1
        ref = (_mp_lap_D1(x - a1, lam2) / 2 + mp.exp(-a1) * _mp_lap_D1(x + a1, lam2) / 2)
        bps = sorted({min(max((1 - lam1 * (x - c)) / 2, 0), 1) for c in (1 / lam2, -1 / lam2)} | {0, 1})
        ref += mp.quad(lambda o: mp.exp(-o / lam1) / (2 * lam1) * _mp_lap_D1(x - (1 - 2 * o) / lam1, lam2), bps)
        d = PhiAccountant().compose(LaplacePair(1)).compose(LaplacePair(2)).delta("0.2")
        assert d.contains(ref)
    finally:
        mp.mp.dps = old


def test_large_laplace_only_composition_refused():
    with pytest.raises(InputError):
        PhiAccountant().compose(LaplacePair(1), 200).delta(1)


def test_bad_inputs():
    with pytest.raises(InputError):
        GaussianPair(0)
    with pytest.raises(InputError):
        RRPair(p=1)
    with pytest.raises(InputError):
        FinitePair((Fraction(1, 2),), (Fraction(1),))
    with pytest.raises(InputError):
        PhiAccountant().compose(GaussianPair(1), 0)
    with pytest.raises(InputError):
        PhiAccountant().compose(GaussianPair(1)).delta(-1)


def test_heterogeneous_100_relative_width():
    acc = PhiAccountant()
    for j in range(40):
        acc = acc.compose(GaussianPair(Fraction(20 + j, 2)))
    for j in range(30):
        acc = acc.compose(RRPair(p=Fraction(51 + j % 10, 100) + Fraction(j, 10**6)))
    for j in range(30):
        acc = acc.compose(LaplacePair(10 + j))
    d = acc.delta(1)
    assert d.relative_width() < 1e-10
    # order does not matter
    acc2 = PhiAccountant()
    for pair, k in reversed(acc.entries):
        acc2 = acc2.compose(pair, k)
    d2 = acc2.delta(1)
    assert d.lo <= d2.hi and d2.lo <= d.hi


# -- CLI ------------------------------------------------------------------------

def test_cli_account_json(capsys):
    rc = main(["account", "--mechanism", "gaussian(sigma=5)", "--times", "10",
               "--mechanism", "randomized_response(p=0.52)", "--times", "10", "--eps", "2", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    mu = mp.sqrt(10) / 5
    ell = mp.log(mp.mpf(13) / 12)
    ref = sum(mp.binomial(10, j) * (mp.mpf(13) / 25) ** (10 - j) * (mp.mpf(12) / 25) ** j
              * mp_delta_mu(mu, 2 - (10 - 2 * j) * ell) for j in range(11))
    assert mp.mpf(out["delta"]["lo"]) <= ref <= mp.mpf(out["delta"]["hi"])


def test_cli_account_eps_and_errors(capsys):
    rc = main(["account", "--mechanism", "pure_dp(eps=0.2)", "--times", "50", "--delta", "0.1", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    ref = mp.findroot(lambda x: _mp_delta_pure(50, "0.2", x) - mp.mpf("0.1"), 2.11)
    assert mp.mpf(out["eps"]["lo"]) <= ref <= mp.mpf(out["eps"]["hi"])
    assert main(["account", "--mechanism", "gaussian(sigma=-1)", "--eps", "1"]) == 2
    assert main(["account", "--mechanism", "nonsense(x=1)", "--eps", "1"]) == 2


def test_log_phi_expr_is_sum_of_logs():
    acc = PhiAccountant().compose(GaussianPair(2), 3).compose(RRPair(p=Fraction(3, 4)), 2)
    t0 = sympy.Rational(1, 3)
    val = complex(sympy.exp(acc.log_phi_expr()).subs(T, t0).evalf(30))
    ell = mp.log(3)
    ref = mp.exp(3 * (1j * t0 / 8 - t0**2 / 8)) * (mp.mpf(3) / 4 * mp.exp(1j * t0 * ell)
                                                     + mp.mpf(1) / 4 * mp.exp(-1j * t0 * ell)) ** 2
    assert abs(val - complex(ref)) < 1e-14


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 12), st.integers(1, 6), st.fractions(Fraction(51, 100), Fraction(9, 10)),
       st.integers(0, 8), st.fractions(0, 4))
def test_integral_route_contains_reference(sigma, g, p, r, eps):
    acc = PhiAccountant(method="integral").compose(GaussianPair(sigma), g)
    if r:
        acc = acc.compose(RRPair(p=p), r)
    mu = mp.sqrt(g) / sigma
    ell = mp.log(mp_frac(p) / (1 - mp_frac(p)))
    ref = sum(mp.binomial(r, j) * mp_frac(p) ** (r - j) * (1 - mp_frac(p)) ** j
              * mp_delta_mu(mu, mp_frac(eps) - (r - 2 * j) * ell) for j in range(r + 1))
    assert acc.delta(eps).contains(ref)
