"""The Enclosure API for computing with certified numbers (issue 17 part 4):
exact and outward float ends, three-valued comparisons, certified arithmetic,
formatting.  Truth is exact rational arithmetic (Fraction) or mpmath at 60 digits."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certdp import Enclosure
from certdp.numerics.enclosure import UndecidedComparison

fractions = st.fractions(min_value=Fraction(-10**6), max_value=Fraction(10**6), max_denominator=10**9)
positive = st.fractions(min_value=Fraction(1, 10**9), max_value=Fraction(10**6), max_denominator=10**9)


def interval(a: Fraction, b: Fraction) -> Enclosure:
    lo, hi = min(a, b), max(a, b)
    return Enclosure.hull(Enclosure.exact(lo), Enclosure.exact(hi))


@settings(max_examples=150, deadline=None)
@given(fractions, fractions, fractions, fractions)
def test_arithmetic_contains_every_exact_combination(a, b, c, d):
    x, y = interval(a, b), interval(c, d)
    for p in (a, b):
        for q in (c, d):
            assert (x + y).contains(p + q)
            assert (x - y).contains(p - q)
            assert (x * y).contains(p * q)
            if not (min(c, d) <= 0 <= max(c, d)):
                assert (x / y).contains(p / q)
    # the sum of two points is exact: no width is lost
    assert (Enclosure.exact(a) + Enclosure.exact(c)).contains(a + c)


@settings(max_examples=100, deadline=None)
@given(positive)
def test_monotone_functions_enclose_mpmath(a):
    x = Enclosure.exact(a)
    with mpmath.workdps(200):  # far below the enclosures' widths
        v = mpmath.mpf(a.numerator) / a.denominator
        for enc, truth in ((x.sqrt(), mpmath.sqrt(v)), (x.log(), mpmath.log(v)), (x.exp() if a < 1000 else None, mpmath.exp(v))):
            if enc is None:
                continue
            assert mpmath.mpf(enc.lo_exact.numerator) / enc.lo_exact.denominator <= truth
            assert truth <= mpmath.mpf(enc.hi_exact.numerator) / enc.hi_exact.denominator
            assert enc.relative_width() < 1e-25


@settings(max_examples=200, deadline=None)
@given(fractions)
def test_float_ends_are_outward(a):
    x = Enclosure.exact(a)
    assert Fraction(x.lower_float()) <= a <= Fraction(x.upper_float())
    assert x.lo_exact <= a <= x.hi_exact


def test_float_ends_outside_the_float_range():
    tiny, huge = Enclosure.exact("1e-400"), Enclosure.exact("1e400")
    assert tiny.lower_float() == 0.0 and tiny.upper_float() > 0.0
    assert huge.upper_float() == float("inf") and huge.lower_float() == 1.7976931348623157e308
    assert (-huge).lower_float() == float("-inf")
    with pytest.raises(TypeError, match="lower_float"):
        float(tiny)


def test_three_valued_comparisons_never_guess():
    third = Enclosure.exact(Fraction(1, 3))  # not dyadic: a proper interval around 1/3
    assert third.certainly_lt(1) is True and third.certainly_gt(1) is False
    assert third.certainly_lt(Fraction(1, 3)) is None  # straddles the point
    assert third.certainly_ge(0) is True and third.certainly_le(0) is False
    assert third < 1 and third > 0 and third <= Fraction(1, 2)
    with pytest.raises(UndecidedComparison):
        third < third + Fraction(1, 10**80)
    assert (third < third + Fraction(1, 10**6)) is True
    two = Enclosure.exact(2)
    assert two.certainly_le(2) is True and two.certainly_lt(2) is False and two.certainly_ge(two) is True


def test_division_by_an_enclosure_containing_zero():
    with pytest.raises(ZeroDivisionError):
        Enclosure.exact(1) / interval(Fraction(-1), Fraction(1))


def test_formatting():
    third = Enclosure.exact(Fraction(1, 3))
    assert f"{third:.5}" == "[0.33333, 0.33334]"
    assert f"{third}" == str(third)
    assert third._repr_html_() == f"<code>{third}</code>"
    latex = Enclosure.exact(Fraction(3, 2**100))._repr_latex_()
    ends = latex.removeprefix(r"$\left[").removesuffix(r"\right]$").split(r",\ ")
    lo, hi = (Fraction(e.split(" ")[0]) * Fraction(10) ** -30 for e in ends)
    assert all(e.endswith(r"\times 10^{-30}") for e in ends)
    assert lo <= Fraction(3, 2**100) <= hi and hi - lo <= Fraction(1, 10**54)
    assert Enclosure.exact(Fraction(5, 4))._repr_latex_() == r"$\left[1.25\right]$"
    for bad in ("d", "x", ".3s", "=10.3f"):  # not a real-number presentation of the mini-language
        with pytest.raises(ValueError):
            format(third, bad)
