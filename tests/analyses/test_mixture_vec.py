"""The float-vector one-step PLD (mixture_vec) and its kernels (fvec, fnormal) against
independent truth: mpmath at 60 digits (exp, expm1, Φ̄, Gaussian interval masses) and
the closed-form one-step δ(ε) of the Poisson-subsampled Gaussian."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from flint import arb
from hypothesis import given, settings, strategies as st

from certdp.analyses.accountants.mixture_vec import Fallback, upper_one_step_vec
from certdp.analyses.accountants.pld import SubsampledGaussian, lower_one_step, upper_one_steps
from certdp.numerics.fnormal import interval_mass, upper_tail
from certdp.numerics.fvec import FVec, fexp, fexpm1

from refs import mp_digits  # noqa: E402

#: 60 digits for this module's mpmath references, restored at the end of the
#: module (a module-level assignment leaked into every later test module).
_mpmath_precision = pytest.fixture(autouse=True, scope="module")(mp_digits(60))


@pytest.fixture(autouse=True)
def _float_path_at_every_size(monkeypatch):
    """The float path runs from VEC_MIN_CELLS cells on; these tests take it at any size."""
    import certdp.analyses.accountants.pld_onestep as pld_onestep

    monkeypatch.setattr(pld_onestep, "VEC_MIN_CELLS", 0)


def _contains(v: FVec, i: int, truth: mp.mpf) -> bool:
    return mp.mpf(float(v.lo()[i])) <= truth <= mp.mpf(float(v.hi()[i]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-700, 700), min_size=1, max_size=40), st.floats(0, 1e-6))
def test_exp_and_expm1_enclose_mpmath(xs, rel):
    x = np.array(xs)
    ball = FVec(x, np.abs(x) * rel)
    e, m1 = fexp(ball), fexpm1(ball)
    for i, xi in enumerate(xs):
        for end in (mp.mpf(xi) * (1 - mp.mpf(rel)), mp.mpf(xi) * (1 + mp.mpf(rel))):
            assert _contains(e, i, mp.exp(end))
            assert _contains(m1, i, mp.expm1(end))
        if rel == 0 and abs(xi) < 690:
            assert e.rad[i] <= 1e-12 * e.mid[i]  # tight, not only sound


def test_exp_refuses_what_it_cannot_prove():
    e = fexp(FVec(np.array([800.0, 1.0, np.nan]), np.array([0.0, 0.5, 0.0])))
    assert np.all(np.isinf(e.rad))  # |x| > 700, a wide ball, NaN: rad = inf (the caller falls back)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-45, 45), min_size=1, max_size=40))
def test_upper_tail_encloses_mpmath(zs):
    v = upper_tail(FVec.exact(np.array(zs)))
    for i, z in enumerate(zs):
        t = mp.ncdf(-mp.mpf(z))
        assert _contains(v, i, t)
        if abs(z) < 37:
            assert v.rad[i] <= 1e-13 * float(t)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-25, 25), st.floats(-35, 2)), min_size=1, max_size=30),
       st.sampled_from([Fraction(1, 2), Fraction(11, 10), Fraction(3), Fraction(1, 7)]),
       st.sampled_from([0, 1, -1]))
def test_interval_mass_encloses_mpmath(cells, sigma, c):
    xa = np.array([a for a, _ in cells])
    xb = xa + np.exp(np.array([lg for _, lg in cells]))
    xa[0] = -np.inf if len(cells) > 2 else xa[0]
    m = interval_mass(xa, xb, float(c), FVec.of_fraction(1 / sigma))
    s = mp.mpf(sigma.numerator) / sigma.denominator
    for i in range(len(xa)):
        A, B = (mp.mpf(xa[i]) - c) / s, (mp.mpf(xb[i]) - c) / s
        t = mp.ncdf(B) - mp.ncdf(A) if A < 0 else mp.ncdf(-A) - mp.ncdf(-B)
        assert _contains(m, i, t)
        if t > 1e-250:
            assert m.rad[i] <= 1e-9 * float(t)


def _delta_one_step(sigma: Fraction, q: Fraction, rel: str, eps: mp.mpf) -> mp.mpf:
    """δ(ε) of one Poisson-subsampled Gaussian step, from the loss threshold x*
    (Zhu, Dong & Wang 2022 Thm 6 pairs; the loss increases in x)."""
    s, qq = mp.mpf(sigma.numerator) / sigma.denominator, mp.mpf(q.numerator) / q.denominator
    u = eps if rel == "remove" else -eps
    arg = (mp.exp(u) - 1 + qq) / qq
    if arg <= 0:  # ε beyond the loss range: below it for remove (δ = 1 − e^ε), above for add (0)
        return 1 - mp.exp(eps) if rel == "remove" else mp.mpf(0)
    t = mp.log(arg)
    if rel == "remove":
        x = t * s**2 + mp.mpf(1) / 2
        P = (1 - qq) * mp.ncdf(-x / s) + qq * mp.ncdf(-(x - 1) / s)
        Q = mp.ncdf(-x / s)
    else:
        x = -(t * s**2 + mp.mpf(1) / 2)
        P = mp.ncdf(-x / s)
        Q = (1 - qq) * mp.ncdf(-x / s) + qq * mp.ncdf(-(x + 1) / s)
    return P - mp.exp(eps) * Q


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([Fraction(3, 10), Fraction(1, 2), Fraction(11, 10), Fraction(2), Fraction(94, 10)]),
       st.sampled_from([Fraction(1, 1000), Fraction(1, 100), Fraction(32768, 100000), Fraction(9, 10), Fraction(1)]),
       st.sampled_from([Fraction(1, 128), Fraction(1, 1000), Fraction(1, 2048)]),
       st.lists(st.floats(-0.5, 6), min_size=1, max_size=6),
       st.sampled_from([0.0, 1e-16, 1e-12]))
def test_vector_one_step_bounds_the_true_delta_and_stays_tight(sigma, q, h, epss, coarsen):
    """F_ε of the float-vector upper PLD >= the true one-step δ(ε) (mpmath closed form),
    and (without coarse cells, whose blocks differ from the arb path's) within 1e-9
    (relative) + 1e-18 of the arb construction's F_ε; with coarse cells within the
    coarsening's own allowance θ of the truth."""
    sg = SubsampledGaussian(sigma, q)
    vec = upper_one_steps(sg, h, 70, 8.5, coarsen)
    ref = upper_one_steps(sg, h, 70, 8.5, vectorised=False)
    for rel in ("remove", "add"):
        for e in epss:
            eps = mp.mpf(e)
            truth = _delta_one_step(sigma, q, rel, eps)
            fv = vec[rel].delta_ball(arb(e))
            fr = ref[rel].delta_ball(arb(e))
            assert mp.mpf(fv.upper().str(40, radius=False)) >= truth
            slack = 1e-18 if coarsen == 0 else 2 * coarsen / float(h) + 1e-18
            assert fv.upper() <= fr.upper() * (1 + 1e-9) + slack


def test_vector_path_is_taken_and_faster_shape():
    """The float path answers (no fallback) on the DP-SGD examples, with the same
    grid as the arb path (same offset, a length within one point)."""
    for sigma, q, h in ((Fraction(1, 2), Fraction(1, 100), Fraction(1, 1024)),
                        (Fraction(94, 10), Fraction(32768, 100000), Fraction(1, 2048))):
        pair = SubsampledGaussian(sigma, q).pair("remove")
        ref = upper_one_steps(SubsampledGaussian(sigma, q), h, 70, 8.5, vectorised=False)["remove"]
        idx = list(range(ref.offset, ref.offset + ref.length))
        coeffs, offset, inf = upper_one_step_vec(pair, h, 70, idx)
        assert offset == ref.offset and len(coeffs) == ref.length
        total, total_ref = sum(coeffs) + inf, ref.total_units()
        assert total_ref <= total <= total_ref * (1 + 1e-10)  # the mass is kept (up to rounding)


def test_tiny_sigma_falls_back_to_arb():
    """σ = 0.01: e^t overflows the float range at the far cells; the float path refuses
    (Fallback) and upper_one_steps answers with the arb construction."""
    sg = SubsampledGaussian(Fraction(1, 100), Fraction(1, 2))
    pair = sg.pair("remove")
    with pytest.raises(Fallback):
        upper_one_step_vec(pair, Fraction(1, 4), 60, list(range(-3, 20001)))
    both = upper_one_steps(sg, Fraction(1, 4), 60, 8.5)
    ref = upper_one_steps(sg, Fraction(1, 4), 60, 8.5, vectorised=False)
    assert both["remove"].poly == ref["remove"].poly


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([Fraction(3, 10), Fraction(1, 2), Fraction(11, 10), Fraction(2), Fraction(94, 10)]),
       st.sampled_from([Fraction(1, 1000), Fraction(1, 100), Fraction(32768, 100000), Fraction(1)]),
       st.sampled_from([Fraction(1, 128), Fraction(1, 1000), Fraction(1, 2048)]),
       st.sampled_from(["remove", "add"]),
       st.lists(st.floats(-0.5, 6), min_size=1, max_size=6))
def test_vector_lower_one_step_stays_below_the_true_delta(sigma, q, h, rel, epss):
    """F_ε of the lower one-step PLD with float-certified atoms <= the true δ(ε)
    (mpmath closed form), and within 1e-9 (relative) of the arb certification of
    the same cells."""
    pair = SubsampledGaussian(sigma, q).pair(rel)
    vec = lower_one_step(pair, h, 70, 8.5, coarsen=1e-16)
    ref = lower_one_step(pair, h, 70, 8.5, coarsen=1e-16, vectorised=False)
    for e in epss:
        truth = _delta_one_step(sigma, q, rel, mp.mpf(e))
        fv, fr = vec.delta_ball(arb(e)), ref.delta_ball(arb(e))
        assert mp.mpf(fv.lower().str(40, radius=False)) <= truth
        assert fv.lower() >= fr.lower() * (1 - 1e-9) - 1e-18


def test_coarse_indices_keep_the_ends_and_the_must_points():
    """The dyadic coarse cells: sorted, the ends and every must index kept, all points
    without θ, fewer with θ (the tails merge)."""
    from certdp.analyses.accountants.mixture_vec import coarse_indices_vec

    pair = SubsampledGaussian(Fraction(11, 10), Fraction(1, 1000)).pair("remove")
    h = Fraction(1, 4096)
    lo, hi, must = -10, 9000, {-10, 9000, 17, 4095}
    full = coarse_indices_vec(pair, h, lo, hi, 0.0, must)
    assert full == list(range(lo, hi + 1))
    some = coarse_indices_vec(pair, h, lo, hi, 1e-16, must)
    assert some == sorted(set(some)) and some[0] == lo and some[-1] == hi
    assert must <= set(some) and len(some) < len(full) / 2


def test_slices_give_the_same_pld(monkeypatch):
    """Long grids go in slices (CHUNK points): the sliced PLDs bound the true δ and
    agree with the one-slice ones to float noise (1e-12 relative)."""
    import certdp.analyses.accountants.mixture_vec as mv

    sigma, q, h = Fraction(1, 2), Fraction(1, 100), Fraction(1, 1024)
    sg = SubsampledGaussian(sigma, q)
    one = upper_one_steps(sg, h, 70, 8.5)
    low = lower_one_step(sg.pair("remove"), h, 70, 8.5)
    monkeypatch.setattr(mv, "CHUNK", 1000)
    many = upper_one_steps(sg, h, 70, 8.5)
    low_many = lower_one_step(sg.pair("remove"), h, 70, 8.5)
    for e in ("0", "0.3", "1", "2.5"):
        for rel in ("remove", "add"):
            a, b = one[rel].delta_ball(arb(e)), many[rel].delta_ball(arb(e))
            assert abs(float(((b - a) / a).mid())) < 1e-12 if a > 0 else b.upper() < 1e-20
            assert mp.mpf(b.upper().str(40, radius=False)) >= _delta_one_step(sigma, q, rel, mp.mpf(e))
        a, b = low.delta_ball(arb(e)), low_many.delta_ball(arb(e))
        assert abs(float(((b - a) / a).mid())) < 1e-12
        assert mp.mpf(b.lower().str(40, radius=False)) <= _delta_one_step(sigma, q, "remove", mp.mpf(e))


def test_coarse_tails_stay_tight_at_a_tiny_theta():
    """With θ = 1e-24 (δ near 1e-18 asks for it) the dyadic coarse cells keep the far
    tail as tight as the arb path's cells (1e-6 relative at ε = 4, δ ≈ 4e-19).  Block
    masses from a prefix-sum difference lost the tails' relative accuracy (rounding of
    ~1e-16 against masses of ~1e-20) and merged cells that hold mass: 5 % looser here,
    and DP-SGD at δ = 1.1e-18 widened from [4.5134, 4.5142] to [4.513, 5.093]."""
    sg = SubsampledGaussian(Fraction(1), Fraction(1, 100))
    h = Fraction(1, 1024)
    vec = upper_one_steps(sg, h, 100, 8.5, 1e-24)
    ref = upper_one_steps(sg, h, 100, 8.5, 1e-24, vectorised=False)
    for e in ("3", "4"):
        a, b = vec["remove"].delta_ball(arb(e)), ref["remove"].delta_ball(arb(e))
        assert abs(float(((a - b) / b).mid())) < 1e-6
        assert mp.mpf(a.upper().str(40, radius=False)) >= _delta_one_step(sg.sigma, sg.rate, "remove", mp.mpf(e))


def test_long_float_one_step_keeps_the_budget(monkeypatch):
    """The float one-step reports progress and checks the time budget per slice: a
    budget spent before the work ends is a BudgetExceeded, not a silent overrun."""
    import certdp.analyses.accountants.mixture_vec as mv
    from certdp.errors import BudgetExceeded, budget

    monkeypatch.setattr(mv, "CHUNK", 2000)
    sg = SubsampledGaussian(Fraction(1, 2), Fraction(1, 100))
    with pytest.raises(BudgetExceeded):
        with budget(1e-4):
            upper_one_steps(sg, Fraction(1, 4096), 70, 8.5)
