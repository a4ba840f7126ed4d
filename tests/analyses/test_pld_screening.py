"""The add relation of a DP-SGD answer settled on a coarser grid (PLDAccountant._screened):
the same enclosure as composing both relations on the grid, without the fine add PLD."""

from __future__ import annotations

from fractions import Fraction

from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian

SG = SubsampledGaussian(Fraction(94, 10), Fraction(32768, 100000))


def _acc() -> PLDAccountant:
    return PLDAccountant().compose(SG, 2000)


def test_screened_epsilon_equals_the_answer_from_both_fine_relations():
    screened = _acc()
    e1 = screened.epsilon(Fraction(1, 10**5))
    assert "add" not in screened._compute()["upper"]  # settled on the coarse grid
    full = _acc()
    full._compute()["upper"]["add"]  # composed on the grid first: no screen
    e2 = full.epsilon(Fraction(1, 10**5))
    assert e1.lo_exact == e2.lo_exact and e1.hi_exact == e2.hi_exact
    assert 0 < e1.lo_exact < e1.hi_exact < Fraction(75, 10)


def test_screened_delta_equals_the_answer_from_both_fine_relations():
    screened = _acc()
    d1 = screened.delta(Fraction(7))
    assert "add" not in screened._compute()["upper"]
    full = _acc()
    full._compute()["upper"]["add"]
    d2 = full.delta(Fraction(7))
    assert d1.lo_exact == d2.lo_exact and d1.hi_exact == d2.hi_exact
    assert 0 < d1.lo_exact < d1.hi_exact


def test_a_dominant_add_relation_is_composed_on_the_grid():
    """When the coarse add bound is not below remove's, the fine add PLD is composed
    (the max over the relations then comes from both fine PLDs)."""
    acc = _acc()
    c = acc._compute()
    c["upper"]["remove"]
    from flint import arb

    # a bound no coarse value can be certainly below: 0

    assert acc._screened("add", lambda pld: arb(1), arb(0)) is None
    # once add is composed, no screen is tried
    c["upper"]["add"]
    assert acc._screened("add", lambda pld: arb(0), arb(1)) is None
