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


def test_second_lower_pld_only_at_a_tie():
    """A relation's lower PLD is built while no lower end is known, or when its upper
    end is the top one (tightness only: one relation's lower end is already certified;
    a relation below the top had a lower end below the top relation's in every DP-SGD
    case measured, see _may_raise)."""
    from flint import arb

    from certdp.analyses.accountants.pld import _may_raise

    lo, hi = arb(10), arb(14)  # width 4
    assert _may_raise(arb(14), arb(0), hi)  # nothing found yet
    assert not _may_raise(arb(10), lo, hi)  # its upper end is at the lower end
    assert not _may_raise(arb("12.9"), lo, hi)
    assert not _may_raise(arb("13.9"), lo, hi)  # below the top relation's upper end
    assert _may_raise(arb(14), lo, hi)  # a tie: its lower end may be the higher one


def test_small_rate_answer_builds_one_lower_pld():
    """σ 9.4, q 0.001, T 10⁴: remove's and add's upper ends are 0.029354 and 0.029259
    and remove's lower end 0.02927 on the grid 1/65536 (the automatic grid until
    2026-11-27; now 3/131072, coarser): the add lower PLD cannot help and is not built."""
    acc = PLDAccountant(h=Fraction(1, 65536)).compose(SubsampledGaussian(Fraction(94, 10), Fraction(1, 1000)), 10**4)
    e = acc.epsilon(Fraction(1, 10**5))
    assert set(acc._compute()["lower"]) == {"remove"}
    assert Fraction(2926, 10**5) < e.lo_exact < e.hi_exact < Fraction(2937, 10**5)


def test_symmetric_mechanism_composes_one_relation(monkeypatch):
    """Laplace: the add and remove one-step PLDs are the same integers, so the add
    composition is remove's (one set of products, not two) — and the answer is the one
    both compositions give."""
    from certdp.mechanisms.spec import parse_spec

    mech = parse_spec("compose(laplace(scale=5), k=30)")
    acc = PLDAccountant().compose(mech)
    e1 = acc.epsilon(Fraction(1, 10**4))
    c = acc._compute()
    assert c["upper"]["add"] is c["upper"]["remove"]
    assert all(c["lower"][r] is c["lower"]["remove"] for r in c["lower"])
    monkeypatch.setattr(PLDAccountant, "_mirrors", lambda self, rel, kind: None)
    acc2 = PLDAccountant().compose(mech)
    e2 = acc2.epsilon(Fraction(1, 10**4))
    assert acc2._compute()["upper"]["add"] is not acc2._compute()["upper"]["remove"]
    assert (e1.lo_exact, e1.hi_exact) == (e2.lo_exact, e2.hi_exact)


def test_subsampled_gaussian_relations_differ():
    """A subsampled Gaussian's relations are not mirror images: each is composed."""
    acc = PLDAccountant().compose(SubsampledGaussian(Fraction(1), Fraction(1, 10)), 20)
    c = acc._compute()
    assert c["upper"]["add"] is not c["upper"]["remove"]
    assert acc._mirrors("add", "upper") is None
