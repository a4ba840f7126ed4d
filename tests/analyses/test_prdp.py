"""Exact ADP / PrDP checks for finite mechanisms (seed 004 Def 2.2) against
brute-force subset enumeration, and the ADP→PrDP conversion against mpmath."""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from certdp.errors import InputError
from certdp.numerics.ball import dyadic_to_fraction
from certdp.analyses.prdp import DiagonalMechanism, FiniteMechanism, adp_to_prdp, is_adp, is_prdp, min_eps_hat
from refs import mp_digits, mpq


_mp_precision = pytest.fixture(autouse=True)(mp_digits(80))


def inside(enc, x) -> bool:
    """``x`` (mpf or Fraction) lies in the enclosure, compared via exact endpoints.

    (Not ``Enclosure.contains``: it drops the sign of negative mpmath numbers.)
    """
    lo, hi = dyadic_to_fraction(enc.lo), dyadic_to_fraction(enc.hi)
    if isinstance(x, Fraction):
        return lo <= x <= hi
    return mpq(lo) <= x <= mpq(hi)


# ---------------------------------------------------------------- brute force (independent)


def brute_adp(rows, eps: Fraction, delta: Fraction, pairs):
    """(holds, sup) by enumerating all 2^m events S; exact when ε = 0 or B_S = 0."""
    m = len(rows[0])
    e = mpmath.exp(mpq(eps))
    best = None
    for a, b in pairs:
        for r in range(m + 1):
            for S in itertools.combinations(range(m), r):
                A = sum((rows[a][c] for c in S), Fraction(0))
                B = sum((rows[b][c] for c in S), Fraction(0))
                v = A - B if eps == 0 else (mpq(A) if B == 0 else mpq(A) - e * mpq(B))
                if best is None or v > best:
                    best = v
    sup = best
    if isinstance(sup, Fraction):
        return sup <= delta, sup
    diff = sup - mpq(delta)
    return (diff <= 0), sup


def brute_prdp(rows, eps: Fraction, delta: Fraction, pairs):
    e = mpmath.exp(mpq(eps))
    worst = Fraction(0)
    for a, b in pairs:
        mass = Fraction(0)
        for c in range(len(rows[0])):
            pa, pb = rows[a][c], rows[b][c]
            if pa == 0:
                continue
            if pb == 0 or (mpq(pa) / mpq(pb) > e if eps != 0 else pa > pb):
                mass += pa
        worst = max(worst, mass)
    return worst <= delta, worst


@st.composite
def tables(draw):
    k = draw(st.integers(2, 3))
    m = draw(st.integers(1, 4))
    rows = []
    for _ in range(k):
        w = draw(st.lists(st.integers(0, 6), min_size=m, max_size=m))
        assume(sum(w) > 0)
        rows.append([Fraction(x, sum(w)) for x in w])
    return rows


fracs = st.builds(Fraction, st.integers(0, 40), st.integers(1, 16))


@given(tables(), st.one_of(st.just(Fraction(0)), fracs.filter(lambda f: f <= 3)), fracs.filter(lambda f: f <= 1))
def test_adp_prdp_agree_with_brute_force(rows, eps, delta):
    mech = FiniteMechanism(rows)
    pairs = mech.neighbours
    expected_adp, sup = brute_adp(rows, eps, delta, pairs)
    if not isinstance(sup, Fraction):
        assume(abs(sup - mpq(delta)) > mpmath.mpf(10) ** -40)  # no ties for irrational sups
    r = is_adp(mech, eps, delta)
    assert r.holds == expected_adp
    # margin δ - sup is enclosed
    truth = delta - sup if isinstance(sup, Fraction) else mpq(delta) - sup
    if isinstance(truth, Fraction):
        assert inside(r.margin, truth)
    else:  # mpmath at 60 digits: allow its own rounding
        assert mpq(dyadic_to_fraction(r.margin.lo)) <= truth + mpmath.mpf(10) ** -50
        assert truth - mpmath.mpf(10) ** -50 <= mpq(dyadic_to_fraction(r.margin.hi))
    assert truth == 0 or r.margin.relative_width() < 1e-20
    assert (r.witness is None) == r.holds

    expected_prdp, mass = brute_prdp(rows, eps, delta, pairs)
    rp = is_prdp(mech, eps, delta)
    assert rp.holds == expected_prdp
    assert inside(rp.margin, delta - mass)
    if not rp.holds:
        a, b = rp.witness.pair
        assert sum(rows[a][c] for c in rp.witness.outputs) == mass


def test_margins_are_tight():
    mech = FiniteMechanism([["1/2", "1/2"], ["1/4", "3/4"]])
    r = is_adp(mech, "0.5", "0.1")
    truth = mpmath.mpf("0.1") - (mpmath.mpf("0.5") - mpmath.exp(mpmath.mpf("0.5")) / 4)
    assert r.holds and inside(r.margin, truth)
    assert float(r.margin.relative_width()) < 1e-30


def test_zero_epsilon_is_exact():
    # total variation distance 1/4 exactly: (0, 1/4)-ADP holds with margin exactly 0
    mech = FiniteMechanism([["1/2", "1/2"], ["1/4", "3/4"]])
    r = is_adp(mech, 0, Fraction(1, 4))
    assert r.holds and r.margin.contains(0) and r.margin.lo == r.margin.hi
    assert not is_adp(mech, 0, Fraction(1, 4) - Fraction(1, 10**30)).holds


def test_symbolic_entries_exact_cancellation():
    # p_0(0) = e^{-1/2}/2 = e^{1/2} p_1(0): the hockey-stick term is exactly 0
    rows = [["exp(-1/2)/2", "1 - exp(-1/2)/2"], ["exp(-1)/2", "1 - exp(-1)/2"]]
    mech = FiniteMechanism(rows)
    r = is_adp(mech, "1/2", 0)
    assert r.holds and r.margin.contains(0)
    assert is_prdp(mech, "1/2", 0).holds
    # slightly smaller ε: output 0 now has loss > ε on pair (0, 1)
    r2 = is_prdp(mech, "0.49", 0)
    assert not r2.holds and r2.witness.pair == (0, 1) and r2.witness.outputs == (0,)
    assert inside(r2.violation, mpmath.exp(mpmath.mpf(-1) / 2) / 2)


def test_symbolic_entries_vs_mpmath():
    rows = [["exp(-1)", "1 - exp(-1)"], ["1/2", "1/2"]]
    mech = FiniteMechanism(rows)
    e = mpmath.exp(mpmath.mpf(1) / 10)
    p = [[mpmath.exp(-1), 1 - mpmath.exp(-1)], [mpmath.mpf(1) / 2, mpmath.mpf(1) / 2]]
    sup = max(
        sum(max(p[a][c] - e * p[b][c], 0) for c in range(2)) for a, b in [(0, 1), (1, 0)]
    )
    r = is_adp(mech, "0.1", "0.05")
    assert r.holds == (sup <= mpmath.mpf("0.05"))
    assert inside(r.margin, mpmath.mpf(1) / 20 - sup)


def test_neighbour_relation_restricts_pairs():
    rows = [["1", "0"], ["1/2", "1/2"], ["0", "1"]]
    full = is_adp(FiniteMechanism(rows), 1, "0.5")
    assert not full.holds and set(full.witness.pair) == {0, 2}
    chain = is_adp(FiniteMechanism(rows, neighbours=[(0, 1), (1, 2)]), 1, "0.5")
    assert chain.holds


def test_diagonal_matches_explicit_table():
    d = DiagonalMechanism(5, Fraction(2, 5), Fraction(3, 20))
    t = d.to_finite()
    for eps, delta in [(Fraction(1, 2), Fraction(1, 10)), (Fraction(1), Fraction(1, 5)), (0, Fraction(1, 4))]:
        for f in (is_adp, is_prdp):
            a, b = f(d, eps, delta), f(t, eps, delta)
            assert a.holds == b.holds
            assert a.margin == b.margin


@pytest.mark.parametrize(
    "rows, match",
    [
        ([["1/2", "1/3"]], "sums to 5/6"),
        ([["3/2", "-1/2"]], "negative"),
        ([["1/2", "1/2"], ["1"]], "row 1"),
        ([["exp(-1)", "1/2"]], "not 1"),
        ([["foo(1)", "1"]], ""),
    ],
)
def test_bad_tables(rows, match):
    with pytest.raises(InputError, match=match):
        FiniteMechanism(rows)


def test_bad_parameters():
    mech = FiniteMechanism([["1"], ["1"]])
    with pytest.raises(InputError):
        is_adp(mech, -1, 0)
    with pytest.raises(InputError):
        is_prdp(mech, 0, "-0.1")
    with pytest.raises(InputError):
        FiniteMechanism([["1"], ["1"]], neighbours=[(0, 5)])


# ---------------------------------------------------------------- conversion


@given(
    st.builds(Fraction, st.integers(0, 300), st.integers(1, 100)),
    st.builds(Fraction, st.integers(1, 999), st.integers(1000, 10**6)),  # δ < 1
    st.builds(Fraction, st.integers(1, 300), st.integers(1, 100)),
)
def test_conversion_vs_mpmath(eps, delta, gap):
    eps_hat = eps + gap
    enc = adp_to_prdp(eps, delta, eps_hat)
    truth = mpq(delta) / (1 - mpmath.exp(mpq(eps) - mpq(eps_hat)))
    assert inside(enc, truth)
    assert enc.relative_width() < 1e-14
    dh = Fraction(delta) * 2 + gap / 1000
    e2 = min_eps_hat(eps, delta, dh)
    assert inside(e2, mpq(eps) - mpmath.log(1 - mpq(delta) / mpq(dh)))


def test_conversion_close_eps():
    # ε̂ - ε = 1e-30: 1 - e^{-1e-30} ≈ 1e-30 must not cancel
    enc = adp_to_prdp("0.5", "1e-40", "0.500000000000000000000000000001")
    truth = mpmath.mpf(10) ** -40 / -mpmath.expm1(-(mpmath.mpf(10) ** -30))
    assert inside(enc, truth)
    assert enc.relative_width() < 1e-14


def test_conversion_errors():
    with pytest.raises(InputError, match="eps_hat must be > eps"):
        adp_to_prdp("1", "0.1", "1")
    with pytest.raises(InputError, match="delta_hat must be > delta"):
        min_eps_hat("1", "0.1", "0.1")


@given(tables(), fracs.filter(lambda f: f <= 2), st.integers(1, 20))
def test_conversion_is_sound_on_finite_mechanisms(rows, eps, gap):
    """Lemma 2.3 checked by the exact checks: with δ = (an upper bound of) the
    mechanism's own hockey-stick sup, it is (ε, δ)-ADP, hence (ε̂, δ̂)-PrDP."""
    mech = FiniteMechanism(rows)
    sup_hi = -dyadic_to_fraction(is_adp(mech, eps, 0).margin.lo)  # sup <= sup_hi
    delta = max(sup_hi, Fraction(1, 10**6))
    assert is_adp(mech, eps, delta).holds
    assume(delta < 1)  # δ = 1 (a non-private table) makes the lemma vacuous; conversions reject it
    eps_hat = eps + Fraction(gap, 10)
    dhat = dyadic_to_fraction(adp_to_prdp(eps, delta, eps_hat).hi)
    assert is_prdp(mech, eps_hat, dhat).holds


def test_zhao_and_g_forms_are_inverse():
    eps, delta, eps_hat = Fraction(1, 2), Fraction(1, 100), Fraction(3, 4)
    dh = adp_to_prdp(eps, delta, eps_hat)
    # feeding the bounds of δ̂ back brackets ε̂ (min_eps_hat is decreasing in δ̂)
    lo = min_eps_hat(eps, delta, dyadic_to_fraction(dh.hi))
    hi = min_eps_hat(eps, delta, dyadic_to_fraction(dh.lo))
    assert lo.lo <= hi.hi and dyadic_to_fraction(lo.lo) <= eps_hat <= dyadic_to_fraction(hi.hi)
    assert float(hi.hi - lo.lo) < 1e-12


@pytest.mark.parametrize("delta", ["1", "2"])
def test_conversion_rejects_vacuous_delta(delta):
    from certdp import InputError
    from certdp.analyses.prdp.conversion import adp_to_prdp

    with pytest.raises(InputError, match="delta"):
        adp_to_prdp("1", delta, "2")
